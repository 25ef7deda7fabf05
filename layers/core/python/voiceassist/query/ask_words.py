"""The ask's words in the forms a reference writes them (decision 0024, session 20, ask20; read by
query/question_concepts.py): a question's term is also covered by

- the relational adjective of the noun asked ("kidney": "renal", "liver": "hepatic", "heart": "cardiac"; WordNet
  3.0's pertainym pointers to a clinical noun sense, `_data/concepts/pertainyms.tsv`, written by
  voiceassist_local.evaluation.pertainym_data). One way only: a reference writes the organ's formal adjective where a
  question types the noun ("kidney test": "renal function"); a question that types the adjective is in the
  reference's register already, and read the other way "renal dose adjustment" was covered by a comorbidity list's
  "kidney disease" (an uncovered question answered; decision 0024, ask20). An adjective the ask types of a
  condition ("not diabetic") names the patients asked about, as session 19 found, and stays itself;
- another name of the same dose form ("slow release", "SR", "prolonged-release": "extended-release"; the FDA's
  Data Standards Manual, the EDQM Standard Terms and USP <1151>, `_data/concepts/release_forms.tsv`);
- the same two words written as one hyphenated or closed compound ("high flow": "high-flow"; "needle stick":
  "needlestick"), and a hyphenated compound typed whole by its two words written apart ("high-flow": "high flow").

Each covers the concept as one of its alternatives would (all its terms needed; Concept.forms, read by
evidence.covers), never a new topic, and is no alternative of its own: alternatives tell concepts apart, and a
compound shared by two adjacent words ("stop metformin": "stop-metformin") would make them one (measured: two
covered questions of blind13_spoken lost before this).
"""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.query.terms import WORD, content_terms, hyphenate, stem
from voiceassist.settings import PACKAGE_DIR

PERTAINYMS_FILE = PACKAGE_DIR / "_data" / "concepts" / "pertainyms.tsv"
RELEASE_FORMS_FILE = PACKAGE_DIR / "_data" / "concepts" / "release_forms.tsv"
_SPACE = re.compile(r"[ \t]+")
MIN_PART = 3  # letters of each word of a compound: none of two letters ("ER", "IV") is a compound's part


def _rows(path: str) -> list[list[str]]:
    return [line.split("\t") for line in (PACKAGE_DIR / "_data" / "concepts" / path).read_text(encoding="utf-8")
            .splitlines() if line.strip() and not line.startswith("#")]


@lru_cache(maxsize=1)
def _equivalents() -> dict[str, frozenset[str]]:
    """term -> the terms that name the same thing (a noun's relational adjectives; every other release form)."""
    table: dict[str, set[str]] = {}
    for adjective, noun in _rows(PERTAINYMS_FILE.name):
        a, n = stem(adjective), stem(noun)
        if a != n:  # the noun asked, the adjective written: one way only (the module's doc)
            table.setdefault(n, set()).add(a)
    forms = {term for row in _rows(RELEASE_FORMS_FILE.name) for term in content_terms(row[0])}
    for form in forms:
        table.setdefault(form, set()).update(forms - {form})
    return {term: frozenset(others) for term, others in table.items()}


def equivalent_alternatives(alternative: frozenset[str]) -> tuple[frozenset[str], ...]:
    """`alternative` with one of its terms written as an equivalent ({"kidney", "diseas"}: {"renal", "diseas"})."""
    table = _equivalents()
    return tuple(alternative - {term} | {other}
                 for term in sorted(alternative) for other in sorted(table.get(term, ())))


def compound_alternatives(question: str) -> dict[str, tuple[frozenset[str], ...]]:
    """term -> its compound forms in `question`: two adjacent content words ("high flow") are also covered by their
    hyphenated and closed compound ("high-flow", "highflow"), each word's term by either; a hyphenated word typed
    ("high-flow") by its parts written apart ({"high", "flow"}) or closed ("highflow")."""
    found: dict[str, tuple[frozenset[str], ...]] = {}
    text = hyphenate(question).replace("\u2019", "'")
    spans = [(m.group(), m.start(), m.end()) for m in WORD.finditer(text)]
    words = [word.lower() for word, _, _ in spans]
    for word in words:
        parts = word.split("-")
        if len(parts) == 2 and all(parts) and "'" not in word and (terms := content_terms(word)) and len(terms) == 1:
            apart = frozenset(stem(p) for p in parts)
            found[next(iter(terms))] = (apart, frozenset({stem("".join(parts))}))
    for (first, _, end), (second, start, _) in zip(spans, spans[1:], strict=False):
        if "-" in first + second or "'" in first + second or not _SPACE.fullmatch(text[end:start]):
            continue  # only two words a space apart: "tablets (Glucophage" is no compound
        if len(first) < MIN_PART or len(second) < MIN_PART or not (first + second).isalpha() or any(
                len(w) > 1 and w.isupper() for w in (first, second)):
            continue  # "metformin ER", "DVT prophylaxis", "MAP2 reading": an initialism or a code is no compound's part
        first, second = first.lower(), second.lower()
        one, two = content_terms(first), content_terms(second)
        if len(one) != 1 or len(two) != 1:
            continue  # a function word on either side ("of flow") is no compound's part
        compounds = tuple(frozenset({term}) for term in (stem(f"{first}-{second}"), stem(first + second))
                          if len(term) > len(first) + 1)
        for term in (*one, *two):
            found[term] = (*found.get(term, ()), *compounds)
    return found
