"""Who a question is about, and who the evidence is about: age groups, pregnancy, breastfeeding, renal and
hepatic impairment.

The groups and their names are MeSH's (the Medical Subject Headings' age groups, with their entry terms:
"Infant, Newborn" birth to 1 month, "Infant" 1 to 23 months, "Child" 2 to 12 years, "Adolescent" 13 to 18,
"Adult" 19 to 64, "Aged" 65 and over; "Pregnancy", "Breast Feeding", "Renal Insufficiency", "Hepatic
Insufficiency"); an age typed as a number ("a 4 year old", "8 yo") falls in its group by those bounds.

A question about a special group (a neonate, an infant, a child, an adolescent, a pregnancy, a breastfeeding
mother, renal or hepatic impairment) is answered only from evidence that names that group: the passage, its
section or its document's title. Evidence that does not is for another population (a guideline "in Adults",
a dose for "most adults", or a reference silent on children), and the answer says so first
(`AnswerStatus.ANSWERED_OTHER_POPULATION`, query/abstention.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

NEONATE, INFANT, CHILD, ADOLESCENT, ADULT, OLDER_ADULT = (
    "neonates", "infants", "children", "adolescents", "adults", "older adults")
PREGNANCY, BREASTFEEDING, RENAL, HEPATIC = (
    "pregnancy", "breastfeeding", "renal impairment", "hepatic impairment")

# MeSH entry terms of each group, as written in questions and references (plurals and British spellings).
TERMS: dict[str, tuple[str, ...]] = {
    NEONATE: ("neonate", "neonatal", "newborn", "infant, newborn", "preterm"),
    INFANT: ("infant", "baby", "babies"),
    CHILD: ("child", "children", "kid", "kids", "pediatric", "paediatric", "peds", "paeds", "toddler",
            "schoolchild", "preschool"),
    ADOLESCENT: ("adolescent", "adolescence", "teenager", "teen", "teens", "youth"),
    ADULT: ("adult", "adults"),
    OLDER_ADULT: ("elderly", "older adult", "older adults", "older people", "older patients", "geriatric", "aged"),
    PREGNANCY: ("pregnancy", "pregnant", "antenatal", "prenatal", "gestation", "gestational", "trimester"),
    BREASTFEEDING: ("breastfeeding", "breast-feeding", "breast feeding", "lactation", "lactating",
                    "nursing mother"),
    RENAL: ("renal impairment", "renal insufficiency", "renal failure", "kidney disease", "chronic kidney disease",
            "ckd", "egfr", "dialysis", "creatinine clearance", "renal function", "kidney function"),
    HEPATIC: ("hepatic impairment", "hepatic insufficiency", "liver disease", "liver failure", "cirrhosis",
              "hepatic function", "liver function"),
}
SPECIAL = (NEONATE, INFANT, CHILD, ADOLESCENT, PREGNANCY, BREASTFEEDING, RENAL, HEPATIC)
# Evidence about a wider group covers a narrower one: "children" in a reference covers an adolescent or an
# infant (MeSH "Child" is the paediatric heading's usual reading), not a neonate.
COVERED_BY: dict[str, frozenset[str]] = {
    NEONATE: frozenset({NEONATE}), INFANT: frozenset({INFANT, CHILD}), CHILD: frozenset({CHILD}),
    ADOLESCENT: frozenset({ADOLESCENT, CHILD}), PREGNANCY: frozenset({PREGNANCY}),
    BREASTFEEDING: frozenset({BREASTFEEDING}), RENAL: frozenset({RENAL}), HEPATIC: frozenset({HEPATIC}),
}
_AGE = re.compile(r"\b(\d{1,3})[\s-]*(?:(yo|y/o|(?:years?|yrs?|y)[\s-]*(?:old|of age))|(months?|mo)[\s-]*old|"
                  r"(weeks?|days?)[\s-]*old)(?![\w/])", re.I)
_AGED = re.compile(r"\baged?\s+(\d{1,3})\b", re.I)


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    forms = sorted({form for forms in TERMS.values() for form in forms}, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in forms) + r")(?![\w-])", re.I)


@lru_cache(maxsize=1)
def _group_of() -> dict[str, str]:
    return {form: group for group, forms in TERMS.items() for form in forms}


def _age_group(years: float) -> str:
    if years < 1 / 12:
        return NEONATE
    if years < 2:
        return INFANT
    if years < 13:
        return CHILD
    if years < 19:
        return ADOLESCENT
    return ADULT if years < 65 else OLDER_ADULT


@lru_cache(maxsize=65536)
def groups(text: str) -> frozenset[str]:
    """The population groups `text` names, by a MeSH term or by an age."""
    found = {_group_of()[m.group(1).lower()] for m in _pattern().finditer(text)}
    for match in _AGE.finditer(text):
        number = int(match.group(1))
        years = number if match.group(2) else number / 12 if match.group(3) else number / 365 if match.group(
            4) and match.group(4).lower().startswith("d") else number / 52
        found.add(_age_group(years))
    found |= {_age_group(int(m.group(1))) for m in _AGED.finditer(text)}
    return frozenset(found)


def asked(question: str) -> frozenset[str]:
    """The special groups a question is about ("a 4 year old" -> children; "adults" is no special group)."""
    return groups(question) & frozenset(SPECIAL)


def uncovered(question: str, evidence_texts: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(the question's special groups no evidence text names, the groups the evidence names instead)."""
    named = frozenset().union(*(groups(text) for text in evidence_texts))
    missing = frozenset(g for g in asked(question) if not COVERED_BY[g] & named)
    return missing, named - asked(question)
