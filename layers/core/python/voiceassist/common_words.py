"""The English words Debian's SCOWL list never capitalises (`_data/phi/common_words.txt.gz`, one a line, "#"
comments; written by voiceassist_local.evaluation.common_words). Read by the metadata screen (a title's name made
only of common words is no name: ingest/name_vocabulary.py) and the input screen (a ROT13 reading counts only when
it reads as English: safety/decoding.py). And the closed class of words an English question opens with
(QUESTION_OPENINGS), read by the answer gate and the input screen."""

from __future__ import annotations

import gzip
from functools import lru_cache

from voiceassist.settings import PACKAGE_DIR

COMMON_WORDS_FILE = PACKAGE_DIR / "_data" / "phi" / "common_words.txt.gz"


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    with gzip.open(COMMON_WORDS_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


# The words an English question opens with: the wh-words, and the auxiliaries and modals a yes/no question puts first
# (Quirk R et al., A Comprehensive Grammar of the English Language, 1985, 11.2-11.4). Read by the answer gate (what a
# question asks: query/wording.py) and the input screen (a question that addresses no one: safety/asking.py).
QUESTION_OPENINGS = frozenset((  # noqa: SIM905 - a word list reads better as text
    "what which when where why who whom whose how is are was were am do does did can could should would will shall "
    "may might has have had").split())
