"""Measure a learned answer gate against the hand-set evidence score, leaving one writer's question set out at a
time (issue 24: a learned answerability decision; not adopted, docs/decisions/0024-clinical-concepts.md).

Input: records from evaluation/gate_data.py (every committed question set asked through the pipeline, on the
four samples and, for distractors, on the samples with 3,000 NFCorpus abstracts). A candidate passage's label is
1 when the question is answerable, the passage is from the right document and holds one of the phrases a correct
answer must contain; every passage of an uncovered or population question is 0. Each record is used twice: as
the embedded index returns it and without the BM25 and cosine sub-scores (as an OpenSearch hybrid query returns
it, and the hand-set score then reads coverage alone), so one model reads both. The model is a small LightGBM
binary classifier over evaluation/gate_features.py's features, deterministic (fixed seed, one thread).

A question is judged as the gate judges it: the documents with a passage at or above the threshold answer, their
passages at abstention.MIN_SHARE_OF_BEST of the best fused score are kept, and the question counts answered
correctly when a kept passage of the right document holds a phrase, abstained when nothing is kept, and a
population question as handled when nothing is kept or abstention.population_conflict states the conflict. The
hand-set score is judged the same way at Settings.evidence_threshold ("hand"), beside the pipeline's own outcome
("pipeline": adds the ladder's relaxed and dense steps and the composer).

The learned gate answers from a passage whose probability reaches the threshold (--gate model), or whose
hand-set score and probability, each over its own threshold, average 1 or more (--gate blend). Leave-one-writer-
out: for each writer, a model trained on every other writer's sets (both corpora) scores theirs (a writer's typed
and spoken-style sets, blind7 and blind7_spoken, are left out together). The probability's threshold is
the lowest on a 0.01 grid whose uncovered questions abstain at --target or more (and, with --hand-floor, no less
than with the hand-set gate) on each corpus, chosen on a nested leave-one-writer-out inside the training sets, so
the held-out set never chooses its own threshold (--flat: one threshold from every set's out-of-writer scores).

    make gate-cv   # = gate_data on a samples folder and a samples + 3,000 NFCorpus folder, then this
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.query import abstention, evidence
from voiceassist_local.evaluation.gate_data import GateRecord, load
from voiceassist_local.evaluation.gate_features import FEATURES, features
from voiceassist_local.evaluation.gate_sentences import SENTENCE_FEATURES, VectorCache, sentence_features

HAND_THRESHOLD = 0.55  # Settings.evidence_threshold's default
TARGET_ABSTAINED = 0.95
SPOKEN = "_spoken"
GRID = np.round(np.arange(0.05, 0.96, 0.01), 2)
MONOTONE = {"hand_score": 1, "coverage": 1, "own_coverage": 1, "missing_topics": -1, "missing_share": -1,
            "other_drug": -1, "keyword_form": -1, "unstated_quantity": -1, "owner_missing": -1, "rerank_score": 1,
            "sent_cos": 1, "sent_cos_doc": 1, "pair_cos": 1, "stating_cos": 1}
PARAMS: dict[str, Any] = {
    "objective": "binary", "learning_rate": 0.05, "num_leaves": 7, "min_data_in_leaf": 20,
    "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0, "seed": 7,
    "deterministic": True, "force_row_wise": True, "num_threads": 1, "verbosity": -1,
    "monotone_constraints_method": "intermediate",
}
# the columns of the examples' rows: the word features, and with --sentences (or --sentence-features) the sentence
# meaning features of evaluation/gate_sentences.py after them
COLUMNS: list[str] = list(FEATURES)
ROUNDS = 200


@dataclass
class Example:
    record: GateRecord
    corpus: str  # "samples" or "nfcorpus" (the samples with 3,000 NFCorpus abstracts)
    view: str  # "full" or "no_sub_scores"
    rows: np.ndarray
    labels: np.ndarray
    # the candidates that state each quantity the question asks for, naming no other drug: kept when their document
    # answers, whatever their search rank (abstention.keep_supported_hits)
    stating: frozenset[int] = frozenset()


def passage_labels(record: GateRecord) -> np.ndarray:
    phrases = [p.casefold() for p in record.must_contain]
    return np.array([float(record.answerable and hit.chunk.doc_key == record.doc_key
                           and (not phrases or any(p in hit.chunk.text.casefold() for p in phrases)))
                     for hit in record.hits])


def examples_of(records: Sequence[GateRecord], corpus: str, cache: VectorCache | None = None,
                sentence_columns: Sequence[str] = ()) -> list[Example]:
    """`cache` and `sentence_columns`: the sentence meaning features named (SENTENCE_FEATURES) after the others."""
    out = []
    picked = [SENTENCE_FEATURES.index(name) for name in sentence_columns]
    for record in records:
        bare = [h.model_copy(update={"bm25_score": None, "vector_score": None}) for h in record.hits]
        stating = stating_asked_quantity(record)
        for view, hits in (("full", record.hits), ("no_sub_scores", bare)):
            rows = features(record.judged_text, hits) if record.judged else np.zeros((0, len(FEATURES)))
            if picked and cache is not None:
                extra = (sentence_features(record.judged_text, hits, cache, pairs="pair_cos" in sentence_columns)
                         if record.judged
                         else np.zeros((0, len(SENTENCE_FEATURES))))
                rows = np.hstack([rows, extra[:, picked]])
            out.append(Example(record, corpus, view, rows, passage_labels(record) if record.judged else np.zeros(0),
                               stating))
    return out


def stating_asked_quantity(record: GateRecord) -> frozenset[int]:
    """The candidates the gate keeps in an answering document for stating the asked quantity (a dose, a duration, a
    count, a maximum), as abstention.keep_supported_hits does: those naming no drug the question lacks."""
    if not record.judged or not record.hits:
        return frozenset()
    found = evidence.assess(record.judged_text, record.hits)
    candidates = [i for i, p in enumerate(found.passages) if not p.other_drug]
    return frozenset(abstention._stating_asked_quantity(record.judged_text, record.hits, candidates))


def outcome(example: Example, scores: np.ndarray, threshold: float) -> bool:
    """Whether the gate at `threshold` gets the question right (answered correctly, abstained, or handled). Kept, as
    abstention.keep_supported_hits keeps them: the answering documents' passages searched at MIN_SHARE_OF_BEST of
    the best, and whatever their search rank those that answer by themselves or state the asked quantity."""
    record, hits = example.record, example.record.hits
    answers = {i for i in range(len(scores)) if scores[i] >= threshold}
    answering = {hits[i].chunk.doc_key for i in answers}
    kept = []
    if answering:
        best = max(h.score for h in hits if h.chunk.doc_key in answering)
        answers |= {i for i in example.stating if hits[i].chunk.doc_key in answering}
        kept = [h for i, h in enumerate(hits) if h.chunk.doc_key in answering
                and (h.score >= abstention.MIN_SHARE_OF_BEST * best or i in answers)]
    if record.answerable:
        phrases = [p.casefold() for p in record.must_contain]
        return any(h.chunk.doc_key == record.doc_key and (not phrases or any(p in h.chunk.text.casefold()
                                                                             for p in phrases)) for h in kept)
    if record.population:
        return not kept or abstention.population_conflict(record.query, kept) is not None
    return not kept


def kind(record: GateRecord) -> str:
    return "answerable" if record.answerable else "population" if record.population else "uncovered"


def figures(examples: Sequence[Example], right: Sequence[bool]) -> dict[str, float | int | None]:
    out: dict[str, float | int | None] = {}
    for name in ("answerable", "uncovered", "population"):
        picked = [ok for e, ok in zip(examples, right, strict=True) if kind(e.record) == name]
        out[name] = len(picked)
        out[f"{name}_pct"] = round(100.0 * sum(picked) / len(picked), 1) if picked else None
    return out


def train(examples: Sequence[Example], rounds: int = ROUNDS) -> Any:
    import lightgbm as lgb

    rows = np.vstack([e.rows for e in examples if len(e.rows)])
    labels = np.concatenate([e.labels for e in examples if len(e.rows)])
    params = {**PARAMS, "monotone_constraints": [MONOTONE.get(name, 0) for name in COLUMNS]}
    return lgb.train(params, lgb.Dataset(rows, labels, feature_name=list(COLUMNS), free_raw_data=False),
                     num_boost_round=rounds)


def probabilities(model: Any, example: Example) -> np.ndarray:
    return np.asarray(model.predict(example.rows)) if len(example.rows) else np.zeros(0)


@dataclass(frozen=True)
class Rule:
    gate: str = "model"  # "model": the probability alone; "blend": it and the hand-set score averaged, each over
    # its threshold
    target: float = TARGET_ABSTAINED  # uncovered questions that must abstain, on each corpus
    hand_floor: bool = False  # and no fewer than with the hand-set gate


def gate_scores(example: Example, probabilities: np.ndarray, threshold: float, rule: Rule) -> np.ndarray:
    """The learned gate's score of each candidate; a candidate at 1 or above answers."""
    if rule.gate == "model":
        return probabilities / threshold
    hand = example.rows[:, 0] if len(example.rows) else np.zeros(0)
    return 0.5 * hand / HAND_THRESHOLD + 0.5 * probabilities / threshold


