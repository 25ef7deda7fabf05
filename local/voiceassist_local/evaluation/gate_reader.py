"""A learned answer-sentence reader over term alignment, measured leaving one writer out (issue 24: can a reader
trained on our own questions tell the sentence that answers a question from a near-topic sentence?).

Every answerable question of tests/fixtures/answers names what its answer must contain (`must_contain`), so the
sentence of the right document holding that phrase is a positive (question, sentence) pair; every other sentence of
the gate's candidates, and every sentence read for an uncovered or population question, is a negative (near-topic
ones among them: the candidates are what the search found). Per (question, sentence under its document title):

- the late-interaction alignment of the question's content words to the sentence's word pieces (gate_late: each
  word's best cosine among the sentence's pieces, with the shipped MiniLM encoder's token vectors): mean, weakest,
  second weakest, the share of words at 0.5 and 0.7 or more, the mean weighted by each word's pieces;
- the pooled cosine of the question and the sentence (the sentence vector the embedder gives);
- the sentence's own concept coverage (evidence.assess_passage on the sentence under its title), whether it states
  the quantity or kind of fact asked (answer_kinds), its words and place in the passage;
- its passage's hand-set evidence score, coverage, missing topics and learned-reranker score (gate_features).

A LightGBM classifier (gate_training's parameters) reads them; a passage's reader score is its best sentence's
probability. For each writer the reader is trained on the other writers' questions only (both corpora); the
scores the rule below is chosen on are themselves nested (for writer w, another writer v's scores come from a
reader trained without w and v), so the held-out writer neither trains the reader nor chooses the rule.

Two rules on the hand-set gate, each chosen per writer on the other writers (gate_rule's criterion: the most
answerable questions answered with uncovered abstention on each corpus no lower than the hand-set gate's):
- rescue: a candidate at or above `lo` but under 0.55 answers when its reader score reaches `t`;
- veto: a candidate at 0.55 or more stops answering when its reader score is under `v` (scored on uncovered
  abstention first: the most abstained with answered no lower than the hand-set gate's).

    python -m voiceassist_local.evaluation.gate_reader D.pkl N.pkl --report reader.json

Measurement only: nothing ships.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.models import Chunk, SearchHit
from voiceassist.query import answer_kinds, evidence
from voiceassist.query.concepts import marks as concept_marks
from voiceassist.query.expansion import expand_query
from voiceassist.query.question_concepts import drug_marks, named_drugs
from voiceassist_local.evaluation import gate_rule
from voiceassist_local.evaluation import gate_training as gt
from voiceassist_local.evaluation.gate_features import FEATURES, features
from voiceassist_local.evaluation.gate_late import TokenVectors, question_words
from voiceassist_local.evaluation.gate_sentences import units

SENTENCE_COLUMNS = (
    "al_mean", "al_min", "al_min2", "al_share50", "al_share70", "al_weighted", "sent_cos", "sent_coverage",
    "states_asked", "sent_words", "sent_place",
    "hand_score", "coverage", "own_coverage", "missing_topics", "rerank_score",
)
PASSAGE_FROM = [FEATURES.index(n) for n in ("hand_score", "coverage", "own_coverage", "missing_topics",
                                            "rerank_score")]
MONOTONE = {"al_mean": 1, "al_min": 1, "al_min2": 1, "al_share50": 1, "al_share70": 1, "al_weighted": 1,
            "sent_cos": 1, "sent_coverage": 1, "hand_score": 1, "coverage": 1, "own_coverage": 1,
            "missing_topics": -1}
ROUNDS = 150
VETOES = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3)


def sentence_rows(question: str, hits: Sequence[SearchHit], passage_rows: np.ndarray, tokens: TokenVectors,
                  phrases: Sequence[str], right_doc: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, labels, passage index of each row) for every sentence of the candidates."""
    expanded = expand_query(question)
    asked, weights = question_words(expanded, tokens)
    question_vector = tokens.pooled(expanded)
    quantities, kinds = answer_kinds.quantities_asked(question), answer_kinds.asked(question)
    concepts = evidence.question_concepts(question)
    doses_of = drug_marks(named_drugs(concepts))
    lowered = [p.casefold() for p in phrases]
    rows: list[list[float]] = []
    labels: list[float] = []
    owner: list[int] = []
    for i, hit in enumerate(hits):
        sentences = units(hit.chunk.text)
        for place, sentence in enumerate(sentences):
            text = f"{hit.chunk.metadata.title}: {sentence}"
            vectors, _, _ = tokens(text)
            if len(asked) and len(vectors):
                aligned = (asked @ vectors.T.astype(np.float32)).max(axis=1)
                best = np.sort(aligned)
                al = (float(best.mean()), float(best[0]), float(best[1] if len(best) > 1 else best[0]),
                      float((best >= 0.5).mean()), float((best >= 0.7).mean()),
                      float(weights @ aligned / weights.sum()))
            else:
                al = (np.nan,) * 6
            cos = float(tokens.pooled(text) @ question_vector)
            chunk: Chunk = hit.chunk.model_copy(update={"text": sentence})
            coverage = evidence.assess_passage(concepts, hit.model_copy(update={"chunk": chunk,
                                                                               "vector_score": None})).coverage
            if quantities:
                states = float(answer_kinds.passage_states(quantities, sentence, doses_of, concept_marks))
            elif kinds:
                states = float(all(answer_kinds.states(k, sentence) for k in kinds))
            else:
                states = np.nan
            rows.append([*al, cos, coverage, states, len(sentence.split()), place / max(len(sentences), 1),
                         *passage_rows[i, PASSAGE_FROM]])
            labels.append(float(right_doc is not None and hit.chunk.doc_key == right_doc
                                and any(p in sentence.casefold() for p in lowered)))
            owner.append(i)
    width = len(SENTENCE_COLUMNS)
    return (np.array(rows, dtype=np.float64).reshape(-1, width), np.array(labels), np.array(owner, dtype=np.int64))


