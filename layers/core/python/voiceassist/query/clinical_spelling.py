"""One-edit spelling indexes of the clinical vocabulary: drug names and the clinical words (the abbreviation list's
meanings, the synonym groups, the population groups' entry terms) by their one-letter deletions. Read by the concept
layer (`concepts.py`: a misspelt drug or clinical word) and by the population reader (`population.py`: a misspelt
population word is never one edit from another clinical word), which the concept layer imports."""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.common_words import common_words
from voiceassist.query import synonyms, terminology
from voiceassist.query.population_terms import TERMS
from voiceassist.settings import PACKAGE_DIR

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


# A drug's INN in another language by its ending ("adrenalina", "paracetamolo", "Adrenalin": WHO's INN lists and the
# national adaptations; each row attested by the drug dictionary: voiceassist_local.evaluation.inn_ending_data)
INN_ENDINGS_FILE = PACKAGE_DIR / "_data" / "concepts" / "inn_endings.tsv"
MIN_INN_STEM = 5  # the letters left before the ending: "-ina" on a short word ("mina", "china") is no INN


@lru_cache(maxsize=1)
def inn_endings() -> tuple[tuple[str, str], ...]:
    """(foreign ending, English ending), the longest foreign ending first."""
    rows = []
    for line in INN_ENDINGS_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            foreign, english = line.split("\t")[:2]
            rows.append((foreign, english))
    return tuple(sorted(rows, key=lambda row: -len(row[0])))


def inn_spelling(word: str) -> tuple[str, str] | None:
    """("drug", generic) when `word` is a drug's INN in another language whose English form the drug dictionary
    lists ("adrenalina" -> adrenaline -> epinephrine, "paracetamolo" -> paracetamol): the word is no drug name
    itself, no English word (wordfreq's, SCOWL's: "adrenalin" is English) and no word of the clinical vocabulary
    ("oncogene", not a foreign "oncogen"), its ending turns into the English one, and every such English form the
    dictionary lists is the same drug (else None: two drugs)."""
    if (len(word) < MIN_FUZZY or not word.isalpha() or word in terminology.english_words()
            or word in common_words() or word in _clinical_words()):
        return None
    names = terminology.drug_names()
    if word in names:
        return None
    found = set()
    for foreign, english in inn_endings():
        stem = word[:len(word) - len(foreign)]
        if word.endswith(foreign) and len(stem) >= MIN_INN_STEM and stem + english in names:
            found.add(names[stem + english])
    return ("drug", found.pop()) if len(found) == 1 else None


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