def hand_right(example: Example) -> bool:
    return outcome(example, example.rows[:, 0] if len(example.rows) else np.zeros(0), HAND_THRESHOLD)


def threshold_for(examples: Sequence[Example], scored: Sequence[np.ndarray], rule: Rule) -> float:
    """The lowest grid threshold whose uncovered questions abstain at rule.target or more (and no less than with
    the hand-set gate, with rule.hand_floor) on each corpus, in the full view."""
    uncovered = [(e, s) for e, s in zip(examples, scored, strict=True)
                 if kind(e.record) == "uncovered" and e.view == "full"]
    corpora = sorted({e.corpus for e, _ in uncovered})
    target = {c: max(rule.target, float(np.mean([hand_right(e) for e, _ in uncovered if e.corpus == c]))
                     if rule.hand_floor else rule.target) for c in corpora}
    for threshold in GRID:
        if all(np.mean([outcome(e, gate_scores(e, s, threshold, rule), 1.0) for e, s in uncovered
                        if e.corpus == c]) >= target[c] - 1e-9 for c in corpora):
            return float(threshold)
    return float(GRID[-1])


def writer(example: Example) -> str:
    """The writer of a question set: a writer's spoken-style set ("blind7_spoken") is theirs too."""
    return example.record.set.removesuffix(SPOKEN)