class Item:
    """One question on one corpus: its gate example (full view) and its sentences."""

    def __init__(self, example: gt.Example, rows: np.ndarray, labels: np.ndarray, owner: np.ndarray) -> None:
        self.example, self.rows, self.labels, self.owner = example, rows, labels, owner
        self.writer = gt.writer(example)
        self.corpus = example.corpus
        self.kind = gt.kind(example.record)


def items_of(records: Sequence[Any], corpus: str, tokens: TokenVectors, show: bool = True) -> list[Item]:
    out: list[Item] = []
    for n, record in enumerate(records):
        if show and n % 100 == 0:
            print(f"gate_reader: {corpus} {n}/{len(records)} ({tokens.encoded} texts encoded)", file=sys.stderr,
                  flush=True)
        passage_rows = features(record.judged_text, record.hits) if record.judged else np.zeros((0, len(FEATURES)))
        example = gt.Example(record, corpus, "full", passage_rows, gt.passage_labels(record) if record.judged
                             else np.zeros(0))
        if record.judged and record.hits:
            rows, labels, owner = sentence_rows(record.judged_text, record.hits, passage_rows, tokens,
                                                record.must_contain if record.answerable else (),
                                                record.doc_key if record.answerable else None)
        else:
            rows, labels, owner = np.zeros((0, len(SENTENCE_COLUMNS))), np.zeros(0), np.zeros(0, dtype=np.int64)
        out.append(Item(example, rows, labels, owner))
    return out


def train(items: Sequence[Item]) -> Any:
    import lightgbm as lgb

    rows = np.vstack([i.rows for i in items if len(i.rows)])
    labels = np.concatenate([i.labels for i in items if len(i.rows)])
    params = {**gt.PARAMS, "monotone_constraints": [MONOTONE.get(c, 0) for c in SENTENCE_COLUMNS]}
    return lgb.train(params, lgb.Dataset(rows, labels, feature_name=list(SENTENCE_COLUMNS)), num_boost_round=ROUNDS)


