"""A surname after a title or a bed number, typed the way people type it (docs/phi.md, "Names").

"Mrs o'brien-kelly, 71, new AF", "mr nguyen 64", "bed 12 kowalczyk": after a title (Mr, Mrs, Ms, Mx, Miss, Dr,
Prof) or a bed, room or bay number, the next words are a name however they are cased, hyphenated or
apostrophised, unless they are a stop word, a verb, an adverb or adjective in lower case, a number, another
title or a clinical word ("Dr recommended", "bed 3 needs", "Mr. Hyde syndrome"). A regex and a few token tests:
as cheap as the cues it extends.
"""

from __future__ import annotations

from collections.abc import Callable

import regex as re
from spacy.tokens import Doc, Span, Token

PLACE_CUE = re.compile(r"(?i)\b(?:bed|room|bay|cubicle)\s*(?:no\.?\s*)?\d{1,3}[a-z]?\b\s*[,:;-]?\s*")
TITLES = frozenset(["mr", "mrs", "ms", "mx", "miss", "dr", "prof", "mister"])
_TYPED_NAME = re.compile(r"\p{L}+(?:['’]\p{L}+)*")
_HYPHENS = {"-", "‐"}
_NOT_NAMES = ("VB", "MD", "RB", "JJ", "IN", "CD")  # lower-case verbs, modals, adverbs, adjectives, numbers
MAX_WORDS = 3


def name_after_title(doc: Doc, char: int, *, particles: frozenset[str],
                     clinical: Callable[[Token], bool]) -> Span | None:
    """The name that starts at the first token at or after `char`: up to three words joined by spaces or by
    hyphens written without spaces ("smith-jones"), or None."""
    start = next((t.i for t in doc if t.idx >= char), None)
    if start is None:
        return None
    end, words = start, 0
    while end < len(doc) and words < MAX_WORDS:
        token = doc[end]
        if token.text in _HYPHENS and end > start and end + 1 < len(doc) and not token.whitespace_ \
                and not doc[end - 1].whitespace_:
            end += 1
            continue
        if not typed_name_word(token, particles=particles, clinical=clinical):
            break
        end, words = end + 1, words + 1
    while end > start and doc[end - 1].text in _HYPHENS:
        end -= 1
    return doc[start:end] if end > start else None


def typed_name_word(token: Token, *, particles: frozenset[str], clinical: Callable[[Token], bool]) -> bool:
    word = token.lower_
    if word in particles:
        return True
    if not _TYPED_NAME.fullmatch(token.text) or len(word) < 2 or token.is_stop or word in TITLES:
        return False
    if token.tag_.startswith(_NOT_NAMES) and not token.text[:1].isupper():
        return False
    return not clinical(token)
