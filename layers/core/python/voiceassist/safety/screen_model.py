"""A logistic regression per screen category over hashed word unigrams, bigrams and the words' character
4-grams (the hashing trick: Weinberger K et al., "Feature Hashing for Large Scale Multitask Learning", ICML 2009).

Features are binary and scaled by 1/sqrt(number of features), so a 2,000-word jailbreak and a 10-word
question score on one scale. The weights (only the non-zero buckets) and each category's threshold are
shipped in `_data/safety/input_screen.npz`, written by bench/input_screen_train.py; no text is stored.
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


def features(text: str, kinds: tuple[str, ...] | None = None) -> list[int]:
    """The hashed buckets of the text's lower-cased content words, word pairs and, if asked, their character
    4-grams (each bucket once)."""
    kinds = FEATURE_KINDS if kinds is None else kinds
    words = [word for word in _WORD.findall(text.lower()) if word not in STOP_WORDS]
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

    def probability(self, buckets: list[int]) -> float:
        if not buckets:
            return 1 / (1 + math.exp(-self.bias))
        scale = 1 / math.sqrt(len(buckets))
        z = self.bias + scale * sum(self.weights.get(b, 0.0) for b in buckets)
        return 1 / (1 + math.exp(-max(min(z, 50.0), -50.0)))


@dataclass(frozen=True)
class ScreenModel:
    categories: dict[str, CategoryModel]
    kinds: tuple[str, ...] = ("words", "pairs")  # the features it was fitted on

    def probabilities(self, text: str) -> dict[str, float]:
        buckets = features(text, self.kinds)
        return {name: model.probability(buckets) for name, model in self.categories.items()}

    def flagged(self, text: str) -> list[str]:
        return [name for name, p in self.probabilities(text).items() if p >= self.categories[name].threshold]


def load_model(path: Path = MODEL_PATH) -> ScreenModel:
    with np.load(path) as data:
        names = [str(name) for name in data["categories"]]
        kinds = tuple(str(kind) for kind in data["kinds"]) if "kinds" in data.files else ("words", "pairs")
        models = {}
        for name in names:
            index, values = data[f"{name}_index"], data[f"{name}_weight"]
            models[name] = CategoryModel(weights=dict(zip(index.tolist(), values.astype(float).tolist(), strict=True)),
                                         bias=float(data[f"{name}_bias"]), threshold=float(data[f"{name}_threshold"]))
    return ScreenModel(categories=models, kinds=kinds)


def save_model(model: ScreenModel, path: Path = MODEL_PATH) -> None:
    arrays: dict[str, np.ndarray] = {"categories": np.array(sorted(model.categories)), "kinds": np.array(model.kinds)}
    for name, category in model.categories.items():
        index = sorted(category.weights)
        arrays[f"{name}_index"] = np.array(index, dtype=np.int32)
        arrays[f"{name}_weight"] = np.array([category.weights[i] for i in index], dtype=np.float32)
        arrays[f"{name}_bias"] = np.array(category.bias)
        arrays[f"{name}_threshold"] = np.array(category.threshold)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]