def passage_scores(model: Any, item: Item) -> np.ndarray:
    """Each candidate's reader score: its best sentence's probability (0 for a passage without sentences)."""
    scores = np.zeros(len(item.example.rows))
    if len(item.rows):
        probability = np.asarray(model.predict(item.rows))
        np.maximum.at(scores, item.owner, probability)
    return scores


def rescued(hand: np.ndarray, reader: np.ndarray, lo: float, t: float) -> np.ndarray:
    scores = hand.copy()
    scores[(hand < gt.HAND_THRESHOLD) & (hand >= lo) & (reader >= t)] = gt.HAND_THRESHOLD
    return scores


def vetoed(hand: np.ndarray, reader: np.ndarray, v: float) -> np.ndarray:
    scores = hand.copy()
    scores[(hand >= gt.HAND_THRESHOLD) & (reader < v)] = 0.0
    return scores


def auc_of(items: Sequence[Item], scores: dict[int, np.ndarray], floor: float = 0.3) -> dict[str, Any]:
    """gate_rule.hard_case_auc's separation, of the reader score."""
    covered: list[float] = []
    uncovered: list[float] = []
    for n, item in enumerate(items):
        e = item.example
        if not len(e.rows) or item.kind == "population":
            continue
        answerable = item.kind == "answerable"
        if answerable and gt.hand_right(e):
            continue
        picked = np.where(e.labels == 1)[0] if answerable else np.arange(len(e.rows))
        if not len(picked):
            continue
        best = picked[np.argmax(e.rows[picked, 0])]
        if e.rows[best, 0] < floor:
            continue
        (covered if answerable else uncovered).append(float(scores[n][best]))
    pairs = np.subtract.outer(np.array(covered), np.array(uncovered))
    auc = float(((pairs > 0).sum() + 0.5 * (pairs == 0).sum()) / pairs.size) if pairs.size else float("nan")
    return {"covered": len(covered), "uncovered": len(uncovered), "auc": round(auc, 3),
            "covered_median": round(float(np.median(covered)), 3) if covered else None,
            "uncovered_median": round(float(np.median(uncovered)), 3) if uncovered else None}


