"""Who the patient is and what they are going through, where the evidence must say it too: an ethnicity or ancestry
("Patient is black, which class to start?") and a situation of treatment ("sick day rules", "on the day of
surgery", "during Ramadan").

A reference that gives a first-line class for everyone, or tells when to withhold a drug before iodinated contrast,
does not answer which class suits a Black patient or what to do with the drug on a sick day: both are qualifiers of
the question a passage must state, as a population is (query/population.py). query/evidence.py weighs each one the
question holds that neither the passage nor its document's other retrieved passages name as a missing owner of the
asked attribute (the passage answers for someone or something else).

- Ethnicity: the categories of the US Office of Management and Budget's Statistical Policy Directive No. 15 (2024
  revision: American Indian or Alaska Native, Asian, Black or African American, Hispanic or Latino, Middle Eastern
  or North African, Native Hawaiian or Pacific Islander, White) and of the Office for National Statistics' ethnic
  group classification for the 2021 Census of England and Wales (Asian or Asian British: Indian, Pakistani,
  Bangladeshi, Chinese; Black, Black British, Caribbean or African; Mixed; White, including Gypsy or Irish
  Traveller and Roma; Arab), each written as clinicians write it ("Afro-Caribbean", "South Asian"). Both are public
  statistical standards (US federal work; the Open Government Licence v3.0); no shipped package lists them. A
  category word is read as the patient's only where it describes a person: before a person noun ("Black patient",
  "South Asian man": population.person_nouns), after "is"/"'s" with a person or pronoun as subject ("patient is
  black", "she's Asian"), or with "descent", "origin", "ancestry", "heritage" or "ethnicity" ("of African descent"):
  "white coat hypertension", "black stools" and "white cell count" are no ethnicity.
- Situations: the circumstances of a drug's course that MeSH indexes as headings of their own (Fasting, D005215,
  with Ramadan as clinicians write it; Perioperative Period, D019990, and Surgical Procedures, Operative, D013514,
  as "surgery", "operation", "pre-op", "peri-operative"; Travel, D014195) and UK practice's "sick day rules"
  (stopping some drugs for a while during a dehydrating illness). The MeSH headings are read as words here, not
  shipped (no package ships MeSH offline: decision 0024). A general practice called "the surgery" ("collapsed in
  my surgery") is a place, not an operation, and "fasting glucose" a test's condition: both are left. Exercise is
  left out: the hypertension reference states it as "aerobic activity", which the words do not reach.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from voiceassist.query import population
from voiceassist.query.plain_words import clinical_sense_words
from voiceassist.query.question_concepts import Concept
from voiceassist.query.terms import content_terms, split_inherited

# one group per OMB / ONS category; a question's term and a passage's are the same qualifier within a group
ETHNICITIES: dict[str, tuple[str, ...]] = {
    "Black": ("black", "african", "african-american", "african american", "afro-american", "afro-caribbean",
              "african-caribbean", "african caribbean", "caribbean", "black british"),
    "White": ("white", "caucasian", "white british", "white european"),
    "Asian": ("asian", "south asian", "east asian", "southeast asian", "south-east asian", "indian", "pakistani",
              "bangladeshi", "chinese", "japanese", "korean", "filipino", "vietnamese", "asian british"),
    "Hispanic": ("hispanic", "latino", "latina", "latinx"),
    "American Indian or Alaska Native": ("american indian", "native american", "alaska native", "first nations",
                                         "indigenous", "aboriginal"),
    "Native Hawaiian or Pacific Islander": ("pacific islander", "native hawaiian", "maori"),
    "Middle Eastern or North African": ("arab", "middle eastern", "north african"),
    "Mixed": ("mixed race", "mixed-race", "biracial"),
    "Gypsy, Irish Traveller or Roma": ("gypsy", "irish traveller", "roma"),
}
SITUATIONS: dict[str, tuple[str, ...]] = {
    "sick day": ("sick day", "sick days", "sick-day", "sick-days", "sick day rules"),
    "surgery": ("surgery", "surgical", "operation", "operative", "pre-op", "preop", "pre-operative",
                "preoperative", "perioperative", "peri-operative", "post-op", "postop", "post-operative",
                "postoperative", "peri-op"),
    "fasting": ("fasting", "ramadan"),
    "travel": ("travel", "travelling", "traveling", "travels", "long-haul", "long haul", "flight", "flights",
               "time zones", "time zone"),
}
_SUBJECT = r"(?:he|she|they|patient|pt|client|lady|man|woman|gentleman|guy|boy|girl|mum|dad)"
_ETHNICITY_WORD = r"(?:of|is|are|'s|’s)"
_ANCESTRY = r"(?:descent|origin|ancestry|heritage|ethnicity|background)"
# "fasting glucose", "fasting state", "a fasting lipid profile": the condition of a test, not the patient's fast
_TEST_CONDITION = re.compile(r"[\s-]+(?:blood|plasma|serum|capillary|venous|glucose|sugar|sugars|lipid|lipids|insulin|"
                             r"level|levels|state|sample|specimen|test|tests|profile|values?|cholesterol|triglycerides?)\b",
                             re.I)
# "in my surgery", "at the surgery": the general practice, a place (above)
_PRACTICE = re.compile(r"\b(?:in|at|to|from|into)\s+(?:the|my|our|his|her|their|your|a)\s+$", re.I)


def _written(form: str) -> str:
    return r"[\s-]+".join(re.escape(word) for word in re.split(r"[\s-]+", form))


def _forms_pattern(table: Mapping[str, Iterable[str]]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern of every form of `table` (the longest first) and each form's key, by its words joined by a space."""
    key_of = {" ".join(re.split(r"[\s-]+", form)): key for key, forms in table.items() for form in forms}
    forms = sorted((form for forms in table.values() for form in forms), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(_written(form) for form in forms) + r")\b", re.I), key_of


