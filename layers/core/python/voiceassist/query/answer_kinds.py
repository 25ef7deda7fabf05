"""What kind of sentence answers a question, read from its wording (the extractive composer's answer types).

A question's interrogative phrase asks for a kind of fact, whatever its topic: "how long" a duration, "how
often" a frequency, "how fast / how quickly" a rate (a step and its interval: "increase by 500 mg every one to
two weeks"), "how do I recognise / what are the signs" the findings that identify the condition ("... is likely
when hives ... appear suddenly together with breathing difficulty"). These are the question classes of
clinical question taxonomies (Ely JW et al., "A taxonomy of generic clinical questions", BMJ 2000;321:429-432:
"How should I dose / titrate drug x?", "What are the manifestations of condition y?", "How can I tell if ...")
and of answer-type detection in question answering (Li X, Roth D, "Learning question classifiers", COLING 2002:
NUMERIC:period, NUMERIC:speed, DESCRIPTION:manner). The cues are the closed interrogative phrases, never a
question's topic words.

A reference names the aspect a section answers in its heading ("Recognition", "Dosing"): a sentence under a
heading of the asked kind answers it even when the sentence itself does not repeat the cue.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerKind:
    name: str
    question: re.Pattern[str]  # the question asks for this kind of fact
    sentence: re.Pattern[str]  # a sentence that states one
    heading: re.Pattern[str] | None = None  # a section heading that names the aspect
    # "How do I recognise it?" is worded as a how-to but asks for findings: an instruction ("Give ...") is not
    # its answer, so the how-to question's instruction bonus does not apply.
    instruction_answers: bool = True


DURATION = r"\b\d+(\s*(to|-|–)\s*\d+)?\s*(minutes?|hours?|days?|weeks?|months?|years?)\b"
_DURATION = DURATION
_NUMBER_WORD = r"(?:\d+|one|two|three|four|six|eight|ten|twelve)"

KINDS = (
    AnswerKind("duration", re.compile(r"\b(how long|duration|how many (days|weeks|months))\b", re.I),
               re.compile(_DURATION, re.I), re.compile(r"\bduration\b", re.I)),
    AnswerKind("frequency", re.compile(r"\b(how often|how frequently|frequency|repeat\w*)\b", re.I),
               re.compile(r"\b(every|each|daily|weekly|monthly|yearly|annually|once|twice|times a)\b", re.I)),
    # "when should ... be stopped / reviewed?" -> a time or the condition that marks it
    # "once" as the conjunction ("once the patient is afebrile"), not the count of "once daily" (a frequency)
    AnswerKind("time", re.compile(r"^\s*(and\s+)?when\b", re.I),
               re.compile(r"\b(within|until|after|before|once(?!\s+(?:or\s+twice\s+)?(?:a\s+|per\s+|every\s+)?"
                          r"(?:daily|day|weekly|week|monthly|month|only)\b)|at least|\d+\s*(to\s*\d+\s*)?"
                          r"(hours?|days?|weeks?|months?))\b", re.I)),
    # "how fast can I go up?", "how quickly is it uptitrated?" -> a step and the interval between steps
    # "uptitration interval": the period between steps, not how many times a day (a frequency)
    # a titration asked ("How should I titrate drug x?", Ely et al. 2000) is answered by its step and interval, and
    # "q? wks", "q2 weeks" (q: quaque, "every", as the ISMP and BNF abbreviation lists read it) asks the period
    AnswerKind("rate", re.compile(r"\bhow (fast|quickly|rapidly|slowly|soon)\b|\b(rate|speed|pace) of\b"
                                  r"|\bintervals?\b|\w*titrat\w*|\bq\s*\??\s*\d*\s*(?:wks?|weeks?|days?|months?|mths?)\b"
                                  r"|\bevery how (?:many|long|often)\b", re.I),
               re.compile(rf"\b(every|each) ({_NUMBER_WORD}\b|other\b|week|day|month)|\bper (week|month)\b"
                          rf"|\b(weekly|fortnightly|monthly)\b|\bover {_NUMBER_WORD}\b", re.I),
               re.compile(r"\b(dos(e|es|ing|age)|titrat\w*|administration)\b", re.I)),
    # "how do I recognise it?", "signs that it is ...", "how can I tell ..." -> the identifying findings
    AnswerKind("recognition",
               re.compile(r"\b(recogni[sz]\w*|signs?|symptoms?|manifestations?|presentation|clinical features?"
                          r"|diagnos\w*|criteria|identify|spot)\b|\bhow (do|can|would|will) (i|you|we) (tell|know)\b",
                          re.I),
               re.compile(r"\b(is|are) (likely|suggested|probable|diagnosed)\b|\bsuggest(s|ive)?\b"
                          r"|\bpresents? with\b|\bcriteria\b|\b(signs?|symptoms?|features?) (of|include)\b", re.I),
               re.compile(r"\b(recogni\w*|diagnos\w*|signs?|symptoms?|clinical features?|presentation|"
                          r"criteria|assessment)\b", re.I),
               instruction_answers=False),
)


def asked(question: str) -> tuple[AnswerKind, ...]:
    """The kinds of fact the question asks for (none for most questions)."""
    return tuple(kind for kind in KINDS if kind.question.search(question))


def wants_instruction(kinds: tuple[AnswerKind, ...]) -> bool:
    """Whether an instruction can answer a question asking for these kinds (not findings)."""
    return all(kind.instruction_answers for kind in kinds)


def states(kind: AnswerKind, sentence: str) -> bool:
    """Whether the sentence states a fact of this kind."""
    return bool(kind.sentence.search(sentence))


def heads(kind: AnswerKind, heading: str) -> bool:
    """Whether a section heading names this kind's aspect ("Recognition" for a recognition question)."""
    return kind.heading is not None and bool(kind.heading.search(heading))


