"""One-edit spelling indexes of the clinical vocabulary: drug names and the clinical words (the abbreviation list's
meanings, the synonym groups, the population groups' entry terms) by their one-letter deletions. Read by the concept
layer (`concepts.py`: a misspelt drug or clinical word) and by the population reader (`population.py`: a misspelt
population word is never one edit from another clinical word), which the concept layer imports."""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.query import synonyms, terminology
from voiceassist.query.population_terms import TERMS

MIN_FUZZY = 7  # shorter words are too often one edit from another drug or an English word
_TOKEN = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")  # concepts' token


@lru_cache(maxsize=1)
def _deletions() -> dict[str, str]:
    """Every one-letter deletion of a one-word generic name of MIN_FUZZY letters or more -> that name."""
    index: dict[str, str] = {}
    for name in set(terminology.drug_names().values()):
        if len(name) >= MIN_FUZZY and name.isalpha():
            index.setdefault(name, name)
            for i in range(len(name)):
                index.setdefault(name[:i] + name[i + 1:], name)
    return index


def one_edit_drug(word: str) -> tuple[str, str] | None:
    """A drug name one edit from `word` (an English word too: concept_data lists those to leave alone)."""
    if len(word) < MIN_FUZZY or not word.isalpha():
        return None
    index = _deletions()
    for candidate in (word, *(word[:i] + word[i + 1:] for i in range(len(word)))):
        name = index.get(candidate)
        if name is not None:
            return "drug", terminology.drug_names()[name]
    return None


def clinical_words() -> frozenset[str]:
    """The words of the clinical vocabulary (see `_clinical_words`)."""
    return _clinical_words()


@lru_cache(maxsize=1)
def _clinical_words() -> frozenset[str]:
    """The words of the clinical vocabulary: the abbreviation list's meanings, the synonym groups and the
    population groups' MeSH entry terms ("hypertension", "anaphylaxis", "pneumonia", "gastrointestinal")."""
    texts = (*(m for meanings in terminology.abbreviations().values() for m in meanings),
             *(f for group in synonyms.GROUPS for f in group),
             *(f for forms in TERMS.values() for f in forms))
    return frozenset(w for text in texts for w in _TOKEN.findall(text.lower()) if w.isalpha())


@lru_cache(maxsize=1)
def word_deletions() -> dict[str, str]:
    """Every one-letter deletion of a clinical word of MIN_FUZZY letters or more -> that word ("" when two
    words share it: ambiguous)."""
    index: dict[str, str] = {}
    for word in _clinical_words():
        if len(word) < MIN_FUZZY:
            continue
        for key in {word, *(word[:i] + word[i + 1:] for i in range(len(word)))}:
            index[key] = word if index.get(key, word) == word else ""
    return index
