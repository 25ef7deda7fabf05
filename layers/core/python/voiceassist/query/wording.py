"""How a question is worded around its topics: scores typed with a space, and findings it negates. Read by the
evidence score's concepts (query/question_concepts.py)."""

from __future__ import annotations

import re

from voiceassist.query.expansion import abbreviation_meanings

_SURFACE_WORD = re.compile(r"[^\W_]+(?:[-'/][^\W_]+)*")

# A score or marker typed with a space where the abbreviation list joins it with a hyphen or nothing ("curb 65":
# "CURB-65", "ca 125": "CA-125"), or with the hyphen loose as Whisper writes a spoken one ("CURB -65", "CURB - 65"):
# the listed form, so that it is one concept and a passage's "CURB-65" covers it.
_SPACED_NUMBER = re.compile(r"(?<![\w-])([A-Za-z]{2,})(?: | - | -|- )(\d{1,3})(?![\w.,/-])")


def joined_scores(text: str) -> str:
    """`text` with each score or marker typed with a space written as the abbreviation list writes it."""
    def joined(match: re.Match[str]) -> str:
        word, number = match.groups()
        for form in (f"{word.upper()}-{number}", f"{word.upper()}{number}"):
            if abbreviation_meanings(form):
                return form
        return match.group()
    return _SPACED_NUMBER.sub(joined, text)


# Pertinent negatives: what a question says the patient has not ("no comorbs", "no other hx", "without
# diabetes") is its context, not its topic; a passage need not name it. The pre-negation triggers and the scope
# (the next words up to a punctuation mark or a termination term, at most five words) are NegEx's: Chapman WW et
# al., "A simple algorithm for identifying negated findings and diseases in discharge summaries", J Biomed Inform
# 2001;34:301-310 (the triggers that open a scope before the finding, less "not", which in a question negates its
# verb: "what if BP is not controlled").
_NEGATION = re.compile(r"\b(?:no|without|denies|denied|nil|negative for|free of|absence of)\b", re.I)
_SCOPE_END = re.compile(r"[,.;:!?()\u2013]|\s-\s|\b(?:but|however|except|although|though|which|apart from|"
                        r"aside from|besides)\b", re.I)
NEGATION_SCOPE = 5


def negated_words(text: str) -> frozenset[str]:
    """The words (lower case) inside a negation's scope in `text` (NegEx, above)."""
    found: set[str] = set()
    for trigger in _NEGATION.finditer(text):
        rest = text[trigger.end():]
        end = _SCOPE_END.search(rest)
        scope = _SURFACE_WORD.findall(rest[:end.start()] if end else rest)[:NEGATION_SCOPE]
        found.update(w.lower() for w in scope)
    return frozenset(found)
