"""Sentence-level meaning for the learned answer gate's measurement (issue 24, evaluation/gate_training.py).

The gate's passage cosine (query/evidence.py) is the index's MiniLM cosine between the question and a whole
passage, diluted over every sentence of it. Here each candidate passage is read sentence by sentence with the
same in-boundary encoder the index uses (all-MiniLM-L6-v2, ONNX int8, OnnxEmbedder): the question as search
embeds it (query/expansion.expand_query: brands, shorthand and abbreviations spelt out) against each sentence
under its document title, and against each window of two neighbouring sentences (a dose and the sentence naming
its drug). From those cosines, and from which sentence is closest, the features:

- the best sentence (and window) cosine of the passage, of its document's retrieved passages, and the gaps to the
  best of all candidates and to the best of the other documents;
- what the closest sentence carries: whether it states the quantity the question asks (answer_kinds: a count,
  amount, dose, duration, maximum) or the kind of fact it asks (a duration, frequency, time, rate, findings), and
  the cosine of the best sentence that does state it;
- the closest sentence's own concept coverage (evidence.assess_passage on that sentence under its title): a
  near-topic passage names every concept somewhere, the answering one in the sentence that matches the question.

Measurement only: nothing here ships. Sentence vectors are cached on disk by the text's hash (--cache), so the
cross-validation's repeated runs embed each sentence once.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.models import Chunk, SearchHit
from voiceassist.ports import Embedder
from voiceassist.query import answer_kinds, evidence
from voiceassist.query.concepts import marks as concept_marks
from voiceassist.query.expansion import expand_query
from voiceassist.query.extractive import split_sentences
from voiceassist.query.question_concepts import drug_marks, named_drugs

WINDOW_WORDS = 48  # a longer "sentence" (text without sentence punctuation) is read in windows of this many words
MAX_SENTENCES = 12  # of a passage

SENTENCE_FEATURES = (
    "sent_cos",  # the best cosine between the question and one sentence of the passage (under its title)
    "sent_cos_gap",  # sent_cos - the best sent_cos of the candidates
    "sent_cos_doc",  # the best sent_cos of the passage's document's candidates
    "sent_cos_doc_margin",  # sent_cos_doc - the best sent_cos of the other documents' candidates (1 if none)
    "pair_cos",  # the best cosine of a window of two neighbouring sentences
    "sent_minus_passage",  # sent_cos - the index's passage cosine (NaN without it)
    "sent_states_asked",  # the closest sentence states the asked quantity/kind: 1/0, NaN when nothing is asked
    "stating_cos",  # the best cosine of a sentence stating the asked quantity/kind (0 if none; NaN: nothing asked)
    "sent_coverage",  # the closest sentence's own concept coverage (evidence.assess_passage, title included)
    "sentences",  # the passage's sentences read
    "kind_question_cos",  # the best cosine of a question generated from a sentence's fact kind and the title
)
# The question a sentence answers, from the kind of fact it states (answer_kinds) and its document's topic (the
# title before a bracket): "Start with 500 mg once daily" in "Metformin (sample drug reference)" -> "What is the
# dose of Metformin?". Li and Roth's answer classes as answer_kinds reads them; a sentence stating none answers
# "What about <topic>?".
KIND_QUESTIONS = {"dose": "What is the dose of", "maximum": "What is the maximum dose of", "duration": "How long is",
                  "count": "How many", "amount": "How much", "frequency": "How often is", "time": "When is",
                  "rate": "How fast is", "recognition": "How do I recognise"}


def units(text: str) -> list[str]:
    """A passage's sentences, each at most WINDOW_WORDS words (a longer one in windows), at most MAX_SENTENCES."""
    out: list[str] = []
    for sentence in split_sentences(text):
        words = sentence.split()
        out.extend(" ".join(words[i:i + WINDOW_WORDS]) for i in range(0, len(words), WINDOW_WORDS))
    return out[:MAX_SENTENCES]


