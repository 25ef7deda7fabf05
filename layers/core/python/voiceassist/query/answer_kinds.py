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


_DURATION = r"\b\d+(\s*(to|-|–)\s*\d+)?\s*(minutes?|hours?|days?|weeks?|months?|years?)\b"
_NUMBER_WORD = r"(?:\d+|one|two|three|four|six|eight|ten|twelve)"

KINDS = (
    AnswerKind("duration", re.compile(r"\b(how long|duration|how many (days|weeks|months))\b", re.I),
               re.compile(_DURATION, re.I)),
    AnswerKind("frequency", re.compile(r"\b(how often|how frequently|frequency|interval|repeat\w*)\b", re.I),
               re.compile(r"\b(every|each|daily|weekly|monthly|yearly|annually|once|twice|times a)\b", re.I)),
    # "when should ... be stopped / reviewed?" -> a time or the condition that marks it
    AnswerKind("time", re.compile(r"^\s*(and\s+)?when\b", re.I),
               re.compile(r"\b(within|until|after|before|once|at least|\d+\s*(to\s*\d+\s*)?"
                          r"(hours?|days?|weeks?|months?))\b", re.I)),
    # "how fast can I go up?", "how quickly is it uptitrated?" -> a step and the interval between steps
    AnswerKind("rate", re.compile(r"\bhow (fast|quickly|rapidly|slowly|soon)\b|\b(rate|speed|pace) of\b", re.I),
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