# What the evidence score asks of a passage (query/evidence.py): a question that asks for a quantity (Li and
# Roth's NUMERIC classes: count, period, amount) is answered only by a sentence that states one. A passage on the
# question's topic without it ("how many EpiPens should a patient carry?" against the epinephrine dosing passage,
# whose numbers are all doses and times) is about the topic, not the answer.
_NUMBER = r"(?:\d+(?:[.,]\d+)*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|single|a few)"
# Units of measure as references write them (SI and the clinical units of UCUM: mg, mL, mmol, mmHg, IU, %),
# times, and rates after them ("mg/kg", "mL/min", "per day")
_UNIT = (r"(?:[mµu]?g|mcg|kg|micrograms?|milligrams?|grams?|m?l|millilitres?|milliliters?|litres?|liters?|[mµ]?mol"
         r"|mmhg|iu|units?|%|percent|meq|kcal|cm|mm|seconds?|sec|minutes?|mins?|hours?|hrs?|h|days?|weeks?"
         r"|months?|years?|doses?|tablets?|capsules?|puffs?|drops?|times)\b")
_QUANTITY = re.compile(rf"\b{_NUMBER}(?:\s*(?:to|-|–|or|and)\s*{_NUMBER})?\s*{_UNIT}", re.I)
_DOSE = re.compile(r"\b\d+(?:[.,]\d+)*(?:\s*(?:to|-|–|/)\s*\d+(?:[.,]\d+)*)?\s*(?:[mµu]?g|mcg|micrograms?"
                   r"|milligrams?|grams?|m?l|[mµ]?mol|iu|units?|meq)\b", re.I)
# a count: a whole number before a word that is no unit ("two readings", "2 auto-injectors"), not a category's
# number ("type 2", "stage 4", "CURB-65") nor part of a ratio or a decimal ("1:1000", "0.5")
_WHOLE = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|both)"
_COUNT = re.compile(rf"(?<![\w:/.,-]){_WHOLE}(?![\w:/.,]|-\d)(?:\s*(?:to|-|–|or)\s*{_WHOLE})?\s+([a-z][\w-]*)",
                    re.I)
