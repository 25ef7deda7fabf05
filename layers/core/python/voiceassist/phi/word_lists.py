"""The word lists shipped in `_data/phi` (lower case, one word a line, `#` comments): one-word drug names
(made by voiceassist_local.evaluation.drug_words) and the US Census 1990 given names and frequent surnames
(made by voiceassist_local.evaluation.census_names). One reader for the PHI recognizers, the metadata screen
and the session facts; each list is read once per process, when first asked for."""

from __future__ import annotations

from functools import lru_cache

from voiceassist.settings import PACKAGE_DIR

PHI_DATA = PACKAGE_DIR / "_data" / "phi"
DRUG_WORDS = "drug_words.txt"
GIVEN_NAMES = "given_names.txt"
SURNAMES = "surnames.txt"


@lru_cache(maxsize=4)
def word_list(name: str) -> frozenset[str]:
    """The words of one list (a missing file is an install error: it raises)."""
    lines = (PHI_DATA / name).read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def name_words() -> frozenset[str]:
    """Every given name and surname of the Census lists."""
    return word_list(GIVEN_NAMES) | word_list(SURNAMES)
