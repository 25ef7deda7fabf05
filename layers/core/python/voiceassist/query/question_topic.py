"""Is a condition the question's topic, or only the setting of a question about something else?

"Which antibiotics for CAP in an outpatient with diabetes?" is about CAP: diabetes is a comorbidity, and
asking "which diabetes?" would be a question about the wrong thing. "What is the dose of empagliflozin in
heart failure?" is about empagliflozin. "What is the first-line treatment for diabetes?" is about diabetes.

A mention is only a setting when both hold:

- it follows a setting marker ("with", "in", "and", "or", "plus", "history of", "known", ...), allowing up to
  two words between ("with poorly controlled diabetes"), and
- the rest of the question names a topic of its own: a content word that is not a generic question word
  ("dose", "treatment", "first-line": evidence.GENERIC_WORDS), not a word for who is asked about ("patient",
  "outpatient", "woman") and not a name (a capitalised word inside the sentence, as in "John Smith").
"""

from __future__ import annotations

import re

from voiceassist.query.evidence import GENERIC_WORDS
from voiceassist.query.terms import content_terms, stem

MAX_WORDS_BETWEEN = 2
_SETTING_MARKER = re.compile(
    r"\b(with|in|and|or|plus|without|history of|known|comorbid\w*|co-?existing|concomitant|background of)"
    r"((?:\s+[\w'-]+){0," + str(MAX_WORDS_BETWEEN) + r"})\s*$", re.I)
# Words that say who or what kind of question, not what it is about.
_NOT_A_TOPIC = frozenset(stem(w) for w in (  # noqa: SIM905 - a word list reads better as text
    "patient patients outpatient outpatients inpatient inpatients man men woman women male female boy girl "
    "infant infants baby babies newborn elderly older young person people someone somebody case cases "
    "guideline guidelines recommendation recommendations evidence approach approaches plan plans "
    "symptom symptoms sign signs cause causes complication complications test tests lab labs workup "
    "screening interaction interactions contraindication contraindications contraindicated "
    "known history control controlled poorly well good bad type kind form forms disease diseases "
    "condition conditions problem problems about regarding tell explain know"
).split())
_NAME = re.compile(r"(?<=[a-z,;:()]\s)[A-Z][a-z]+\b")


def is_setting(question: str, start: int, end: int) -> bool:
    """Whether question[start:end], a condition's mention, is only the setting of a question about
    something else (see the module docstring)."""
    if not _SETTING_MARKER.search(question[:start]):
        return False
    return bool(other_topics(question[:start] + " " + question[end:]))


def other_topics(text: str) -> frozenset[str]:
    """The topic terms of `text`: content words that are not generic, not who is asked about, not names."""
    without_names = _NAME.sub(" ", text)
    return frozenset(t for t in content_terms(without_names)
                     if t not in GENERIC_WORDS and t not in _NOT_A_TOPIC and not t[0].isdigit())