_CATEGORY = re.compile(r"\b(?:type|stage|grade|class|step|category|level|phase|score)(?:\s+of)?\s*$", re.I)
_UNIT_WORD = re.compile(rf"^{_UNIT}", re.I)
# units of time as a question types them: in full, UCUM's codes with a plural s ("mins", "wks"), "hrs", "yrs", "mths"
_TIME_UNITS = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mths?|mos|years?|yrs?)"
_TIMES = rf"(?:times|{_TIME_UNITS})"
# "how many mg", "how many units": an amount in a unit of measure (mass, volume, amount of substance), not a count
_MEASURE = (r"(?:[mµu]?g|mcg|kg|micrograms?|milligrams?|grams?|kilos?|kilograms?|m?l|millilitres?|milliliters?"
            r"|litres?|liters?|[mµ]?mol|iu|units?|meq|kcal)\b")
# "how many X per kg": X per a unit of measure is a rate, an amount whatever X is called ("mils", "cc")
_PER_MEASURE = rf"[a-z]+(?:\s*/|\s+(?:per|a)\s)\s*{_MEASURE}"
_COUNTED = re.compile(rf"\bhow many\b(?!\s+(?:more\s+)?(?:{_TIMES}\b|{_MEASURE}|{_PER_MEASURE}))", re.I)
_AMOUNT = re.compile(rf"\bhow much\b|\bhow many\s+(?:more\s+)?(?:{_MEASURE}|{_PER_MEASURE})", re.I)
_DOSED = re.compile(r"\b(?:doses?|dosing|dosage|dosed)\b", re.I)
_LONG = re.compile(rf"\bhow long\b|\bhow many (?:more\s+)?{_TIME_UNITS}\b|\bfor how (?:many|long)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
# an extreme asked ("max dose", "highest dose") is answered by a limit stated as one, not by a usual dose
_MAXIMUM = re.compile(r"\b(?:max|maximum|maximal|highest|upper limit)\b", re.I)
_LIMIT = re.compile(r"\b(?:max|maximum|maximal|up to|not (?:to )?exceed\w*|at most|no more than|highest|ceiling)\b",
                    re.I)


def quantities_asked(question: str) -> tuple[str, ...]:
    """The quantities a question asks for: "count" (how many X), "amount" (how much), "dose", "duration", and
    "maximum" (the upper limit of one of them: "max dose")."""
    asked_for = [name for name, pattern in (("count", _COUNTED), ("amount", _AMOUNT), ("dose", _DOSED),
                                            ("duration", _LONG)) if pattern.search(question)]
    if asked_for and _MAXIMUM.search(question):
        asked_for.append("maximum")
    return tuple(asked_for)


def _counts(sentence: str) -> bool:
    for match in _COUNT.finditer(sentence):
        if not _UNIT_WORD.match(match.group(1)) and not _CATEGORY.search(sentence[:match.start()]):
            return True
    return False


def states_quantity(name: str, sentence: str) -> bool:
    """Whether a sentence states a quantity of the kind asked."""
    if name == "count":
        return _counts(sentence)
    if name == "dose":
        return bool(_DOSE.search(sentence))
    if name == "duration":
        return bool(re.search(_DURATION, sentence, re.I))
    if name == "maximum":
        return bool(_LIMIT.search(sentence)) and bool(_QUANTITY.search(sentence))
    return bool(_QUANTITY.search(sentence))


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def passage_states(asked_for: tuple[str, ...], text: str, doses_of: frozenset[str] = frozenset(),
                   drugs_in: Callable[[str], frozenset[str]] | None = None, named_only: bool = False) -> bool:
    """Whether some sentence of the passage states each quantity asked. A dose of a named drug (`doses_of`: the
    drug's marks) must be stated in a sentence that names it or names no drug (the title's drug: "Start with
    500 mg ..." in a metformin reference), not in one that doses another drug; with `named_only` (a dose asked of
    a class, "which antihistamine and what dose": no reference is about a class) in one that names it."""
    said = sentences(text)
    for name in asked_for:
        found = [s for s in said if states_quantity(name, s)]
        if name in ("dose", "maximum") and doses_of and drugs_in is not None:
            found = [s for s in found if (named := drugs_in(s)) & doses_of or not (named or named_only)]
        if not found:
            return False
    return True
