"""The dosing facts a sentence states (amounts with their units, frequencies, routes), normalised so that an
answer and its excerpt can be compared: "0.5 g" is "500 mg", "every 12 hours" is "twice daily", "PO" is "oral".

The grounding check (query/grounding.py) requires every fact of a sentence to be in the excerpt it cites:
"5 g" where the excerpt says "500 mg", or "four times daily" where it says "twice daily", is unsupported
even when the sentence's words and bare numbers are all there. Units, frequency abbreviations and routes are
those of the ISMP list of error-prone abbreviations and the BNF's "Abbreviations and symbols" (2024).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# unit -> (kind, factor to the kind's base unit); masses in mg, volumes in mL
_UNITS: dict[str, tuple[str, float]] = {
    "mg": ("mass", 1.0), "milligram": ("mass", 1.0), "milligrams": ("mass", 1.0),
    "g": ("mass", 1000.0), "gram": ("mass", 1000.0), "grams": ("mass", 1000.0),
    "mcg": ("mass", 0.001), "µg": ("mass", 0.001), "μg": ("mass", 0.001), "ug": ("mass", 0.001),
    "microgram": ("mass", 0.001), "micrograms": ("mass", 0.001), "ng": ("mass", 1e-6),
    "ml": ("volume", 1.0), "millilitre": ("volume", 1.0), "millilitres": ("volume", 1.0), "l": ("volume", 1000.0),
    "litre": ("volume", 1000.0), "litres": ("volume", 1000.0),
    "unit": ("units", 1.0), "units": ("units", 1.0), "iu": ("units", 1.0),
    "mmol": ("mmol", 1.0), "meq": ("mmol", 1.0),
    "mg/kg": ("mass/kg", 1.0), "g/kg": ("mass/kg", 1000.0), "mcg/kg": ("mass/kg", 0.001),
    "µg/kg": ("mass/kg", 0.001), "micrograms/kg": ("mass/kg", 0.001), "units/kg": ("units/kg", 1.0),
}
_UNIT_PATTERN = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
# what an amount is per ("2 g/day", "18 units/kg/h", "10 mL per hour"): part of its quantity, so "2 g/day" is not
# "2 mg/day" and "10 mL/h" is not "10 mL/kg/h"
_PER_UNITS = {"kg": "kg", "m2": "m2", "m²": "m2", "day": "day", "d": "day", "24h": "day", "24 h": "day",
              "24 hours": "day", "hour": "h", "hr": "h", "h": "h", "min": "min", "minute": "min", "dose": "dose",
              "week": "week"}
_PER_PATTERN = "|".join(sorted((re.escape(u) for u in _PER_UNITS), key=len, reverse=True))
_PER_WORD = r"(?:\s*/\s*|\s+(?:per|a|an|each|every)\s+)"  # "2 g/day", "2 g per day", "2 g a day"
_PER = re.compile(rf"{_PER_WORD}({_PER_PATTERN})(?![\w²])", re.I)
_AMOUNT = re.compile(rf"(?<![\w.])(\d+(?:[.,]\d+)?)\s*({_UNIT_PATTERN})((?:{_PER_WORD}(?:{_PER_PATTERN})(?![\w²]))*)"
                     rf"(?![\w/])", re.I)

_TIMES = {"once": 1, "twice": 2, "three times": 3, "thrice": 3, "four times": 4, "five times": 5, "six times": 6}
_PER_DAY = re.compile(r"\b(once|twice|thrice|three times|four times|five times|six times|[1-6] times)\s+"
                      r"(?:a |per |each )?(daily|day|a day)\b", re.I)
_ABBREVIATED = {"od": 1.0, "qd": 1.0, "bd": 2.0, "bid": 2.0, "tds": 3.0, "tid": 3.0, "qds": 4.0, "qid": 4.0}
_ABBREVIATION = re.compile(r"\b(OD|QD|BD|BID|TDS|TID|QDS|QID|od|bd|bid|tds|tid|qds|qid)\b")
_EVERY_HOURS = re.compile(r"\bevery\s+(\d+(?:\.\d+)?)\s*(?:hours?|hrs?|h)\b|\bq\s?(\d{1,2})\s?h\b"
                          r"|(?<![\w.])(\d{1,2})\s?-?\s?hourly\b", re.I)
_WEEKLY = re.compile(r"\b(?:(once|twice|thrice|three times|four times|[1-6] times)\s+)?(weekly|a week|per week"
                     r"|every week)\b", re.I)
_DAILY = re.compile(r"\b(once daily|once a day|daily|each day|every day)\b", re.I)

# abbreviations are upper case only ("IV", "IM", "SC", "PO": "im" and "po" are words too); "PR" is left out
# (the ECG's PR interval)
_ROUTES: dict[str, re.Pattern[str]] = {
    "oral": re.compile(r"\b(?i:oral|orally|by mouth)\b|\bPO\b"),
    "intravenous": re.compile(r"\b(?i:intravenous|intravenously)\b|\bIV\b"),
    "intramuscular": re.compile(r"\b(?i:intramuscular|intramuscularly)\b|\bIM\b"),
    "subcutaneous": re.compile(r"\b(?i:subcutaneous|subcutaneously|subcut)\b|\bSC\b|\bSQ\b"),
    "inhaled": re.compile(r"\b(?i:inhaled|inhalation|nebuli[sz]ed)\b"),
    "rectal": re.compile(r"\b(?i:rectal|rectally|per rectum)\b"),
    "sublingual": re.compile(r"\b(?i:sublingual|sublingually)\b|\bSL\b"),
    "topical": re.compile(r"\b(?i:topical|topically)\b"),
}


@dataclass(frozen=True, order=True)
class DoseFact:
    kind: str  # "amount:<quantity>", "frequency" or "route"
    value: float | str
    shown: str  # as the sentence wrote it

    @property
    def key(self) -> tuple[str, float | str]:
        return self.kind, round(self.value, 6) if isinstance(self.value, float) else self.value


def _number(text: str) -> float:
    return float(text.replace(",", "")) if text.count(",") and len(text.split(",")[-1]) == 3 else float(
        text.replace(",", "."))


def dose_facts(text: str, *, given: frozenset[str] = frozenset()) -> set[DoseFact]:
    """The amounts (in base units), daily frequencies and routes `text` states; amounts whose number the
    question itself gave (`given`: the patient's weight, the dose the clinician is on) are left out."""
    facts: set[DoseFact] = set()
    for match in _AMOUNT.finditer(text):
        number, unit = match.group(1), match.group(2).lower()
        if number.replace(",", "") in given:
            continue
        kind, factor = _UNITS[unit]
        per = "".join(f"/{_PER_UNITS[p.lower()]}" for p in _PER.findall(match.group(3)))
        facts.add(DoseFact(f"amount:{kind}{per}", _number(number) * factor, match.group().strip()))
    for match in _PER_DAY.finditer(text):
        word = match.group(1).lower()
        count = _TIMES.get(word) or int(word.split()[0])
        facts.add(DoseFact("frequency", float(count), match.group()))
    for match in _ABBREVIATION.finditer(text):
        facts.add(DoseFact("frequency", _ABBREVIATED[match.group().lower()], match.group()))
    for match in _EVERY_HOURS.finditer(text):
        hours = float(match.group(1) or match.group(2) or match.group(3))
        if hours > 0:
            facts.add(DoseFact("frequency", 24 / hours, match.group()))
    for match in _WEEKLY.finditer(text):
        word = (match.group(1) or "once").lower()
        facts.add(DoseFact("frequency", (_TIMES.get(word) or int(word.split()[0])) / 7, match.group()))
    frequency_spans = [m.span() for p in (_PER_DAY, _EVERY_HOURS, _WEEKLY) for m in p.finditer(text)]
    for match in _DAILY.finditer(text):
        if not any(start <= match.start() < end for start, end in frequency_spans):
            facts.add(DoseFact("frequency", 1.0, match.group()))
    for route, pattern in _ROUTES.items():
        found = pattern.search(text)
        if found:
            facts.add(DoseFact("route", route, found.group()))
    return facts


def missing_facts(sentence: set[DoseFact], excerpt: set[DoseFact]) -> list[DoseFact]:
    """The sentence's facts the excerpt does not state. An amount in another unit of the same quantity counts
    (0.5 g is 500 mg), as does the excerpt's amount with more said about it ("2,000 mg" where it has "2,000 mg
    per day"), and a daily amount written "2 g daily" for "2 g/day", either way round; an amount the sentence
    says is per something must be per the same ("2 g/day" is not "2 g/dose", "10 mL/h" is not "10 mL/kg/h")."""
    known = {fact.key for fact in excerpt}
    if ("frequency", 1.0) in known:  # "2 g daily": 2 g a day
        known |= {(f"{kind}/day", value) for kind, value in list(known) if kind.startswith("amount:")}
    amounts = [(kind, value) for kind, value in known if kind.startswith("amount:")]

    def stated(key: tuple[str, float | str]) -> bool:
        kind, value = key
        return key in known or (kind.startswith("amount:") and any(
            other.startswith(f"{kind}/") and value == amount for other, amount in amounts))

    said_daily = ("frequency", 1.0) in {fact.key for fact in sentence}
    if said_daily and any((f"{fact.kind}/day", fact.key[1]) in known for fact in sentence):
        known.add(("frequency", 1.0))  # "2 g daily" where the excerpt has "2 g/day"
    return sorted(fact for fact in sentence if not stated(fact.key))
