"""How the metadata screen reads what names a document (a title, a doc_key, a file name) rather than a sentence.

The PHI detector is built for sentences, where a capital mid-sentence is a strong sign of a name. A published
title is written in headline case ("Coding of Sweet, Bitter, and Umami Tastes ...") and a file name has no
sentence at all, so the same finds mean less there. The screen uses what the detector itself reports:

- **Headline case** (most words of four letters or more capitalised, at least three): the title is read a second
  time case-folded, the reading the detector gives text without capitals, where an English word is no name
  and a word outside its vocabulary is a weak guess. A name found in the first reading counts only if each of
  its words is a name in the second too ("Zebulon Quartermaine", "John Smith"), not when an English word was
  taken for one because of its capital ("Umami Tastes", "Glucose Control").
- **A Census name is a name, not a word**: the Census lists hold "In", "To", "An", "So" and "May" too, so an
  English function word (spaCy's English stop words, MIT, in _data/phi/stop_words.tsv) never counts as one.
  Without this, a key or file name with any other find ("...-in-...-100-years.pdf") had its "in" and "to"
  redacted as names, and a drug code beside "an" read as a name beside a record number.
- **Context-free finds are guesses** (redacted only when something else in the document's metadata is found):
  one word taken for a name without a cue ("Akt", "Krüppel", "Bartonella": NER's 0.85 for one capitalised
  word) unless it is a Census given name or surname, and a code, number or date matched by its shape alone
  (the recognizers' 0.5-0.6, below the 0.7 a cue such as "MRN" or "DOB" lifts it to: a drug code "LY2405319",
  a publication date) unless it is all there is (a scan titled "84736251" is named by the number).

Set on the tuning half of SciFact's titles (bench/metadata_screen.py --part tune) and reported once on the other
half (docs/benchmarks.md, "Metadata screen").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from voiceassist.models import PhiEntity
from voiceassist.phi.detection import whole_word_span
from voiceassist.phi.word_lists import ENGLISH, name_words, stop_words

HEADLINE_SHARE = 0.8
HEADLINE_MIN_WORDS = 3
CUED_NAME_SCORE = 0.9  # a name after a cue ("Mr", "patient", "'s daughter"): phi/names.py's STRONG
CONTEXT_SCORE = 0.7  # a pattern's own score is 0.5-0.6; a cue word beside it adds 0.35 (Presidio's context)
_LONG_WORD = re.compile(r"[^\W\d_][\w'’-]{3,}")
_WORD = re.compile(r"[^\W\d_]{2,}")


def census_name(word: str) -> bool:
    """A given name or surname of the Census lists that is not an English function word (lower case)."""
    return word in name_words() and word not in stop_words()[ENGLISH]


def headline_case(text: str) -> bool:
    """Most longer words capitalised, as a published title (or a file name made from one) is written."""
    words = _LONG_WORD.findall(text)
    capitalised = sum(word[0].isupper() for word in words)
    return len(words) >= HEADLINE_MIN_WORDS and capitalised >= HEADLINE_SHARE * len(words)


def case_folded(text: str) -> str:
    """Lower case that keeps every offset (a character whose lower case is longer, "İ", stays)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def confirmed_names(entities: Sequence[PhiEntity], folded: Sequence[PhiEntity], probe: str) -> list[PhiEntity]:
    """The first reading's finds, less the names whose words are not names in the case-folded reading too."""
    names = [(e.start, e.end) for e in folded if e.entity_type == "PERSON"]

    def named(start: int, end: int) -> bool:
        return any(s <= start and end <= e for s, e in names)

    kept = []
    for entity in entities:
        if entity.entity_type == "PERSON":
            start, end = whole_word_span(probe, entity.start, entity.end)
            words = [m.span() for m in _WORD.finditer(probe, start, end)]
            if not words or not all(named(s, e) for s, e in words):
                continue
        kept.append(entity)
    return kept


def context_free(entity: PhiEntity, probe: str) -> bool:
    """A find in a title, key or file name that nothing but its shape supports (see the module)."""
    start, end = whole_word_span(probe, entity.start, entity.end)
    if entity.entity_type == "PERSON":
        words = _WORD.findall(probe[start:end])
        return (entity.score < CUED_NAME_SCORE and len(words) == 1
                and not census_name(words[0].lower()))
    return entity.score < CONTEXT_SCORE and probe[:start].strip() + probe[end:].strip() != ""
