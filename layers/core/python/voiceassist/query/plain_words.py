"""English words that name no clinical thing in any sense ("kindly", "ladies", "seventies", "bumped", "abroad"):
every WordNet 3.0 sense of them lies in a lexicographer file of people, time, feelings, places, relations, motives,
possession or shapes, of verbs of motion, emotion, social life, telling, competition, owning, being or weather, or
of adverbs, and the concept layer's clinical vocabulary does not use them (`_data/concepts/plain_words.txt.gz`,
written by voiceassist_local.evaluation.plain_word_data; the source, its licence and the choice in
docs/decisions/0024-clinical-concepts.md, session 12). The evidence score weighs such a word as an ordinary word
(query/question_concepts.py): GENERIC_WEIGHT when a passage lacks it, fully when it holds it, never named as a
missing topic. A word WordNet does not know (an unknown brand) is never plain."""

from __future__ import annotations

import gzip
from functools import lru_cache

from voiceassist.settings import PACKAGE_DIR

PLAIN_FILE = PACKAGE_DIR / "_data" / "concepts" / "plain_words.txt.gz"


@lru_cache(maxsize=1)
def plain_words() -> frozenset[str]:
    """The words, lower case as listed (a missing file is an install error: it raises)."""
    with gzip.open(PLAIN_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def is_plain(word: str) -> bool:
    return word.lower() in plain_words()
