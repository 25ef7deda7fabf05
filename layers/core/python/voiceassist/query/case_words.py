"""Words that tell a question's case, not what it asks (decision 0024, session 19; read by query/question_concepts.py).

- Who treats the patient and where: a health professional or a place of care (WordNet 3.0's health professionals,
  paramedics, medical buildings, institutions, hospital rooms and wards: terminology.setting_words, less the clinical
  vocabulary) that the description of the case names where it frames the question or acts in it (query/setting.py:
  "on the ward", "by the NP", "the GP should"), or that opens a clause, a determiner at most before it, as the
  subject the description is about ("Resident flushed ...", "Midwife rang ..."), or that ends a phrase of where the
  case is or came from ("from the same clinic": a preposition of position or source, not "to"). Told so, it weighs
  nothing when a passage lacks it (fully when one holds it; never named as missing), as the story's ordinary words
  do. Elsewhere
  in the story it names a service the case may be sent to ("must refer allergy clinic or not?") and keeps its weight.
- A sign typed as an adjective ("wheezy", "nauseous", "dietary"): a word of the story is also covered by the clinical
  noun or verb WordNet 3.0 derives it from ("wheeze", "nausea", "diet": plain_words.derived_from). Only in the story:
  an adjective the ask names ("patients who are not diabetic") says which patients are asked about.
- (session 20) A word of the circumstances told in the story: a person, a place, a food or the animal or plant it is,
  a conveyance (WordNet 3.0's lexicographer files and hypernymy: plain_words.is_circumstance; "halibut", "ambulance",
  "taxi") weighs nothing when a passage lacks it, as a told carer does.
- (session 20) A dropped "g" ("wheezin", "wheezin'", "comin"): the "-ing" form is read too when it is an English word
  (the shipped English list, SCOWL 50) and the typed form is not, so a passage naming the sign covers it.
"""

from __future__ import annotations

import re

from voiceassist.common_words import common_words
from voiceassist.query import plain_words, setting, terminology
from voiceassist.query.terms import content_terms

_CLAUSE_OPENING = r"(?:^|[.;:!?,+\n(]|\s[-\u2013\u2014]+)\s*(?:(?:the|a|an|my|our|his|her|their)\s+)?"
# where the case is or came from, not where it is sent: a preposition of position or source (not "to", "into"), a
# determiner and at most two words before the word ("from the same clinic", "at our local surgery")
_PLACE_PHRASE = r"\b(?:in|at|on|from|within|inside)\s+(?:the|a|an|my|our|his|her|their|this|that)\s+(?:\S+\s+){0,2}"


def told_carer_or_place(label: str, question: str) -> bool:
    """Whether `label` is a health professional or a place of care that frames `question`, acts in it or opens one
    of its clauses (the module's doc)."""
    words = terminology.setting_words()
    if (words.get(label) or words.get(label.lower())) not in ("person", "place"):
        return False
    lower = label.lower()
    if lower in setting.context_words(question) or lower in setting.actors(question):
        return True
    return any(re.search(before + re.escape(label) + r"\b", question, re.I) is not None
               for before in (_CLAUSE_OPENING, _PLACE_PHRASE))


def derived_terms(word: str) -> tuple[frozenset[str], ...]:
    """The content terms of each clinical noun or verb the adjective `word` is formed from ("wheezy": {"wheez"})."""
    return tuple(t for t in map(content_terms, plain_words.derived_from(word)) if t)


_DROPPED_G = re.compile(r"([a-z]{2,}in)'?", re.I)


def g_restored(word: str) -> str | None:
    """The "-ing" form of a word typed with its "g" dropped ("wheezin" -> "wheezing"), when that form is an English
    word and the typed one is not; None otherwise."""
    match = _DROPPED_G.fullmatch(word)
    if match is None or match.group(1).lower() in common_words():
        return None
    restored = match.group(1).lower() + "g"
    return restored if restored in common_words() else None


def restored_terms(word: str) -> tuple[frozenset[str], ...]:
    """The content terms of the "-ing" form of a g-dropped word (empty when `word` is none)."""
    restored = g_restored(word)
    terms = content_terms(restored) if restored else frozenset()
    return (terms,) if terms else ()
