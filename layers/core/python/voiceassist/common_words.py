"""The English words Debian's SCOWL list never capitalises (`_data/phi/common_words.txt.gz`, one a line, "#"
comments; written by voiceassist_local.evaluation.common_words). Read by the metadata screen (a title's name made
only of common words is no name: ingest/name_vocabulary.py) and the input screen (a ROT13 reading counts only when
it reads as English: safety/decoding.py)."""

from __future__ import annotations

import gzip
from functools import lru_cache

from voiceassist.settings import PACKAGE_DIR

COMMON_WORDS_FILE = PACKAGE_DIR / "_data" / "phi" / "common_words.txt.gz"


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    with gzip.open(COMMON_WORDS_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))
