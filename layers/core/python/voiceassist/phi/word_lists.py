"""The word lists shipped in `_data/phi` (lower case, one word a line, `#` comments): one-word drug names
(made by voiceassist_local.evaluation.drug_words), the US Census 1990 given names and frequent surnames
(made by voiceassist_local.evaluation.census_names), spaCy's stop words of seven languages (made by
voiceassist_local.evaluation.stop_words) and its English contractions typed without the apostrophe (made by
voiceassist_local.evaluation.contractions), and the Latin names of organisms (genus and species, gzipped, from
WordNet 3.0 and the shipped abbreviation and MeSH lists: made by voiceassist_local.evaluation.organism_names). One
reader for the PHI recognizers, the metadata screen, the session facts and the evidence score; each list is read
once per process, when first asked for."""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from functools import lru_cache

from voiceassist.settings import PACKAGE_DIR

PHI_DATA = PACKAGE_DIR / "_data" / "phi"
DRUG_WORDS = "drug_words.txt"
GIVEN_NAMES = "given_names.txt"
SURNAMES = "surnames.txt"
STOP_WORDS = "stop_words.tsv"  # language code, a tab, a word
CONTRACTIONS = "contractions.txt"  # English contractions without the apostrophe ("dont", "theyve")
BINOMIALS = "binomials.txt.gz"  # a genus, a space, a species ("escherichia coli")
ENGLISH = "en"
# A text is read as written in another language when that language's stop-word list holds at least this many of
# its words, and more of them than the English list does ("¿Cuál es la dosis ...": cuál, es, la; no English one).
MIN_FOREIGN_STOP_WORDS = 2


@lru_cache(maxsize=8)
def word_list(name: str) -> frozenset[str]:
    """The words of one list (a missing file is an install error: it raises)."""
    lines = (PHI_DATA / name).read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=1)
def name_words() -> frozenset[str]:
    """Every given name and surname of the Census lists (the union of ~20,000 words took ~2 ms, and every PHI
    detection and every missing-topic check asked for it: built once per process)."""
    return word_list(GIVEN_NAMES) | word_list(SURNAMES)


@lru_cache(maxsize=1)
def abbreviated_binomials() -> frozenset[tuple[str, str]]:
    """Each organism's genus initial and species, as an abbreviated genus writes it: ("e", "coli") for "E. coli"."""
    with gzip.open(PHI_DATA / BINOMIALS, "rt", encoding="utf-8") as lines:
        pairs = (line.split() for line in lines if line.strip() and not line.startswith("#"))
        return frozenset((genus[0], species) for genus, species in pairs)


@lru_cache(maxsize=1)
def stop_words() -> dict[str, frozenset[str]]:
    """Each language's stop words, by language code."""
    by_language: dict[str, set[str]] = {}
    for line in (PHI_DATA / STOP_WORDS).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            language, word = line.split("\t")
            by_language.setdefault(language, set()).add(word)
    return {language: frozenset(words) for language, words in by_language.items()}


def foreign_function_words(words: Iterable[str]) -> frozenset[str]:
    """The stop words of the language `words` (lower case) are written in when it is not English: the list that
    holds the most of them, at least MIN_FOREIGN_STOP_WORDS and more than the English list (every list tied with
    it, together); nothing for an English text. English's own stop words are every reader's already."""
    listed = stop_words()
    return frozenset().union(*(listed[language] for language in foreign_languages(words)))


def foreign_languages(words: Iterable[str]) -> frozenset[str]:
    """The language codes of the stop-word lists `foreign_function_words` reads `words` by (none for English)."""
    counts: dict[str, int] = {}
    listed = stop_words()
    words = list(words)
    for language, stops in listed.items():
        counts[language] = sum(word in stops for word in words)
    foreign = {language: n for language, n in counts.items() if language != ENGLISH}
    best = max(foreign.values(), default=0)
    if best < MIN_FOREIGN_STOP_WORDS or best <= counts.get(ENGLISH, 0):
        return frozenset()
    return frozenset(language for language, n in foreign.items() if n == best)
