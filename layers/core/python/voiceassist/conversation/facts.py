"""Salient clinical facts of a session: age, sex, conditions, medications, allergies and key labs, by rule.

Read from a question as the user asked it (and from a session's clinical context), only through closed
vocabularies: an age beside "year-old", a lab value beside its lab's name, a drug of the drug word list after
"on", "taking" or "allergic to", a condition of the list below. No rule takes a free word, a bare number or a
date, and drug words that are also given names are left out, so a name, a record number or a date of birth
never becomes a fact, whether or not the PHI detector caught it (redaction placeholders are skipped too). Ages
over 89 become "over 89". The facts are still kept encrypted (conversation/memory.py): together they describe a
patient.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from voiceassist.conversation import context
from voiceassist.phi.word_lists import DRUG_WORDS, name_words, word_list

OVER_89 = "over 89"
AGE = re.compile(r"\b(\d{1,3})\s*(?:-|\s)?\s*(?:years?|yrs?|y)[- ]?(?:old|o\b)|\b(\d{1,3})\s*(?:yo|y/o|y\.o\.)(?!\w)"
                 r"|\baged?\s+(\d{1,3})\b|\b(\d{1,3})\s?([MF])\b(?![-/])", re.I)
AGE_PLACEHOLDER = re.compile(r"<AGE_OVER_89>")
FEMALE = re.compile(r"\b(woman|women|female|lady|girl|mrs|ms)\b|\b\d{1,3}\s?F\b", re.I)
MALE = re.compile(r"\b(man|men|male|gentleman|boy|mr)\b|\b\d{1,3}\s?M\b", re.I)
NEGATION = re.compile(r"\b(no|not|without|denies|denied|negative for|free of|ruled out|rule out)\b[\w\s,-]{0,30}$",
                      re.I)
NEGATION_SCOPE = re.compile(r"[.;]|\b(?:but|however|although|though|yet)\b", re.I)
CONDITIONS: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(pattern, re.I)) for name, pattern in [
    ("chronic kidney disease", r"\b(chronic kidney disease|ckd)\b(\s+stage\s+(\d[ab]?|[iv]+))?"),
    ("acute kidney injury", r"\b(acute kidney injury|aki)\b"),
    ("type 2 diabetes", r"\b(type\s*(2|ii)\s+diabetes|t2dm|diabetes mellitus type\s*(2|ii))\b"),
    ("type 1 diabetes", r"\b(type\s*(1|i)\s+diabetes|t1dm)\b"),
    ("diabetes", r"\bdiabet(es|ic)\b"),
    ("hypertension", r"\b(hypertension|hypertensive|htn|high blood pressure)\b"),
    ("heart failure", r"\b(heart failure|hfref|hfpef|chf)\b"),
    ("atrial fibrillation", r"\b(atrial fibrillation|a-?fib|af)\b"),
    ("coronary artery disease", r"\b(coronary artery disease|cad|ischaemic heart disease|ischemic heart disease)\b"),
    ("myocardial infarction", r"\b(myocardial infarction|heart attack|stemi|nstemi)\b"),
    ("stroke", r"\b(stroke|cva|tia)\b"),
    ("copd", r"\b(copd|chronic obstructive pulmonary disease)\b"),
    ("asthma", r"\basthma(tic)?\b"),
    ("pregnancy", r"\b(pregnant|pregnancy)\b(\s*,?\s*\d{1,2}\s+weeks)?"),
    ("breastfeeding", r"\b(breastfeeding|breast-feeding|lactating)\b"),
    ("liver cirrhosis", r"\b(cirrhosis|cirrhotic)\b"),
    ("liver disease", r"\b(liver disease|hepatic impairment)\b"),
    ("epilepsy", r"\b(epilepsy|seizure disorder)\b"),
    ("hypothyroidism", r"\bhypothyroid(ism)?\b"),
    ("hyperthyroidism", r"\bhyperthyroid(ism)?\b"),
    ("gout", r"\bgout\b"),
    ("depression", r"\b(depression|depressive disorder)\b"),
    ("dementia", r"\bdementia\b"),
    ("hiv", r"\bhiv\b"),
    ("obesity", r"\b(obesity|obese)\b"),
    ("osteoporosis", r"\bosteoporosis\b"),
    ("anaemia", r"\ban(a)?emi(a|c)\b"),
    ("cancer", r"\b(cancer|malignancy|carcinoma)\b"),
    ("community-acquired pneumonia", r"\bcommunity[- ]acquired pneumonia\b"),
    ("pneumonia", r"\bpneumonia\b"),
    ("urinary tract infection", r"\b(urinary tract infection|uti)\b"),
    ("cellulitis", r"\bcellulitis\b"),
    ("sepsis", r"\b(sepsis|septic)\b"),
    ("lyme disease", r"\blyme disease\b"),
    ("anaphylaxis", r"\banaphyla(xis|ctic)\b"),
]]
LAB = re.compile(r"\b(eGFR|GFR|CrCl|creatinine|HbA1c|A1c|potassium|sodium|INR|BMI|blood pressure|BP|QTc)\b"
                 r"(?:\s*(?:of|is|was|at|now|currently|down to|up to|=|:))*"
                 r"\s*(\d+(?:\.\d+)?(?:/\d+)?)\s*(%|mg/dL|µmol/L|umol/L|mmol/L|ms"
                 r"|mL/min(?:/1\.73\s?m2)?)?", re.I)
LAB_NAMES = {"gfr": "eGFR", "egfr": "eGFR", "crcl": "CrCl", "a1c": "HbA1c", "hba1c": "HbA1c", "bp": "blood pressure",
             "inr": "INR", "bmi": "BMI", "qtc": "QTc"}
TAKES = re.compile(r"\b(on|taking|takes|take|taken|takes|prescribed|receiving|receives|using|uses|started on"
                   r"|treated with|medications?|meds|current(?:ly)? on)\b:?", re.I)
ALLERGY_AFTER = re.compile(r"\b(allergic to|allergy to|allergies to|allergies|allergy|intolerant of|intolerance to"
                           r"|reaction to)\b:?", re.I)
ALLERGY_BEFORE = re.compile(r"\b([A-Za-z-]+)[- ](allergy|allergic|intolerance)\b", re.I)
NO_ALLERGIES = re.compile(r"\b(nkda|no known (drug )?allergies|no allergies)\b", re.I)
CLAUSE_END = re.compile(r"[.;?!]|\b(allerg\w*|with|who|has|have|had|but|because|and has|presents?|eGFR|creatinine"
                        r"|intoleran\w*)\b", re.I)
ALLERGY_CLASSES = context._vocabulary("""penicillin penicillins sulfa sulfonamide sulfonamides nsaid nsaids
cephalosporin
cephalosporins macrolide macrolides opioid opioids aspirin iodine contrast latex eggs egg peanut peanuts shellfish
tetracyclines fluoroquinolones quinolones codeine morphine""")
NONE_KNOWN = "none known"
# A turn states facts only when it speaks of a patient: "the dose of metformin in CKD?" is a question, not a fact.
PATIENT = re.compile(r"\b(my|our|this|the|a|your)\s+(patient|pt|client)\b|\b(he|she|his|her|him)\b|year-old"
                     r"|\b(yo|y/o)\b|<PERSON>|<AGE_OVER_89>|\b\d{1,3}\s?[MF]\b|\b(man|woman|boy|girl|gentleman|lady)\b"
                     r"|\b(mr|mrs|ms)\b|\bpatient (has|is|takes|with)\b", re.I)


@dataclass
class Facts:
    age: str | None = None
    sex: str | None = None
    conditions: list[str] = field(default_factory=list)
    medications: list[str] = field(default_factory=list)
    allergies: list[str] = field(default_factory=list)
    labs: dict[str, str] = field(default_factory=dict)  # the latest value of each

    def to_dict(self) -> dict[str, Any]:
        return {"age": self.age, "sex": self.sex, "conditions": list(self.conditions),
                "medications": list(self.medications), "allergies": list(self.allergies), "labs": dict(self.labs)}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Facts:
        data = data or {}
        return cls(age=data.get("age"), sex=data.get("sex"), conditions=list(data.get("conditions", [])),
                   medications=list(data.get("medications", [])), allergies=list(data.get("allergies", [])),
                   labs=dict(data.get("labs", {})))

    def __bool__(self) -> bool:
        return bool(self.age or self.sex or self.conditions or self.medications or self.allergies or self.labs)


@lru_cache(maxsize=1)
def _drug_vocabulary() -> frozenset[str]:
    drugs = word_list(DRUG_WORDS) | set(context.DRUG_WORDS)
    return frozenset(drugs - name_words())  # "allegra", "camila": a brand that is also a given name is no fact




def is_medication(word: str) -> bool:
    key = word.lower()
    return len(key) > 3 and key not in context.STOPWORDS and key in _drug_vocabulary()


def extract(text: str, *, about_patient: bool = False) -> Facts:
    """The facts one redacted turn states about a patient (a turn the detector could not check is stored as
    <WITHHELD>: nothing). `about_patient`: the text is about the patient whatever it says (a session's clinical
    context), so it needs no "my patient" or "she" to count."""
    clean = context.CITATION.sub(" ", text)
    if not about_patient and not PATIENT.search(clean):
        return Facts()
    allergies = _allergies(clean)
    return Facts(age=_age(clean), sex=_sex(clean), conditions=_conditions(clean),
                 medications=[m for m in _medications(clean) if m not in allergies], allergies=allergies,
                 labs=_labs(clean))


def of_turns(turns: Sequence[context.Turn]) -> Facts:
    """The facts of the user turns, oldest first (a later value wins)."""
    known = Facts()
    for turn in turns:
        if turn.role == "user":
            known = merge(known, extract(turn.text))
    return known


def merge(old: Facts, new: Facts) -> Facts:
    """The later turn wins for a single value (age, sex, each lab); lists gather, without repeats."""
    def gathered(a: list[str], b: list[str]) -> list[str]:
        return list(dict.fromkeys([*a, *b]))

    conditions = gathered(old.conditions, new.conditions)
    for general in ("diabetes", "pneumonia"):  # "type 2 diabetes" says more
        if any(c != general and general in c for c in conditions):
            conditions = [c for c in conditions if c != general]
    allergies = gathered([a for a in old.allergies if a != NONE_KNOWN or not new.allergies], new.allergies)
    if len(allergies) > 1:
        allergies = [a for a in allergies if a != NONE_KNOWN]
    return Facts(age=new.age or old.age, sex=new.sex or old.sex, conditions=conditions,
                 medications=gathered(old.medications, new.medications), allergies=allergies,
                 labs={**old.labs, **new.labs})


def render(facts: Facts) -> str:
    """One line for a prompt or a person: "72-year-old female; conditions: ...; eGFR 25; medications: ..."."""
    parts = []
    who = " ".join(p for p in (f"{facts.age}-year-old" if facts.age and facts.age != OVER_89 else
                               ("aged over 89" if facts.age else ""), facts.sex or "") if p)
    if who:
        parts.append(who)
    if facts.conditions:
        parts.append("conditions: " + ", ".join(facts.conditions))
    parts.extend(f"{name} {value}" for name, value in facts.labs.items())
    if facts.medications:
        parts.append("medications: " + ", ".join(facts.medications))
    if facts.allergies:
        parts.append("allergies: " + ", ".join(facts.allergies))
    return "; ".join(parts)


def search_terms(facts: Facts) -> list[str]:
    """What helps a search about this patient: conditions, labs ("eGFR 25"), allergies ("penicillin allergy")."""
    labs = [f"{name} {value.split()[0]}" for name, value in facts.labs.items()]
    allergies = [f"{a} allergy" for a in facts.allergies if a != NONE_KNOWN and "allergy" not in a]
    return [*facts.conditions, *labs, *allergies]


def _age(text: str) -> str | None:
    if AGE_PLACEHOLDER.search(text):
        return OVER_89
    for match in AGE.finditer(text):
        value = int(next(g for g in match.groups()[:4] if g))
        if 0 < value < 125:
            return OVER_89 if value > 89 else str(value)  # HIPAA: ages over 89 are aggregated
    return None


def _sex(text: str) -> str | None:
    female, male = FEMALE.search(text), MALE.search(text)
    if female and not male:
        return "female"
    if male and not female:
        return "male"
    return None


def _conditions(text: str) -> list[str]:
    found: list[str] = []
    for name, pattern in CONDITIONS:
        for match in pattern.finditer(text):
            if NEGATION.search(NEGATION_SCOPE.split(text[max(0, match.start() - 40):match.start()])[-1]):
                continue
            stage = next((g for g in match.groups()[1:] if g and g.strip().lower().startswith("stage")), None)
            weeks = next((g for g in match.groups()[1:] if g and "weeks" in g), None)
            label = f"{name} {stage.strip().lower()}" if stage else name
            label = f"{name}, {weeks.strip(' ,')}" if weeks else label
            if not any(label == f or f.startswith(label) for f in found):
                found = [f for f in found if not label.startswith(f)] + [label]
            break
    for general, specific in (("diabetes", "diabetes"), ("pneumonia", "pneumonia")):
        if any(c != general and specific in c for c in found):
            found = [c for c in found if c != general]
    return found


def _labs(text: str) -> dict[str, str]:
    labs: dict[str, str] = {}
    for match in LAB.finditer(text):
        name = LAB_NAMES.get(match.group(1).lower(), match.group(1).lower())
        labs[name] = " ".join(p for p in (match.group(2), match.group(3)) if p)
    return labs


def _after(cue: re.Pattern[str], text: str) -> list[str]:
    """The words of each clause that follows the cue, up to the clause's end."""
    spans = []
    for match in cue.finditer(text):
        rest = text[match.end():]
        end = CLAUSE_END.search(rest)
        spans.append(rest[: end.start() if end else len(rest)])
    return spans


def _medications(text: str) -> list[str]:
    found: list[str] = []
    for clause in _after(TAKES, text):
        for word in context.words(clause):
            if is_medication(word) and word.lower() not in found:
                found.append(word.lower())
    return found


def _allergies(text: str) -> list[str]:
    if NO_ALLERGIES.search(text):
        return [NONE_KNOWN]
    found: list[str] = []
    candidates = [w for clause in _after(ALLERGY_AFTER, text) for w in context.words(clause)]
    candidates += [m.group(1) for m in ALLERGY_BEFORE.finditer(text)]
    for word in candidates:
        key = word.lower()
        if (key in ALLERGY_CLASSES or is_medication(key)) and key not in found:
            found.append(key)
    return found
