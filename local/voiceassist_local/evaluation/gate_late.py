"""Late interaction (ColBERT-style MaxSim) with the shipped encoder's token vectors, for the answer gate's measurement
(issue 24: does a term-by-term alignment of the question to a sentence separate the paraphrased covered questions
the gate refuses from the near-topic uncovered ones it answers, where the pooled sentence cosine did not?).

The shipped all-MiniLM-L6-v2 (ONNX int8, OnnxEmbedder) returns one contextual vector per word piece before its mean
pooling. The question as search embeds it (expand_query) and each sentence of a candidate under its document title
(gate_sentences.units) are run through the encoder once; every content word of the question (a word that is no
terms.STOPWORDS word, no ordinary English word of terminology.ordinary_words and no spaCy stop word) is aligned to
its closest word piece of the sentence (the cosine of its pieces' mean vector to each piece of the sentence;
Khattab and Zaharia, "ColBERT", SIGIR 2020, score a passage by the sum over query tokens of the maximum similarity).
Per candidate:

- late_mean: the best sentence's mean alignment over the question's content words (ColBERT's MaxSim, averaged);
- late_min: that sentence's weakest aligned content word (a term the sentence says nothing about: "home" against
  a clinic threshold, "infusion" against an IM dose);
- late_min_passage: each content word's best alignment over all the passage's sentences, the weakest of them;
- late_mean_passage: the same, averaged;
- late_idf_mean: late_mean with each word weighted by its number of word pieces (a rare word splits into more).

Measurement only: nothing ships. `python -m voiceassist_local.evaluation.gate_late D.pkl N.pkl --feature late_min`
prints the hard cases' separation (gate_rule.hard_case_auc) and a rescue rule chosen leaving each writer out
(gate_rule.cross_validate), as the session-9 sentence features were measured.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.models import SearchHit
from voiceassist.phi.word_lists import stop_words
from voiceassist.query import terminology, terms
from voiceassist.query.expansion import expand_query
from voiceassist_local.evaluation.gate_sentences import units

LATE_FEATURES = ("late_mean", "late_min", "late_min_passage", "late_mean_passage", "late_idf_mean")
_PUNCT = re.compile(r"^\W+$")


def _ordinary(word: str) -> bool:
    return word in terminology.ordinary_words() or word in stop_words().get("en", frozenset())


class TokenVectors:
    """Each text's word-piece vectors (unit length, [CLS]/[SEP] and punctuation dropped) and, per piece, the index of
    its word; computed once per text with the embedder's own tokenizer and ONNX session."""

    def __init__(self, embedder: Any, keep: int = 6000) -> None:
        self._embedder = embedder
        self._known: OrderedDict[bytes, tuple[np.ndarray, np.ndarray, list[str], np.ndarray]] = OrderedDict()
        self._keep = keep  # texts kept (float16), the least recently read dropped first
        self.encoded = 0

    def __call__(self, text: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
        return self.read(text)[:3]

    def pooled(self, text: str) -> np.ndarray:
        """The text's sentence vector (the embedder's mean pooling over every piece, unit length)."""
        return self.read(text)[3]

    def read(self, text: str) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if (known := self._known.get(key)) is not None:
            self._known.move_to_end(key)
            return known
        tokenizer = self._embedder._loaded_tokenizer()  # measurement only: the adapter's own tokenizer and session
        session = self._embedder._loaded_session()
        encoding = tokenizer.encode(text, add_special_tokens=False)
        limit = self._embedder.max_tokens
        ids = [tokenizer.token_to_id("[CLS]"), *encoding.ids[:limit], tokenizer.token_to_id("[SEP]")]
        array = np.array([ids], dtype=np.int64)
        full = session.run(None, {"input_ids": array, "attention_mask": np.ones_like(array)})[0][0]
        pooled = full.mean(axis=0)
        pooled = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)
        out = full[1:-1]
        pieces = encoding.tokens[:limit]
        word_ids = [w if w is not None else -1 for w in encoding.word_ids[:limit]]
        keep = [i for i, p in enumerate(pieces) if not _PUNCT.match(p)]
        vectors = out[keep].astype(np.float32)
        vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        words = [word_ids[i] for i in keep]
        spans = encoding.offsets[:limit]
        texts = [text[spans[i][0]:spans[i][1]] for i in keep]
        result = (vectors.astype(np.float16), np.array(words, dtype=np.int64), texts, pooled)
        self._known[key] = result
        while len(self._known) > self._keep:
            self._known.popitem(last=False)
        self.encoded += 1
        return result


