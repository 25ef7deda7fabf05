"""Chronic kidney disease by its stage: KDIGO's GFR categories, so that a question about "CKD stage 4" or a
patient "on dialysis" meets a reference that states its advice as eGFR cut-offs ("contraindicated when eGFR is
below 30").

KDIGO 2012 Clinical Practice Guideline for the Evaluation and Management of Chronic Kidney Disease (Kidney Int
Suppl 2013;3:1-150), chapter 1: CKD is classified by GFR category, in mL/min/1.73 m2: G1 90 or more, G2 60-89,
G3a 45-59, G3b 30-44, G4 15-29, G5 under 15 (kidney failure; "G5D" when treated by dialysis). A decreased GFR
(under 60, G3a-G5) is by itself a criterion for CKD, so CKD named without a stage is G3a-G5 by function.

A passage that states a GFR or creatinine clearance value or range ("eGFR is below 30", "eGFR 30-45", "CrCl
under 15") holds a mark for every category the range reaches; a question's kidney condition is covered by a
passage holding a mark of its own categories (query/evidence.py). A passage that only says "check renal
function" states no value and holds none.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from voiceassist.query import population

MARK = "\u2295gfr:"
# (category, lowest GFR, highest GFR) in mL/min/1.73 m2
CATEGORIES = (("G1", 90.0, math.inf), ("G2", 60.0, 90.0), ("G3a", 45.0, 60.0), ("G3b", 30.0, 45.0),
              ("G4", 15.0, 30.0), ("G5", 0.0, 15.0))
BY_FUNCTION = ("G3a", "G3b", "G4", "G5")  # CKD without a stage: GFR under 60
_MEASURE = r"(?:e?gfr|glomerular filtration rate|creatinine clearance|crcl|clcr)"
_NUM = r"(\d+(?:\.\d+)?)"
_VALUE = re.compile(
    rf"\b{_MEASURE}\b(?:\s*\([^)]{{0,20}}\))?[^.;\d]{{0,30}}?"
    rf"(?:(?P<below>below|under|less than|lower than|<|≤|=<|<=|up to)\s*{_NUM}"
    rf"|(?P<above>above|over|greater than|more than|at least|>|≥|>=)\s*{_NUM}"
    rf"|(?:between\s*)?{_NUM}\s*(?:-|–|to|and)\s*{_NUM}"
    rf"|{_NUM})", re.I)
_STAGED = re.compile(r"\b(?:ckd|chronic kidney disease|kidney disease|renal disease)\s*(?:stage|g)?\s*([1-5])([ab])?\b"
                     r"|\bstage\s*([1-5])([ab])?\s*(?:ckd|chronic kidney disease|kidney disease|renal disease)\b"
                     r"|\bg([1-5])([ab])?\s*(?:ckd)?\b(?=.*\b(?:ckd|kidney|renal)\b)", re.I)
_FAILURE = re.compile(r"\b(?:h(?:a)?emodialysis|dialysis|esrd|esrf|end[- ]stage (?:renal|kidney)|kidney failure"
                      r"|renal failure)\b", re.I)
# the kidney condition is named as population.py names renal impairment (MeSH entry terms), less the tests of
# function ("eGFR", "renal function"): those name a measure, not the condition; "end-stage" or "end stage"
_CONDITION_FORMS = sorted({re.escape(term.replace("-", " ")).replace(r"\ ", "[- ]")
                           for term in set(population.TERMS[population.RENAL]) - population.MEASURES},
                          key=len, reverse=True)
_CONDITION = re.compile(r"\b(?:" + "|".join(_CONDITION_FORMS) + r")\b", re.I)


def _reached(low: float, high: float) -> frozenset[str]:
    """The categories a GFR range [low, high] reaches (a cut-off "below 30" reaches G4 and G5, not G3b)."""
    return frozenset(name for name, bottom, top in CATEGORIES if low < top and high >= bottom)


@lru_cache(maxsize=65536)
def marks(text: str) -> frozenset[str]:
    """The marks of the GFR categories that the values `text` states reach."""
    found: set[str] = set()
    for match in _VALUE.finditer(text):
        numbers = [float(n) for n in match.groups() if n is not None and re.fullmatch(r"[\d.]+", n)]
        if not numbers or max(numbers) > 200:  # not a GFR
            continue
        if match.group("below"):
            low, high = 0.0, numbers[0] - 1e-9
        elif match.group("above"):
            low, high = numbers[0], math.inf
        else:
            low, high = min(numbers), max(numbers)
        found |= {MARK + name for name in _reached(low, high)}
    return frozenset(found)


def names_condition(label: str) -> bool:
    """Whether a question's concept names the kidney condition ("CKD", "dialysis", "renal impairment")."""
    return bool(_CONDITION.search(label))


def asked(question: str) -> frozenset[str]:
    """The marks of the GFR categories the question's kidney condition is in: its stage, G5 for dialysis or
    kidney failure, else G3a-G5 (a decreased GFR); none when it names no kidney condition."""
    stages: set[str] = set()
    for match in _STAGED.finditer(question):
        number, half = next((match.group(i), match.group(i + 1)) for i in (1, 3, 5) if match.group(i))
        stages |= {f"G{number}{half.lower()}"} if half else {n for n, _, _ in CATEGORIES if n[1] == number}
    if _FAILURE.search(question):
        stages.add("G5")
    if not stages and _CONDITION.search(question):
        stages.update(BY_FUNCTION)
    return frozenset(MARK + name for name in stages)