def out_of_writer(examples: Sequence[Example], writers: Sequence[str], rounds: int,
                  models: dict[frozenset[str], Any] | None = None, left_out: frozenset[str] = frozenset()
                  ) -> list[np.ndarray]:
    """Each example's probabilities from a model that never saw its writer's sets. `models`: the models already
    trained, by the writers left out of their training (`left_out`: those already missing from `examples`), so
    the nested cross-validation trains the model without writers a and b once, not once for each."""
    scored: list[np.ndarray] = [np.zeros(0)] * len(examples)
    models = {} if models is None else models
    for held in writers:
        key = left_out | {held}
        if key not in models:
            models[key] = train([e for e in examples if writer(e) != held], rounds)
        model = models[key]
        for i, e in enumerate(examples):
            if writer(e) == held:
                scored[i] = probabilities(model, e)
    return scored


def cross_validate(examples: Sequence[Example], rule: Rule, rounds: int = ROUNDS, nested: bool = True
                   ) -> dict[str, Any]:
    writers = sorted({writer(e) for e in examples})
    sets = sorted({e.record.set for e in examples})
    models: dict[frozenset[str], Any] = {}
    scored = out_of_writer(examples, writers, rounds, models)
    flat = threshold_for(examples, scored, rule)
    thresholds = {}
    for held in writers:
        if nested:
            inner = [e for e in examples if writer(e) != held]
            thresholds[held] = threshold_for(inner, out_of_writer(inner, sorted({writer(e) for e in inner}), rounds,
                                                                  models, frozenset({held})), rule)
        else:
            thresholds[held] = flat
        print(f"gate_training: {held} threshold {thresholds[held]}", file=sys.stderr, flush=True)
    report: dict[str, Any] = {"rule": rule.__dict__, "nested": nested, "thresholds": thresholds,
                              "threshold_all_writers": flat, "sets": {}}
    for corpus in sorted({e.corpus for e in examples}):
        for view in ("full", "no_sub_scores"):
            rows: dict[str, Any] = {}
            for name in [*sets, "all"]:
                picked = [(e, s) for e, s in zip(examples, scored, strict=True) if e.corpus == corpus
                          and e.view == view and name in (e.record.set, "all")]
                chosen = [e for e, _ in picked]
                rows[name] = {
                    "pipeline": figures(chosen, [e.record.correct for e in chosen]),
                    "hand": figures(chosen, [hand_right(e) for e in chosen]),
                    "learned": figures(chosen, [outcome(e, gate_scores(e, s, thresholds[writer(e)], rule), 1.0)
                                                for e, s in picked]),
                }
            report["sets"][f"{corpus}/{view}"] = rows
    return report


