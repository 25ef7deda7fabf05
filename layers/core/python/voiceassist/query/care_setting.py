"""The setting of care a question asks a treatment for, and the setting a reference states it for.

"Which IV antibiotic for severe pneumonia in hospital?" asks a hospital regimen; a reference whose only antibiotic
passage is "Outpatient antibiotic treatment" ("For adults treated as outpatients ...") states the regimen for the
other setting, as a reference dosing a drug only intramuscularly states another route's dose (query/routes.py). The
two settings are MeSH's "Inpatients" (D007297: persons admitted to health facilities, with "Hospitalization" and
"Intensive Care Units") and "Outpatients" (D010043: persons receiving care without admission), written as the
synonym groups of query/synonyms.py write them ("admission", "hospital stay"; "outpatient", "at home"; "intensive
care", "ICU", "critical care"), with the inflections and the short forms the concept layer reads ("inpt", "outpt").
"Hospital" alone is not a setting: "acquired outside hospital" defines a pneumonia, "hospital-acquired" names
another one; "in hospital" and "hospital care" are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from voiceassist.query import wording

INPATIENT, OUTPATIENT = "inpatient", "outpatient"
_SETTINGS = {
    INPATIENT: re.compile(
        r"\b(?:in-?patients?|inpts?|in (?:the )?hospital|hospitali[sz](?:ed|ation)|hospital (?:care|stay)"
        r"|admi(?:t|ts|tted|tting|ssion)|intensive care|critical care|icu|itu|hdu)\b", re.I),
    OUTPATIENT: re.compile(
        r"\b(?:out-?patients?|outpts?|at home|home treatment|(?:go|goes|going|sent|send|discharged?) home)\b", re.I),
}


def stated(text: str) -> frozenset[str]:
    """The settings of care a text names."""
    return frozenset(name for name, pattern in _SETTINGS.items() if pattern.search(text))


def asked(question: str) -> str | None:
    """The one setting the question's asking clauses name (wording.asked_clauses; the whole question when it
    writes no separate case), letters said one by one read first ("I C U"); None for none or both ("admit or
    send home?")."""
    own = wording.joined_scores(question)
    clauses = wording.asked_clauses(own)
    named = stated(" ".join(clauses) if clauses else own)
    return next(iter(named)) if len(named) == 1 else None


def other_setting(setting: str, treatments: Sequence[Callable[[str], bool]], passages: Sequence[str]) -> bool:
    """Whether the passages (a document's, each with its heading) that name one of the asked treatments (a drug or a
    class, by any name or a member's) all state a setting of care, and only another than the asked one. A document
    naming the treatment without a setting says nothing of it."""
    naming = [p for p in passages if any(names(p) for names in treatments)]
    return bool(naming) and all(stated(p) and setting not in stated(p) for p in naming)
