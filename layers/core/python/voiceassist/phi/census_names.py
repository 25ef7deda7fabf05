"""The US Census 1990 name lists shipped in `_data/phi` (given names and the most frequent surnames, lower case):
one loader for every reader (the name recognizers' files are read by the Presidio adapter at engine build)."""

from __future__ import annotations

from functools import lru_cache

from voiceassist.settings import PACKAGE_DIR

PHI_DATA = PACKAGE_DIR / "_data" / "phi"


@lru_cache(maxsize=1)
def name_words() -> frozenset[str]:
    """Every given name and surname of the lists, lower case."""
    names: set[str] = set()
    for file in ("given_names.txt", "surnames.txt"):
        lines = (PHI_DATA / file).read_text(encoding="utf-8").splitlines()
        names.update(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))
    return frozenset(names)
