"""A logistic regression per screen category over hashed word unigrams, bigrams and the words' character
4-grams (the hashing trick: Weinberger K et al., "Feature Hashing for Large Scale Multitask Learning", ICML 2009),
and, in the meaning model, the text's sentence vector beside them.

Features are binary and scaled by 1/sqrt(number of features), so a 2,000-word jailbreak and a 10-word
question score on one scale. The meaning model adds a dot product with the in-boundary embedder's unit-length
sentence vector (all-MiniLM-L6-v2), which reads what a text asks for in words it never saw ("help me
self-administer anesthesia to someone who does not know" shares no content word with a fitted attack). The
weights (only the non-zero buckets, and the vector's weights) and each category's threshold are shipped in
`_data/safety/input_screen.npz` (words only) and `input_screen_meaning.npz` (words and the sentence vector),
written by bench/input_screen_train.py; no text is stored.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voiceassist.settings import PACKAGE_DIR

BUCKETS = 1 << 18
MODEL_PATH = PACKAGE_DIR / "_data" / "safety" / "input_screen.npz"
MEANING_MODEL_PATH = MODEL_PATH.with_name("input_screen_meaning.npz")
_WORD = re.compile(r"[a-z0-9']+")
# Function words carry the form of a request ("how to", "can you help me"), which benign questions share with
# harmful ones; only content words and their pairs are features. The list is the closed class of English
# function words (articles, auxiliaries, pronouns, indefinite pronouns, prepositions, conjunctions, question
# words): "someone" is how a clinician says "a patient" ("metformin in someone with an eGFR of 25") as often as
# how an attack names a victim, whose harm its verb carries.
STOP_WORDS = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "it", "its", "is", "are", "was", "were", "be", "been",
    "being", "am", "do", "does", "did", "doing", "done", "have", "has", "had", "having", "can", "could", "will",
    "would", "shall", "should", "may", "might", "must", "i", "me", "my", "mine", "we", "us", "our", "you", "your",
    "yours", "he", "him", "his", "she", "her", "they", "them", "their", "what", "which", "who", "whom", "whose",
    "when", "where", "why", "how", "to", "of", "in", "on", "at", "by", "for", "with", "from", "into", "onto",
    "about", "as", "than", "then", "so", "if", "or", "and", "but", "not", "no", "nor", "too", "very", "just",
    "also", "any", "some", "all", "each", "both", "few", "more", "most", "other", "such", "own", "same", "there",
    "here", "up", "down", "out", "over", "under", "again", "further", "once", "only", "s", "t", "don't", "can't",
    "i'm", "i've", "you're", "it's", "let's", "please",
    "someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody", "something", "anything",
    "everything", "nothing", "one", "ones", "someone's", "somebody's", "anyone's", "everyone's"
})


# The kinds of feature a model reads (recorded in its file): "words" (content words), "pairs" (adjacent content
# words), "chars" (the character 4-grams of each content word, its ends marked: "poisoning" shares " poi",
# "pois", "oiso" with "poisoned", so a word form never seen in training still scores).
FEATURE_KINDS: tuple[str, ...] = ("words", "pairs")
CHAR_GRAM = 4


# The meaning model reads a text of at least this many content words; a shorter one ("Hello", "Summarise the
# guideline", "What can you do?") has a sentence vector that says what it is about more than what it asks, and is
# read by the words-only model. Chosen on the train split (bench/input_screen_train.py's out-of-fold scores): the
# largest floor at which the out-of-fold recall of each category's attacks falls by at most one attack.
MEANING_MIN_WORDS = 3


def content_words(text: str) -> list[str]:
    """The text's lower-cased words that are not function words (what the features are made of)."""
    return [word for word in _WORD.findall(text.lower()) if word not in STOP_WORDS]


def features(text: str, kinds: tuple[str, ...] | None = None) -> list[int]:
    """The hashed buckets of the text's lower-cased content words, word pairs and, if asked, their character
    4-grams (each bucket once)."""
    kinds = FEATURE_KINDS if kinds is None else kinds
    words = content_words(text)
    grams = words if "words" in kinds else []
    if "pairs" in kinds:
        grams = grams + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    if "chars" in kinds:
        for word in set(words):
            marked = f"<{word}>"
            grams += [f"#{marked[i:i + CHAR_GRAM]}" for i in range(max(1, len(marked) - CHAR_GRAM + 1))]
    return sorted({zlib.crc32(gram.encode()) % BUCKETS for gram in grams})


@dataclass(frozen=True)
class CategoryModel:
    weights: dict[int, float]
    bias: float
    threshold: float
    dense: np.ndarray | None = None  # the sentence vector's weights (the meaning model), else None

    def probability(self, buckets: list[int], vector: np.ndarray | None = None) -> float:
        z = self.bias
        if buckets:
            scale = 1 / math.sqrt(len(buckets))
            z = self.bias + scale * sum(self.weights.get(b, 0.0) for b in buckets)
        if self.dense is not None:
            if vector is None:
                raise ValueError("this screen model reads a sentence vector: pass the text's embedding")
            z += float(self.dense @ vector)
        return 1 / (1 + math.exp(-max(min(z, 50.0), -50.0)))


@dataclass(frozen=True)
class ScreenModel:
    categories: dict[str, CategoryModel]
    kinds: tuple[str, ...] = ("words", "pairs")  # the features it was fitted on
    embedding: str | None = None  # the embedder's model_id whose sentence vectors it reads (the meaning model)

    def probabilities(self, text: str, vector: np.ndarray | None = None) -> dict[str, float]:
        buckets = features(text, self.kinds)
        return {name: model.probability(buckets, vector) for name, model in self.categories.items()}

    def flagged(self, text: str, vector: np.ndarray | None = None) -> list[str]:
        return [name for name, p in self.probabilities(text, vector).items() if p >= self.categories[name].threshold]


def load_model(path: Path = MODEL_PATH) -> ScreenModel:
    with np.load(path) as data:
        names = [str(name) for name in data["categories"]]
        kinds = tuple(str(kind) for kind in data["kinds"]) if "kinds" in data.files else ("words", "pairs")
        embedding = str(data["embedding"]) if "embedding" in data.files else None
        models = {}
        for name in names:
            index, values = data[f"{name}_index"], data[f"{name}_weight"]
            dense = data[f"{name}_dense"].astype(np.float32) if f"{name}_dense" in data.files else None
            models[name] = CategoryModel(weights=dict(zip(index.tolist(), values.astype(float).tolist(), strict=True)),
                                         bias=float(data[f"{name}_bias"]), threshold=float(data[f"{name}_threshold"]),
                                         dense=dense)
    return ScreenModel(categories=models, kinds=kinds, embedding=embedding)


def save_model(model: ScreenModel, path: Path = MODEL_PATH) -> None:
    arrays: dict[str, np.ndarray] = {"categories": np.array(sorted(model.categories)), "kinds": np.array(model.kinds)}
    if model.embedding is not None:
        arrays["embedding"] = np.array(model.embedding)
    for name, category in model.categories.items():
        index = sorted(category.weights)
        arrays[f"{name}_index"] = np.array(index, dtype=np.int32)
        arrays[f"{name}_weight"] = np.array([category.weights[i] for i in index], dtype=np.float32)
        arrays[f"{name}_bias"] = np.array(category.bias)
        arrays[f"{name}_threshold"] = np.array(category.threshold)
        if category.dense is not None:
            arrays[f"{name}_dense"] = np.asarray(category.dense, dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]