def question_words(text: str, tokens: TokenVectors) -> tuple[np.ndarray, np.ndarray]:
    """The question's content words as vectors (each its pieces' mean, unit length) and their weights (pieces)."""
    vectors, words, pieces = tokens(text)
    out: list[np.ndarray] = []
    weights: list[float] = []
    for word in dict.fromkeys(words.tolist()):
        picked = np.where(words == word)[0]
        surface = "".join(pieces[i] for i in picked).casefold()
        if word < 0 or len(surface) < 2 or surface in terms.STOPWORDS or _ordinary(surface):
            continue
        mean = vectors[picked].astype(np.float32).mean(axis=0)
        out.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
        weights.append(float(len(picked)))
    if not out:
        return np.zeros((0, vectors.shape[1] if len(vectors) else 384), np.float32), np.zeros(0)
    return np.stack(out), np.array(weights)


def late_features(question: str, hits: Sequence[SearchHit], tokens: TokenVectors) -> np.ndarray:
    rows = np.full((len(hits), len(LATE_FEATURES)), np.nan)
    asked, weights = question_words(expand_query(question), tokens)
    if not len(asked):
        return rows
    for i, hit in enumerate(hits):
        aligned = []
        for sentence in units(hit.chunk.text):
            vectors, _, _ = tokens(f"{hit.chunk.metadata.title}: {sentence}")
            if len(vectors):
                aligned.append((asked @ vectors.T.astype(np.float32)).max(axis=1))
        if not aligned:
            continue
        table = np.stack(aligned)  # sentences x question words
        means = table.mean(axis=1)
        best = int(means.argmax())
        per_word = table.max(axis=0)
        rows[i] = (means[best], table[best].min(), per_word.min(), per_word.mean(),
                   float((table[best] * weights).sum() / weights.sum()))
    return rows


def examples(records: Sequence[Any], corpus: str, tokens: TokenVectors, feature: str) -> list[Any]:
    """gate_training examples (both views) with the hand features and one late-interaction column after them."""
    from voiceassist_local.evaluation import gate_training as gt

    column = LATE_FEATURES.index(feature)
    base = gt.examples_of(records, corpus)
    cache: dict[int, np.ndarray] = {}
    for example in base:
        record = example.record
        if id(record) not in cache:
            cache[id(record)] = (late_features(record.judged_text, record.hits, tokens) if record.judged
                                 else np.zeros((0, len(LATE_FEATURES))))
        extra = cache[id(record)][:, [column]]
        width = example.rows.shape[1] + 1
        example.rows = np.hstack([example.rows, extra]) if len(example.rows) else np.zeros((0, width))
    return base


def main(argv: list[str] | None = None) -> int:
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder
    from voiceassist_local.evaluation import gate_rule
    from voiceassist_local.evaluation import gate_training as gt
    from voiceassist_local.evaluation.gate_data import load

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", type=Path)
    parser.add_argument("nfcorpus", type=Path, nargs="?")
    parser.add_argument("--feature", nargs="+", default=list(LATE_FEATURES), choices=LATE_FEATURES)
    parser.add_argument("--no-rule", action="store_true", help="only the hard cases' separation")
    args = parser.parse_args(argv)
    tokens = TokenVectors(OnnxEmbedder())
    corpora = [("samples", load(args.samples))] + ([("nfcorpus", load(args.nfcorpus))] if args.nfcorpus else [])
    column = len(gt.FEATURES)
    for feature in args.feature:
        gt.COLUMNS[:] = [*gt.FEATURES, feature]
        found = [e for name, records in corpora for e in examples(records, name, tokens, feature)]
        separation = {name: gate_rule.hard_case_auc([e for e in found if e.corpus == name], column)
                      for name, _ in corpora}
        report: dict[str, Any] = {"feature": feature, "hard_cases": separation}
        if not args.no_rule:
            report.update(gate_rule.cross_validate(found, column))
        print(json.dumps(report, indent=1), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