@lru_cache(maxsize=1)
def _ethnicity_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    """The ethnicity forms' pattern and each form's group."""
    return _forms_pattern(ETHNICITIES)


def ethnicities(question: str) -> tuple[Concept, ...]:
    """The ethnicity categories the question gives the patient, each a concept any of the category's forms covers."""
    question = split_inherited(question)[0]
    pattern, group_of = _ethnicity_pattern()
    groups: dict[str, None] = {}
    for match in pattern.finditer(question):
        group = group_of[" ".join(re.split(r"[\s-]+", match.group(0).lower()))]
        if group not in groups and _describes_person(question, match.start(), match.end()):
            groups[group] = None
    return tuple(_concept(group, ETHNICITIES[group]) for group in groups)


def _describes_person(text: str, start: int, end: int) -> bool:
    after = text[end:]
    following = re.match(r"[\s-]+([A-Za-z]+)", after)
    if following and (_is_person(following.group(1)) or re.fullmatch(_ANCESTRY, following.group(1), re.I)):
        return True
    before = text[:start]
    if re.search(rf"\b{_SUBJECT}\s*(?:is|'s|’s)\s+(?:a\s+|an\s+)?$", before, re.I):
        return True
    return bool(re.search(rf"\b{_ETHNICITY_WORD}\s+$", before, re.I)) and bool(
        re.match(rf"[\s-]+{_ANCESTRY}\b", after, re.I))


def _is_person(word: str) -> bool:
    """A noun naming a person ("pt": the notes' patient) with no sense WordNet files as the body, a substance or a
    state ("foot": a foot soldier, but "black foot" is a sign: plain_words.clinical_sense_words)."""
    lower = word.lower()
    return lower in ("pt", "pts") or (lower in population.person_nouns() and lower not in clinical_sense_words())


@lru_cache(maxsize=1)
def _situation_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    """The situations' forms' pattern and each form's situation."""
    return _forms_pattern(SITUATIONS)


def situations(question: str) -> tuple[Concept, ...]:
    """The situations of treatment the question names (SITUATIONS), a place called "the surgery" aside."""
    question = split_inherited(question)[0]
    pattern, name_of = _situation_pattern()
    names: dict[str, None] = {}
    for match in pattern.finditer(question):
        form = " ".join(re.split(r"[\s-]+", match.group(0).lower()))
        if form == "surgery" and _PRACTICE.search(question[:match.start()]):
            continue
        if form == "fasting" and _TEST_CONDITION.match(question[match.end():]):
            continue
        names.setdefault(name_of[form])
    return tuple(_concept(name, SITUATIONS[name]) for name in names)


def _concept(label: str, forms: tuple[str, ...]) -> Concept:
    alternatives = {terms for form in forms if (terms := content_terms(form))}
    return Concept(label=label, alternatives=tuple(sorted(alternatives, key=sorted)), weight=1.0)