def cross_validate(items: Sequence[Item]) -> dict[str, Any]:
    writers = sorted({i.writer for i in items})
    models: dict[frozenset[str], Any] = {}

    def model_without(left: frozenset[str]) -> Any:
        if left not in models:
            models[left] = train([i for i in items if i.writer not in left])
        return models[left]

    outer = {n: passage_scores(model_without(frozenset({item.writer})), item) for n, item in enumerate(items)}
    grid_lo = gate_rule.LOWS
    everything = np.concatenate([s for s in outer.values() if len(s)])
    grid_t = sorted(set(np.round(np.percentile(everything, np.arange(50, 100, 2.5)), 3).tolist()))
    rescues = [gate_rule.NONE, *((lo, t) for lo in grid_lo for t in grid_t)]

    def outcomes(subset: list[int], scores: dict[int, np.ndarray], rule: str, p: Any) -> np.ndarray:
        out = []
        for n in subset:
            e = items[n].example
            hand = e.rows[:, 0] if len(e.rows) else np.zeros(0)
            s = rescued(hand, scores[n], *p) if rule == "rescue" else vetoed(hand, scores[n], p)
            out.append(gt.outcome(e, s, gt.HAND_THRESHOLD))
        return np.array(out)

    def choose(subset: list[int], scores: dict[int, np.ndarray], rule: str) -> Any:
        grid = rescues if rule == "rescue" else list(VETOES)
        none = gate_rule.NONE if rule == "rescue" else 0.0
        kinds = np.array([items[n].kind for n in subset])
        corpora = np.array([items[n].corpus for n in subset])
        right = {p: outcomes(subset, scores, rule, p) for p in grid}
        best, most = none, (-1.0, -1.0)
        for p in grid:
            keeps = all(right[p][m].mean() >= right[none][m].mean() - 1e-9 for c in set(corpora)
                        if (m := (kinds == "uncovered") & (corpora == c)).any())
            answers = all(right[p][m].mean() >= right[none][m].mean() - 1e-9 for c in set(corpora)
                          if (m := (kinds == "answerable") & (corpora == c)).any())
            answered = float(right[p][kinds == "answerable"].mean()) if (kinds == "answerable").any() else 1.0
            abstained = float(right[p][kinds == "uncovered"].mean()) if (kinds == "uncovered").any() else 1.0
            if rule == "rescue" and keeps and (answered, abstained) > most:
                best, most = p, (answered + 1e-9, abstained)
            if rule == "veto" and answers and (abstained, answered) > most:
                best, most = p, (abstained + 1e-9, answered)
        return best

    report: dict[str, Any] = {"chosen": {}, "auc": {}, "sets": {}}
    for corpus in sorted({i.corpus for i in items}):
        report["auc"][corpus] = auc_of([i for i in items if i.corpus == corpus],
                                       {k: outer[n] for k, n in enumerate(n for n, i in enumerate(items)
                                                                          if i.corpus == corpus)})
    final: dict[str, dict[int, bool]] = {"rescue": {}, "veto": {}}
    for held in writers:
        inner = [n for n, i in enumerate(items) if i.writer != held]
        nested = {n: passage_scores(model_without(frozenset({held, items[n].writer})), items[n]) for n in inner}
        mine = [n for n, i in enumerate(items) if i.writer == held]
        for rule in ("rescue", "veto"):
            p = choose(inner, nested, rule)
            report["chosen"].setdefault(rule, {})[held] = None if p in (gate_rule.NONE, 0.0) else p
            for n, ok in zip(mine, outcomes(mine, outer, rule, p), strict=True):
                final[rule][n] = bool(ok)
        print(f"gate_reader: {held} rescue {report['chosen']['rescue'][held]} veto {report['chosen']['veto'][held]}",
              file=sys.stderr, flush=True)
    sets = sorted({i.example.record.set for i in items})
    for corpus in sorted({i.corpus for i in items}):
        for name in [*sets, "all"]:
            picked = [n for n, i in enumerate(items) if i.corpus == corpus and name in (i.example.record.set, "all")]
            row: dict[str, Any] = {}
            for kind in ("answerable", "uncovered", "population"):
                ks = [n for n in picked if items[n].kind == kind]
                if not ks:
                    continue
                row[kind] = [len(ks), *(round(100.0 * float(np.mean(v)), 1) for v in (
                    [gt.hand_right(items[n].example) for n in ks], [final["rescue"][n] for n in ks],
                    [final["veto"][n] for n in ks]))]
            report["sets"][f"{corpus}/{name}"] = row
    return report


def main(argv: list[str] | None = None) -> int:
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder
    from voiceassist_local.evaluation.gate_data import load

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path)
    parser.add_argument("nfcorpus", type=Path, nargs="?")
    parser.add_argument("--report", type=Path)
    parser.add_argument("--items-cache", type=Path, help="a folder keeping each corpus's sentence rows between runs")
    args = parser.parse_args(argv)
    tokens = TokenVectors(OnnxEmbedder())
    items: list[Item] = []
    for corpus, path in (("samples", args.samples), ("nfcorpus", args.nfcorpus)):
        if path is None:
            continue
        kept = args.items_cache / f"{corpus}-{path.stem}.items.pkl" if args.items_cache else None
        if kept is not None and kept.exists():
            with kept.open("rb") as handle:
                items += pickle.load(handle)  # our own cache, written below
            continue
        read = items_of(load(path), corpus, tokens)
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            with kept.open("wb") as handle:
                pickle.dump(read, handle)
        items += read
    report = cross_validate(items)
    text = json.dumps(report, indent=1)
    if args.report:
        args.report.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