class VectorCache:
    """Sentence vectors by a hash of the text, embedded once (and kept on disk between runs when given a path)."""

    def __init__(self, embedder: Embedder, path: Path | None = None) -> None:
        self._embedder = embedder
        self._path = path
        self._vectors: dict[bytes, np.ndarray] = {}
        self._lock = threading.Lock()
        self.embedded = 0
        if path is not None and path.exists():
            with np.load(path) as stored:
                self._vectors = dict(zip((bytes(k) for k in stored["keys"]), stored["vectors"], strict=True))

    @staticmethod
    def key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self.key(t) for t in texts]
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in self._vectors))
        if missing:
            fresh = self._embedder.embed(missing)
            self.embedded += len(missing)
            for text, vector in zip(missing, fresh, strict=True):
                self._vectors[self.key(text)] = np.asarray(vector, dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def save(self) -> None:
        if self._path is None:
            return
        keys = list(self._vectors)
        np.savez(self._path, keys=np.array(keys, dtype="S16"),
                 vectors=np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, 384), np.float32))


def kind_questions(title: str, sentence: str) -> list[str]:
    """The questions a sentence answers by the kind of fact it states (KIND_QUESTIONS)."""
    topic = title.split("(")[0].strip()
    kinds = [q for q in ("dose", "maximum", "duration", "count", "amount") if answer_kinds.states_quantity(q, sentence)]
    kinds += [k.name for k in answer_kinds.KINDS if answer_kinds.states(k, sentence)]
    return [f"{KIND_QUESTIONS[k]} {topic}?" for k in dict.fromkeys(kinds)] or [f"What about {topic}?"]


def _asked(question: str) -> tuple[tuple[str, ...], tuple[answer_kinds.AnswerKind, ...]]:
    return answer_kinds.quantities_asked(question), answer_kinds.asked(question)


def _states(sentence: str, quantities: tuple[str, ...], kinds: Sequence[answer_kinds.AnswerKind],
            doses_of: frozenset[str]) -> bool:
    if quantities:
        return answer_kinds.passage_states(quantities, sentence, doses_of, concept_marks)
    return all(answer_kinds.states(kind, sentence) for kind in kinds)


def sentence_features(question: str, hits: Sequence[SearchHit], cache: VectorCache, *, pairs: bool = True
                      ) -> np.ndarray:
    """The candidates' rows (len(hits) x len(SENTENCE_FEATURES)); without `pairs` no window of two sentences is
    embedded (pair_cos is then sent_cos)."""
    rows = np.full((len(hits), len(SENTENCE_FEATURES)), np.nan)
    if not hits:
        return rows
    quantities, kinds = _asked(question)
    concepts = evidence.question_concepts(question)
    doses_of = drug_marks(named_drugs(concepts))
    read = [units(h.chunk.text) for h in hits]
    titled = [[f"{h.chunk.metadata.title}: {s}" for s in sents] for h, sents in zip(hits, read, strict=True)]
    windows = [[f"{h.chunk.metadata.title}: {a} {b}" for a, b in zip(sents, sents[1:], strict=False)] if pairs
               else [] for h, sents in zip(hits, read, strict=True)]
    generated = [sorted({q for sentence in sents for q in kind_questions(h.chunk.metadata.title, sentence)})
                 for h, sents in zip(hits, read, strict=True)]
    flat = [expand_query(question), *(t for ts in titled for t in ts), *(p for ps in windows for p in ps),
            *(q for qs in generated for q in qs)]
    vectors = cache.vectors(flat)
    asked_vector, position = vectors[0], 1
    best: list[float] = []
    closest: list[int] = []
    per_sentence: list[np.ndarray] = []
    for ts in titled:
        cos = vectors[position:position + len(ts)] @ asked_vector if ts else np.zeros(0)
        position += len(ts)
        per_sentence.append(cos)
        best.append(float(cos.max()) if len(cos) else 0.0)
        closest.append(int(cos.argmax()) if len(cos) else -1)
    pair_best: list[float] = []
    for ps, b in zip(windows, best, strict=True):
        cos = vectors[position:position + len(ps)] @ asked_vector if ps else np.zeros(0)
        position += len(ps)
        pair_best.append(float(cos.max()) if len(cos) else b)
    kind_best: list[float] = []
    for qs in generated:
        cos = vectors[position:position + len(qs)] @ asked_vector if qs else np.zeros(0)
        position += len(qs)
        kind_best.append(float(cos.max()) if len(cos) else 0.0)
    top = max(best)
    by_doc: dict[str, float] = {}
    for h, b in zip(hits, best, strict=True):
        by_doc[h.chunk.doc_key] = max(by_doc.get(h.chunk.doc_key, 0.0), b)
    for i, h in enumerate(hits):
        others = [v for k, v in by_doc.items() if k != h.chunk.doc_key]
        doc_best = by_doc[h.chunk.doc_key]
        passage_cos = None if h.vector_score is None else 2.0 * h.vector_score - 1.0
        sents = read[i]
        if not sents:
            rows[i] = (0.0, -top, doc_best, doc_best - max(others) if others else 1.0, 0.0,
                       np.nan, np.nan, np.nan, 0.0, 0, 0.0)
            continue
        states_asked = stating = np.nan
        if quantities or kinds:
            stated = [_states(s, quantities, kinds, doses_of) for s in sents]
            states_asked = float(stated[closest[i]])
            stating = max((float(c) for c, ok in zip(per_sentence[i], stated, strict=True) if ok), default=0.0)
        chunk: Chunk = h.chunk.model_copy(update={"text": sents[closest[i]]})
        sentence_hit = h.model_copy(update={"chunk": chunk, "vector_score": None})
        coverage = evidence.assess_passage(concepts, sentence_hit).coverage
        rows[i] = (best[i], best[i] - top, doc_best, doc_best - max(others) if others else 1.0, pair_best[i],
                   np.nan if passage_cos is None else best[i] - passage_cos, states_asked, stating, coverage,
                   len(sents), kind_best[i])
    return rows


