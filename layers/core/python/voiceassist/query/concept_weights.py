"""A question's concept and what it weighs: generic question words ("dose", "treatment", "first-line") weigh
GENERIC_WEIGHT, topic words (drug and condition names, everything else) 1, a follow-up's inherited topic
INHERITED_WEIGHT of that (query/question_concepts.py reads the concepts; query/evidence.py weighs passages by them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voiceassist.query.terms import stem

GENERIC_WEIGHT = 0.25
# The recipient of care named as nursing and social care name them: "client" is NCSBN's word for the person cared for
# in the NCLEX test plans (NCLEX-RN Test Plan, 2023: "the client" is the individual, family or group receiving care),
# as "patient" is the medical word (a stop word, query/terms.py); "service user" is the NHS's and NICE's. Who is asked
# about, not what: weighed as an ordinary word (little when a passage lacks it, fully when one holds it).
RECIPIENT_WORDS = frozenset({"client", "clients"})
_SERVICE_USER = re.compile(r"\bservice[ -]users?\b", re.I)  # its "user" is a plain word already
# Words a clinical question uses whatever its topic: they say what is asked, not what it is about.
GENERIC_WORDS = frozenset(stem(w) for w in (  # noqa: SIM905 - a word list reads better as text
    "dose doses dosage dosing daily maximum max minimum starting start started initial loading usual "
    "treatment treat treated treating therapy management manage managed first-line second-line line drug "
    "drugs medication medicine agent agents option options choice adult adults child children elderly "
    "indication indicated side effect effects adverse risk risks monitor monitoring check checked "
    "recommend recommended advised should can continue continued keep taking take stop stopped when how "
    "long often much many which what used define defined defines mean means level levels target value "
    "values cutoff cutoffs cut-off cut-offs threshold thresholds criteria diagnosis diagnose diagnosed prevent "
    "prevention acute chronic severe mild moderate "
    "safe safety lower raise reduce reduced increase increased best preferred alternative alternatives "
    "need needed needs person people year years day days week weeks month months time times "
    # verbs and nouns that say what is asked of the topic: "should it be taken", "does X cause Y", "which form"
    "taken took give given giving form forms cause causes caused help helps work works change changes "
    "useful helpful effective necessary required appropriate afterwards aim aiming goal goals "
    # who the patient is, as a case is told ("a 72-year-old woman with CKD stage 4"): the condition is the topic
    "woman women man men male female boy girl lady gentleman stage grade "
    # words around a patient's details: who is asked about, not what
    "mr mrs ms dr miss email phone ssn mrn dob born aged age old year-old "
    # the units of time above as typed: UCUM's codes ("min", "wk", "mo"; the Unified Code for Units of Measure,
    # Regenstrief Institute) with a plural s, and "hrs", "yr", "mth"; "hr" alone is left out (heart rate)
    "min mins hrs wk wks mth mths mos yr yrs"
).split())
INHERITED_WEIGHT = 0.5


@dataclass(frozen=True)
class Concept:
    """One thing the question is about: any of `alternatives` (each a set of terms, all needed) matches."""

    label: str
    alternatives: tuple[frozenset[str], ...]
    weight: float
    # what it counts when a passage holds it: an ordinary word ("fast", "together") weighs GENERIC_WEIGHT when
    # missing and 1 when present, so it never lowers a passage's coverage below what it was when it weighed 1
    covered_weight: float | None = None
    inherited: bool = False  # a follow-up's topic taken from the conversation
    # named only where the question describes the case, not where it asks (wording.asked_clauses): a topic that
    # weighs less when a passage lacks it
    scenario: bool = False
    # (session 20) the same terms as a reference writes them ("renal" for "kidney", "high-flow" for "high flow":
    # query/ask_words.py): they cover the concept (evidence.covers) but are not its own alternatives, which tell
    # concepts apart (a compound shared by two adjacent words would make them one)
    forms: tuple[frozenset[str], ...] = ()

    @property
    def topic(self) -> bool:
        """Whether it says what the question is about (a drug, a condition), not how it is asked."""
        return (self.weight >= 1.0 or self.scenario) and not self.inherited

    @property
    def held_weight(self) -> float:
        return self.weight if self.covered_weight is None else self.covered_weight


def _weight(terms: frozenset[str]) -> float:
    return GENERIC_WEIGHT if terms and terms <= GENERIC_WORDS else 1.0
