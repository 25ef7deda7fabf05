"""The kind of value an ask word names, and whether a passage states one: "which concentration?" is answered by
"1 mg/mL (1:1000)", "interval?" by "every one to two weeks", "shortest course?" by "5 days", none of which repeats
the ask's word.

A clinical question asks an attribute OF its topic: a strength, a route, an interval, a duration, a
range, an upper limit. These are the answer types of question answering (Li X, Roth D, "Learning question
classifiers", COLING 2002: NUMERIC:period, NUMERIC:other, DESCRIPTION:manner) and of clinical question taxonomies
("How should I dose / titrate drug x?", Ely JW et al., BMJ 2000;321:429-432), read from closed sets of head nouns
and the superlatives of a duration, as wording.ATTRIBUTE reads the heads a quantity is asked with. A passage that
states a value of the kind holds the ask word's concept (query/question_concepts.py gives the word this module's
mark as an alternative; query/evidence.py gives each passage the marks of the kinds it states), so the word is no
missing topic there. The word stays a topic: a passage stating no value of its kind still lacks it.

What states a kind is read with the units the code already reads quantities with (query/answer_kinds.py: SI and
UCUM's clinical units, the Unified Code for Units of Measure, Regenstrief Institute): a concentration is a mass or
amount per volume ("1 mg/mL", "5 mg in 1 mL") or a ratio strength ("1:1000", "1 in 10,000"); a dose a number with a
unit of mass, volume or amount; a frequency a number of times in a period or a step's period ("twice daily", "every
5 to 15 minutes"); an interval the period alone ("every one to two weeks", "monthly", not "daily"); a duration a
number with a unit of time, not an age ("65 years or older"); a range two values with a unit ("12.5 to 25 mg"); an
upper limit a value stated as one ("a maximum single dose of 0.5 mg"); a route one of the routes of administration
of the FDA's Data Standards Manual list (ROUTE OF ADMINISTRATION; the names as references write them in running
text, adjective and adverb, and the abbreviations IM, IV, SC, SQ, PO, SL that the shipped abbreviation list reads as
those routes).
"""

from __future__ import annotations

import re
from functools import lru_cache

from voiceassist.query import answer_kinds
from voiceassist.query.concepts import MARK
from voiceassist.query.terms import stem

KIND_MARK = MARK + "kind:"
_WORD = re.compile(r"[^\W\d_]+")

# the ask words (any inflection, read by terms.stem) and the kinds of value that answer them
_ASKED = {
    "concentration": ("concentration",), "dilution": ("concentration",),
    "strength": ("concentration", "dose"),
    "frequency": ("frequency",), "interval": ("interval",),
    "duration": ("duration",), "course": ("duration",), "shortest": ("duration",), "longest": ("duration",),
    "range": ("range",),
    "ceiling": ("limit",),
    "route": ("route",),
}
_BY_STEM = {stem(word): kinds for word, kinds in _ASKED.items()}

_NUMBER = r"\d+(?:[.,]\d+)*"
_CONCENTRATION = re.compile(
    rf"\b{_NUMBER}\s*(?:[mµu]?g|mcg|micrograms?|milligrams?|grams?|[mµ]?mol|iu|units?|meq)\s*(?:/|per|in)\s*"
    rf"(?:{_NUMBER}\s*)?(?:m?l|millilitres?|milliliters?|litres?|liters?)\b"
    r"|(?<![\d.,/])1\s*(?::|in)\s*\d{1,3}(?:,?\d{3})+\b", re.I)
_RANGE = re.compile(rf"\b{_NUMBER}\s*(?:to|-|\u2013)\s*{_NUMBER}\s*(?:[mµu]?g|mcg|micrograms?|milligrams?|grams?|m?l"
                    r"|[mµ]?mol|iu|units?|meq|mmhg|%|minutes?|hours?|days?|weeks?|months?|years?)\b", re.I)
_ROUTE = re.compile(
    r"\b(?:intramuscular(?:ly)?|intravenous(?:ly)?|subcutaneous(?:ly)?|intradermal(?:ly)?|intraosseous(?:ly)?"
    r"|oral(?:ly)?|by mouth|sublingual(?:ly)?|buccal(?:ly)?|rectal(?:ly)?|topical(?:ly)?|transdermal(?:ly)?"
    r"|intranasal(?:ly)?|nasal(?:ly)?|inhaled|by inhalation|nebuli[sz]ed|vaginal(?:ly)?|ophthalmic)\b"
    r"|\b(?:IM|IV|SC|SQ|PO|SL)\b")
_DURATION = re.compile(answer_kinds.DURATION, re.I)
# an age is no duration ("age 65 years or older", "children under 12 years", "a 70-year-old")
_AGE = re.compile(r"\s*(?:or (?:older|over|above)|of age|old\b|-old\b)", re.I)
_AGED = re.compile(r"\b(?:age|aged|ages|under|over|older than|younger than)\s*$", re.I)
_FREQUENCY = next(k for k in answer_kinds.KINDS if k.name == "frequency")
_RATE = next(k for k in answer_kinds.KINDS if k.name == "rate")


def states(kind: str, sentence: str) -> bool:
    """Whether the sentence states a value of this kind."""
    if kind == "concentration":
        return bool(_CONCENTRATION.search(sentence))
    if kind == "dose":
        return answer_kinds.states_quantity("dose", sentence)
    if kind == "frequency":
        return answer_kinds.states(_FREQUENCY, sentence) or answer_kinds.states(_RATE, sentence)
    if kind == "interval":  # the period between steps or doses ("every one to two weeks", "monthly"), not "daily"
        return answer_kinds.states(_RATE, sentence)
    if kind == "duration":
        return any(not _AGE.match(sentence, m.end()) and not _AGED.search(sentence, 0, m.start())
                   for m in _DURATION.finditer(sentence))
    if kind == "range":
        return bool(_RANGE.search(sentence))
    if kind == "limit":
        return answer_kinds.states_quantity("maximum", sentence)
    return bool(_ROUTE.search(sentence))  # route


KINDS = ("concentration", "dose", "frequency", "interval", "duration", "range", "limit", "route")


# A section heading that names the aspect a kind of value is given under ("Duration and follow-up", "Dosing"), as
# answer_kinds reads headings: its sentences answer the kind even where one does not repeat a value's cue.
_HEADINGS = {"duration": re.compile(r"\bduration\b", re.I),
             "interval": re.compile(r"\b(?:dos(?:e|es|ing|age)|titrat\w*)\b", re.I),
             "frequency": re.compile(r"\b(?:dos(?:e|es|ing|age)|administration)\b", re.I)}


def heads(kind: str, heading: str) -> bool:
    """Whether a section heading names the aspect this kind of value is given under."""
    pattern = _HEADINGS.get(kind)
    return pattern is not None and bool(pattern.search(heading))


def question_kinds(question: str) -> frozenset[str]:
    """The kinds of value the ask words of a question name ("shortest abx course": a duration)."""
    return frozenset(k for word in _WORD.findall(question) for k in asked(word))


def asked(word: str) -> tuple[str, ...]:
    """The kinds of value an ask word names ("concentration", "course", "shortest"); none for other words."""
    return _BY_STEM.get(stem(word.lower()), ())


def mark(kind: str) -> str:
    return KIND_MARK + kind


@lru_cache(maxsize=2048)
def marks(text: str) -> frozenset[str]:
    """The marks of the kinds of value some sentence of `text` states."""
    said = answer_kinds.sentences(text)
    return frozenset(mark(kind) for kind in KINDS if any(states(kind, s) for s in said))