def cpu_per_question(records: Sequence[Any], embedder: Embedder, top: int) -> dict[str, float]:
    """CPU milliseconds per question of the sentence features for the top `top` candidates: cold (every sentence
    embedded; the question's vector is cached, as search embeds it first) and warm (every vector cached: a
    knowledge base's passages read before)."""
    import time

    cold: list[float] = []
    warm: list[float] = []
    cache = VectorCache(embedder)
    for record in records:
        hits = record.hits[:top]
        fresh = VectorCache(embedder)
        fresh.vectors([expand_query(record.judged_text)])
        started = time.process_time()
        sentence_features(record.judged_text, hits, fresh, pairs=False)
        cold.append(time.process_time() - started)
        sentence_features(record.judged_text, hits, cache, pairs=False)
        started = time.process_time()
        sentence_features(record.judged_text, hits, cache, pairs=False)
        warm.append(time.process_time() - started)
    return {"top": top, "questions": len(records), "cold_mean_ms": round(1000 * float(np.mean(cold)), 1),
            "cold_p95_ms": round(1000 * float(np.percentile(cold, 95)), 1),
            "warm_mean_ms": round(1000 * float(np.mean(warm)), 1),
            "warm_p95_ms": round(1000 * float(np.percentile(warm, 95)), 1)}


def main(argv: list[str] | None = None) -> int:
    """`python -m voiceassist_local.evaluation.gate_sentences RECORDS.pkl`: the CPU the features add per question."""
    import argparse
    import json

    from voiceassist.adapters.onnx.embedder import OnnxEmbedder
    from voiceassist_local.evaluation.gate_data import load

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("records", type=Path, help="gate_data records")
    parser.add_argument("--questions", type=int, default=60, help="the first this many judged questions")
    parser.add_argument("--top", type=int, nargs="*", default=[3, 5, 10])
    args = parser.parse_args(argv)
    records = [r for r in load(args.records) if r.judged][:args.questions]
    embedder = OnnxEmbedder()
    embedder.embed(["the encoder loaded before timing"])
    for top in args.top:
        print(json.dumps(cpu_per_question(records, embedder, top)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