def cpu_per_question(examples: Sequence[Example], rounds: int = ROUNDS) -> dict[str, float]:
    """CPU milliseconds per question of what the learned gate adds to the hand-set score: its features (the
    reranker's scores among them) and the trees, scored with numpy as query/trees.py scores the reranker."""
    import time

    from voiceassist.query.trees import from_flat, from_lightgbm_dump

    full = [e for e in examples if e.view == "full" and e.record.hits]
    trees = from_flat(from_lightgbm_dump(train(full, rounds).dump_model()))
    for e in full:  # a warm process: the terms of each passage cached, as after a first question on it
        features(e.record.judged_text, e.record.hits)

    def per_question(step: Any) -> float:
        started = time.process_time()
        for e in full:
            step(e.record)
        return round(1000.0 * (time.process_time() - started) / len(full), 3)

    hand = per_question(lambda r: evidence.assess(r.judged_text, r.hits))
    learned = per_question(lambda r: trees.predict(features(r.judged_text, r.hits)))
    return {"questions": len(full), "hand_ms": hand, "learned_ms": learned, "added_ms": round(learned - hand, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path, help="gate_data records on the four samples")
    parser.add_argument("nfcorpus", type=Path, nargs="?", help="gate_data records with 3,000 NFCorpus abstracts")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--gate", choices=("model", "blend"), default="model")
    parser.add_argument("--target", type=float, default=TARGET_ABSTAINED)
    parser.add_argument("--hand-floor", action="store_true",
                        help="choose the threshold so that uncovered questions also abstain no less than with the "
                             "hand-set gate")
    parser.add_argument("--flat", action="store_true", help="one threshold from every set's out-of-writer scores")
    parser.add_argument("--report", type=Path, help="write the report here too")
    parser.add_argument("--cpu", action="store_true", help="only the CPU per question the learned gate adds")
    parser.add_argument("--sentences", action="store_true",
                        help="add every sentence meaning feature (evaluation/gate_sentences.py; embeds sentences)")
    parser.add_argument("--sentence-features", nargs="*", default=None, choices=SENTENCE_FEATURES,
                        help="add only these sentence meaning features")
    parser.add_argument("--vector-cache", type=Path, help="sentence vectors kept here between runs (.npz)")
    args = parser.parse_args(argv)
    columns = list(SENTENCE_FEATURES) if args.sentences else list(args.sentence_features or ())
    cache = None
    if columns:
        from voiceassist.adapters.onnx.embedder import OnnxEmbedder

        cache = VectorCache(OnnxEmbedder(), args.vector_cache)
        COLUMNS[:] = [*FEATURES, *columns]
    examples = examples_of(load(args.samples), "samples", cache, columns)
    if args.nfcorpus:
        examples += examples_of(load(args.nfcorpus), "nfcorpus", cache, columns)
    if cache is not None:
        cache.save()
        print(f"gate_training: {cache.embedded} sentences embedded", file=sys.stderr, flush=True)
    if args.cpu:
        print(json.dumps(cpu_per_question(examples, args.rounds)))
        return 0
    rule = Rule(args.gate, args.target, args.hand_floor)
    cv = cross_validate(examples, rule, args.rounds, nested=not args.flat)
    report: dict[str, Any] = {"cross_validation": cv}
    text = json.dumps(report, indent=1)
    if args.report:
        args.report.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
