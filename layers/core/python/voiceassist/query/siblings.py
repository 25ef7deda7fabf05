"""Sibling conditions: a passage about "community-acquired pneumonia" does not answer a question about
"hospital-acquired pneumonia", although it holds the word "pneumonia".

The question's qualified terms are a modifier directly before a head word: a hyphenated modifier
("hospital-acquired", "ventilator-associated", "drug-induced"), "type N" ("type 1 diabetes"), or one of a
few contrasting modifiers (acute/chronic, bacterial/viral/fungal, ...). A passage that names the same head
with another modifier of the same kind, and never with the question's one, is about a sibling condition:
for that passage the head and the modifier count as absent (query/evidence.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from voiceassist.query.population import CARDINAL_WORDS
from voiceassist.query.terms import content_terms, stem

_CONTRASTING = ("acute", "chronic", "subacute", "bacterial", "viral", "fungal", "parasitic", "primary",
                "secondary", "congenital", "acquired", "central", "peripheral", "systolic", "diastolic")
_MODIFIER = (r"(?P<mod>[a-z][a-z0-9]*(?:-[a-z0-9]+)+|type[\s-]*(?:[0-9]+|i{1,3}|iv|one|two)|"
             + "|".join(_CONTRASTING) + ")")
_HEAD = r"(?P<head>[a-z]{3,})"
_PAIR = re.compile(rf"(?<![\w-]){_MODIFIER}\s+{_HEAD}\b")


@dataclass(frozen=True)
class Qualified:
    modifier: str  # as written, lower case ("hospital-acquired", "type 1")
    head: str  # its stem: "pneumonia"
    kind: str  # "hyphen", "type" or "contrast": a sibling's modifier is of the same kind
    written: str = ""  # the pair as the text has it, lower case: "type 1 diabetes"

    def terms(self) -> frozenset[str]:
        return content_terms(self.modifier) | {self.head}


def _kind(modifier: str) -> str:
    if modifier.startswith("type"):
        return "type"
    return "hyphen" if "-" in modifier else "contrast"


def _normal(modifier: str) -> str:
    return " ".join(modifier.replace("-", " ").split()) if modifier.startswith("type") else modifier


@lru_cache(maxsize=4096)
def qualified_terms(text: str) -> tuple[Qualified, ...]:
    """The modifier + head pairs of a text ("hospital-acquired pneumonia", "type 1 diabetes")."""
    found = []
    for match in _PAIR.finditer(text.lower()):
        modifier, head = _normal(match.group("mod")), match.group("head")
        if head in _CONTRASTING or not content_terms(head):  # "acute and", "chronic viral": no head noun
            continue
        if all(part in CARDINAL_WORDS for part in modifier.split("-")):  # "twenty-four hour": a number, no kind
            continue
        found.append(Qualified(modifier, stem(head), _kind(modifier), f"{modifier} {head}"))
    return tuple(found)


def sibling_terms(question_pairs: tuple[Qualified, ...], passage_text: str) -> frozenset[str]:
    """The question's terms that, in this passage, name a sibling condition rather than the question's own:
    the head and modifier of each pair the passage names only with another modifier of the same kind."""
    if not question_pairs:
        return frozenset()
    in_passage = qualified_terms(passage_text)
    absent: set[str] = set()
    for asked in question_pairs:
        same_head = [p for p in in_passage if p.head == asked.head and p.kind == asked.kind]
        if same_head and all(p.modifier != asked.modifier for p in same_head):
            absent |= asked.terms()
    return frozenset(absent)


# The thing whose value is asked, written with a word before it that says which ("home blood pressure"), against a
# passage that writes that thing only with other words before it ("office blood pressure is ... at or above 130/80
# mmHg"): the passage states the value of a sibling (the office reading, not the home one), as a passage naming only
# "community-acquired pneumonia" is about a sibling of "hospital-acquired pneumonia". Read for the owner of the asked
# attribute only (attribute_owner.asked_owner; query/evidence.py decides whether a word before it in the passage
# names the question's word, "intramuscular" for "IM"); a function word ("the", "of", "her": spaCy's English stop
# words, shipped for the PHI screen) or a number before it says nothing.
def words_before(forms: tuple[str, ...], text: str, function_words: frozenset[str]) -> frozenset[str]:
    """The content words `text` writes right before the thing (any of `forms`, lower case)."""
    before: set[str] = set()
    for form in forms:
        for match in re.finditer(rf"([^\W_]+)[ \t-]+{re.escape(form)}\b", text, re.I):
            word = match.group(1).lower()
            if word not in function_words and not word.isdigit():
                before.add(word)
    return frozenset(before)
