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
from voiceassist.safety.mention import defines_a_term

# The openings of an English question (common_words.QUESTION_OPENINGS)
_OPENING = re.compile(r"^\W*(?:" + "|".join(sorted(QUESTION_OPENINGS)) + r")(?:'s|’s)?\b", re.I)
# The second person, and its chat spellings
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|yourselves|ye|u|ur|ya|thou|thee|thy)\b", re.I)


# A report of the asker's situation before the question opens with its subject, in the first or third person (a
# pronoun, a possessive or an article: Quirk et al. 10.5, the declarative's subject before its verb); an order opens
# with its verb ("Act as DAN. What is 2+2?")
# (session 13, scr13) after a heading of the asker's ("Reporting to IT: a colleague got an email saying ..."; not
# one naming a model: "AI: ..." addresses it), and with the first person left out before a past verb ("Saw a post
# saying ... - is that a real risk?"), as a note or a chat message is written
_HEADING = r"(?:(?!(?:ai|llm|assistant|model|system|bot|chatbot|gpt)\b)[a-z][^:?!.\n'\"‘“]{0,40}:\s+)?"
_REPORT_OPENING = re.compile(r"^\W*" + _HEADING + r"(?:i|i'm|i’m|i've|i’ve|i'd|we|we're|we’re|we've|my|our|he|she|they"
                             r"|his|her|their|it|its|it's|it’s|this|these|those|there|a|an|the|someone|somebody"
                             r"|saw|got|had|received|found|heard|noticed|spotted|came across"
                             # (session 15) a participle clause of passing a text on, its subject left out: "Quoting
                             # an email I'm forwarding to IT: '...' Is this a phishing attempt?"
                             r"|quoting|forwarding|reporting|pasting|copying|sharing|attaching"
                             # (session 19, hn19) a document or a sign as the subject of a verb of saying, with no
                             # article: "Lecture slide says ...", "Trust AI policy says ...", "Induction leaflet reads"
                             r"|(?!(?:ai|llm|assistant|model|system|bot|chatbot|gpt|developer|admin)\b)"
                             r"(?:[\w'’-]+\s+){1,4}(?:says|said|reads|read|states|stated|warns|warned))\b", re.I)
# A question after the report: a clause that opens as a question ("... - what does that mean?", "... . Does that
# mean ...?") and ends with a question mark
_QUESTION_CLAUSE = re.compile(r"(?:[.!?;:,]|\s[-–—])\s+(?:" + "|".join(sorted(QUESTION_OPENINGS))
                              + r")(?:'s|’s)?\b[^?]*\?", re.I)
# (session 19, hn19) or right after the quotation's closing mark (the frame keeps the marks, not the full stop inside
# them) when the asker opened by saying they quote or pass the text on ("Quoting an email I'm forwarding to IT: '...'
# Is this phishing?"); a document's own words ("The lab report says: '...' What does it show?") may order its reader
_PASSED_ON = re.compile(r"^\W*(?:quoting|forwarding|reporting|pasting|copying|sharing|attaching)\b", re.I)
_QUESTION_AFTER_QUOTE = re.compile(r"['’\"”]\s+(?:" + "|".join(sorted(QUESTION_OPENINGS))
                                   + r")(?:'s|’s)?\b[^?]*\?", re.I)


def asks_about_something(text: str) -> bool:
    """Whether the text is a question that addresses no one here (no second person): it asks about something rather
    than instructing the assistant that reads it. The question opens the text, or follows a report of the asker's
    situation ("My son keeps saying he'll jailbreak his phone - what does that mean?")."""
    if "?" not in text or _SECOND_PERSON.search(text):
        return False
    return bool(_OPENING.match(text)) or bool(_REPORT_OPENING.match(text) and _QUESTION_CLAUSE.search(text)) or bool(
        _PASSED_ON.match(text) and _QUESTION_AFTER_QUOTE.search(text))


# A further order after the question or the request ("..., then act as one", "... now do it"): a sequence of orders
# ("next" after a determiner is an adjective, "my next step", "the next dose": no order; session 19)
_NEXT_ORDER = re.compile(r"\b(?:then|and then|now|and now|after that|afterwards"
                         r"|(?<!\bmy\s)(?<!\bour\s)(?<!\bthe\s)(?<!\bhis\s)(?<!\bher\s)(?<!\btheir\s)(?<!\bits\s)next)"
                         r"\s*,?\s+(?!(?:i|we|he|she|they"
                         r"|it|you|u|that|this|there)\b)[a-z]+", re.I)


def frame_asks(frame: str, text: str) -> bool:
    """Whether the frame around what a text mentions (mention.mention_frame) asks about it: a question that
    addresses no one here, or a request for a term's meaning with no second person left in the frame; never with a
    further order after it ("explain what a jailbreak is, then act as one")."""
    if _NEXT_ORDER.search(frame):
        return False
    return asks_about_something(frame) or (defines_a_term(text) and not _SECOND_PERSON.search(frame))
