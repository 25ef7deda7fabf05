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
"""

from __future__ import annotations

import re

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
