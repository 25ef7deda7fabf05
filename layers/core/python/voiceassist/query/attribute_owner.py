"""What a question asks an attribute of (`asked_owner`), and the concepts that name a thing: a drug, class, disease
or abbreviation (`_named`, `named_drugs`, `drug_marks`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from voiceassist.query import terminology, wording
from voiceassist.query.concept_weights import Concept
from voiceassist.query.concepts import MARK as CONCEPT_MARK
from voiceassist.query.concepts import mentions, spelt_out
from voiceassist.query.expansion import abbreviation_meanings
from voiceassist.query.terms import content_terms, split_inherited
from voiceassist.query.typed_words import _SURFACE_WORD
from voiceassist.query.wording import ATTRIBUTE, joined_scores

# What a question asks an attribute of: the noun phrase around the attribute ("hba1c target", "dose of amlodipine",
# "infusion rate"), or, for a "when" question, the first named thing it asks about ("when to cover MRSA"). The
# attributes are the heads of the NUMERIC answer types (wording.ATTRIBUTE; query/answer_kinds.py: Li and Roth 2002)
# as clinical questions word them; the words skipped beside them say which value, not whose.
_VALUE_WORDS = frozenset({
    "max", "maximum", "maximal", "min", "minimum", "minimal", "usual", "starting", "start", "initial", "loading",
    "daily", "total", "single", "weekly", "recommended", "normal", "safe", "average", "mean", "the", "a", "an", "its",
    "their", "his", "her", "my", "your", "this", "that"})
_WHEN = re.compile(r"^\s*(?:and\s+)?when\b", re.I)


def asked_owner(question: str, found: Sequence[Concept]) -> Concept | None:
    """The topic concept whose attribute the question asks for (None when it asks none, or of no topic): read in
    the clauses a question mark closes first ("refractory anaphylaxis after 2 im doses - iv adrenaline infusion
    rate?" asks the infusion's rate, not the IM dose's), then in those that ask (wording.asked_clauses), then in the
    whole question."""
    own = joined_scores(split_inherited(question)[0])  # "H B A one C target": HbA1c's
    asked = wording.asked_clauses(own)
    for text in (*wording.questioned_clauses(own), *(asked or ()), own):
        if (owner := _owner_in(text, found)) is not None:
            return owner
    return None


def _owner_in(own: str, found: Sequence[Concept]) -> Concept | None:
    words = [w.lower() for w in _SURFACE_WORD.findall(own)]
    candidates: list[tuple[int, bool]] = []  # (word index, whether a plain word may own it)
    for i, word in enumerate(words):
        if not ATTRIBUTE.fullmatch(word):
            continue
        before = i - 1
        while before >= 0 and words[before] in _VALUE_WORDS:
            before -= 1
        if before >= 0:
            candidates.append((before, True))
        if i + 1 < len(words) and words[i + 1] in ("of", "for"):
            after = i + 2
            while after < len(words) and words[after] in _VALUE_WORDS:
                after += 1
            if after < len(words):
                candidates.append((after, True))
        elif i + 1 < len(words):  # "target bp", "target HbA1c": a named thing right after
            candidates.append((i + 1, False))
    if _WHEN.match(own):  # "when to cover MRSA": a named thing only, not the verb
        candidates.extend((i, False) for i in range(1, len(words)))
    for index, plain in candidates:
        concept = _concept_of(words[index], found)
        if concept is not None and concept.topic and (plain or _named(concept)):
            return concept
    return None


def _concept_of(word: str, found: Sequence[Concept]) -> Concept | None:
    names = {word, *(m.label.lower() for m in mentions(word)), *(spelt_out(m.label).lower() for m in mentions(word))}
    terms = content_terms(word)
    for concept in found:
        if concept.label.lower() in names or any(terms and terms <= a for a in concept.alternatives if len(a) == 1):
            return concept
    # the head of a compound name, its last word ("pressure" of "blood pressure average")
    return next((c for c in found if " " in c.label and c.label.lower().rsplit(" ", 1)[1] == word), None)


def _named(concept: Concept) -> bool:
    """A drug, class, disease or abbreviation: a thing with a name, not a plain word (nor a synonym group's
    form: "review" is one of "reassess")."""
    label = concept.label
    return (any(len(a) == 1 and next(iter(a)).startswith(CONCEPT_MARK) for a in concept.alternatives)
            or bool(abbreviation_meanings(label))
            or (label.isalpha() and label.islower() and label not in terminology.ordinary_words()
                and bool(abbreviation_meanings(label.upper()))))


def named_drugs(found: Sequence[Concept]) -> list[Concept]:
    """The concepts that name a drug ("glipizide", "Glucophage"), not a class of drugs."""
    drug = CONCEPT_MARK + "drug:"
    return [c for c in found if any(len(a) == 1 and next(iter(a)).startswith(drug) for a in c.alternatives)]


def drug_marks(drugs: Sequence[Concept]) -> frozenset[str]:
    """The marks of the drugs a question names (any one in a sentence names the drug)."""
    return frozenset(m for c in drugs for a in c.alternatives if len(a) == 1 for m in a if m.startswith(CONCEPT_MARK))
