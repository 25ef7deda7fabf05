"""A surname after a title or a bed number, typed the way people type it (docs/phi.md, "Names").

"Mrs o'brien-kelly, 71, new AF", "mr nguyen 64", "bed 12 kowalczyk", "Frau herrmann-etzler", "Sra. heredia":
after a title (English, German, French, Spanish, Italian and Dutch courtesy and professional titles) or a bed,
room or bay number, the next words are a name however they are cased, hyphenated or apostrophised. Not a name:
a stop word, another title, a clinical word ("Mr. Hyde syndrome"), and a lower-case English word that no US
Census name list holds ("Dr recommended", "bed 3 needs", "mr grade 3" for mitral regurgitation, "ms flare").
A lower-case word outside the English vocabulary is a name whatever the tagger guesses for it ("mr radisch").
Titles written in capitals inside mixed-case text are abbreviations, not titles ("MS contin", "severe MR"),
and "M." before a lower-case Latin epithet is a genus ("M. pneumoniae"), not Monsieur.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import regex as re
from spacy.tokens import Doc, Span, Token

from voiceassist.phi.word_lists import GIVEN_NAMES, name_words, word_list

PLACE_CUE = re.compile(r"(?i)\b(?:bed|room|bay|cubicle)\s*(?:no\.?\s*)?\d{1,3}[a-z]?\b\s*[,:;-]?\s*")
# Courtesy and professional titles as clinicians write them before a surname, with or without a full stop.
TITLES = frozenset([
    "mr", "mrs", "ms", "mx", "miss", "dr", "prof", "mister",  # English
    "herr", "frau",  # German
    "mme", "mlle",  # French ("M." needs its full stop: TITLE_PATTERN)
    "sr", "sra", "srta",  # Spanish
    "sig", "sig.ra", "dott",  # Italian
    "dhr", "mevr",  # Dutch
])
# The regex alternative (for a case-insensitive cue) matching one title: a listed word, or "M." for Monsieur.
TITLE_PATTERN = r"(?:" + "|".join(sorted((re.escape(t) for t in TITLES), key=len, reverse=True)) + r")\b\.?" \
    r"|(?<![\w.])m\.(?=\s)"
# How far back from the spaces before a name a title is looked for: the longest title, with room to spare (the
# whole text before each title made the search quadratic in a text of titles).
_TITLE_REACH = 64
_TEXT = "voiceassist.text"  # the doc's joined text, in its user_data
_TITLE_BEFORE = re.compile(r"(?i)(?P<title>" + TITLE_PATTERN + r")\s*$")
_TYPED_NAME = re.compile(r"\p{L}[\p{L}\p{M}]*(?:['’]\p{L}[\p{L}\p{M}]*)*")  # marks: Devanagari "राहुल"
_LATIN_EPITHET = re.compile(r"(?:ae|ii|is|um|us|i|a|es)$")  # "M. pneumoniae", "M. tuberculosis"
_APOSTROPHE = re.compile(r"['’]")
_NOT_NAMES = ("VB", "MD", "RB", "JJ", "IN", "CD")  # verbs, modals, adverbs, adjectives, numbers
_HYPHENS = {"-", "‐"}
MAX_WORDS = 3
_AGE = re.compile(r"(?:1[01]\d|120|\d{1,2})(?:y|yo|y/o)?")  # "55", "55yo" (years, as a case is introduced)
_AGE_WORDS = frozenset({"y", "yo", "y/o", "yr", "yrs", "year", "years", "m", "f"})
_TIME_ENTITIES = frozenset({"DATE", "TIME"})


def text_of(doc: Doc) -> str:
    """The doc's text, joined once (spaCy's Doc.text joins every token again at each call)."""
    text = doc.user_data.get(_TEXT)
    if not isinstance(text, str):
        text = doc.user_data[_TEXT] = doc.text
    return text


def first_token_from(doc: Doc, char: int) -> int | None:
    """The index of the first token that starts at or after `char` (None past the last), by bisection. A scan from
    the doc's start (and Doc.text, joined again) for each title or cue made a text of them ("Mr Mr Mr ...", 4,000
    characters) quadratic: about 10 s in the detector, which then failed closed for every question queued behind."""
    index = bisect.bisect_left(range(len(doc)), char, key=lambda i: doc[i].idx)
    return index if index < len(doc) else None


def name_after_title(doc: Doc, char: int, *, particles: frozenset[str],
                     clinical: Callable[[Token], bool], known: Callable[[Token], bool], place: bool = False
                     ) -> Span | None:
    """The name that starts at the first token at or after `char`: up to three words joined by spaces or by
    hyphens written without spaces ("smith-jones"), or None. `known` says whether a word is English. After a
    `place` (a bed, room or bay number) rather than a title, a lower-case English word that is also a Census
    name is a name only where a name stands (`_named_place`): "bed 12 baker needs", not "Bed 7, post-op day 2"."""
    text = text_of(doc)
    before = char
    while before > 0 and text[before - 1].isspace():  # "Mr" then any run of spaces before the name
        before -= 1
    title = _TITLE_BEFORE.search(text[max(0, before - _TITLE_REACH):char])
    if title is not None and _abbreviation_not_title(text, title.group("title"), text[char:char + _TITLE_REACH]):
        return None
    start = first_token_from(doc, char)
    if start is None or (place and not _named_place(doc[start], known)):
        return None
    end, words = start, 0
    while end < len(doc) and words < MAX_WORDS:
        token = doc[end]
        if token.text in _HYPHENS and end > start and end + 1 < len(doc) and not token.whitespace_ \
                and not doc[end - 1].whitespace_:
            end += 1
            continue
        if not (typed_name_word(token, particles=particles, clinical=clinical, known=known)
                or _first_of_compound(doc, end, particles=particles, clinical=clinical, known=known)
                or (end == start and _census_word_before_age(doc, end))
                or _listed_compound(doc, end)):
            break
        end, words = end + 1, words + 1
    while end > start and doc[end - 1].text in _HYPHENS:
        end -= 1
    return doc[start:end] if end > start else None


def typed_name_word(token: Token, *, particles: frozenset[str], clinical: Callable[[Token], bool],
                    known: Callable[[Token], bool]) -> bool:
    word = token.lower_
    if word in particles:
        return True
    if not _TYPED_NAME.fullmatch(token.text) or len(word) < 2 or token.is_stop or word in TITLES:
        return False
    listed = any(part in name_words() for part in _APOSTROPHE.split(word))
    if token.text[:1].isupper():
        return listed or not clinical(token)
    if listed and not token.tag_.startswith(_NOT_NAMES):
        return True  # "mr baker", "M. hardy-blanchard"; not "Dr said"
    if clinical(token):
        return False
    return _APOSTROPHE.search(word) is not None or not known(token)  # "o'brien" reads as English to the tagger


def _named_place(token: Token, known: Callable[[Token], bool]) -> bool:
    """The first word after a bed, room or bay number: a lower-case English word that is also a Census name
    ("post", "day", "young", "white") describes the patient there, unless an age, a verb or the sentence's end
    follows it as after a name ("bed 12 baker, 71", "bed 3 white needs a review", "bay 2: rose"). A word joined
    to the next by a hyphen ("post-op"), followed by a noun or adjective ("young man", "post op"), or read as a
    time by spaCy's NER ("day 2"; not a given name: "june"), is no name."""
    if not (token.is_lower and token.lower_ in name_words() and known(token)):
        return True
    if token.ent_type_ in _TIME_ENTITIES and token.lower_ not in word_list(GIVEN_NAMES):
        return False  # "bay 3, day 2 of IV": a time (spaCy's NER), unless a given name ("bed 4 june, 71")
    if _census_word_before_age(token.doc, token.i):
        return True
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if after is None:
        return True
    if after.text in _HYPHENS and not token.whitespace_:
        return False
    return not after.tag_.startswith(("NN", "JJ"))


def _first_of_compound(doc: Doc, i: int, **tests: Callable[[Token], bool] | frozenset[str]) -> bool:
    """An English word hyphenated to a name without spaces is part of it ("warmer-birnbaum")."""
    token = doc[i]
    if i + 2 >= len(doc) or token.whitespace_ or doc[i + 1].text not in _HYPHENS or doc[i + 1].whitespace_:
        return False
    return bool(_TYPED_NAME.fullmatch(token.text)) and not token.is_stop \
        and typed_name_word(doc[i + 2], **tests)  # type: ignore[arg-type]


def _census_word_before_age(doc: Doc, i: int) -> bool:
    """A Census name that the tagger reads as an English word ("mr young", "ms white"), right after the title and
    right before an age ("mr young 55", "Ms white, 50"): the title-name-age order of a clinician's case."""
    token = doc[i]
    if token.is_stop or not token.is_lower or token.lower_ not in name_words():
        return False
    after = i + 1 + (i + 1 < len(doc) and doc[i + 1].text == ",")
    if after >= len(doc) or _AGE.fullmatch(doc[after].text) is None:
        return False
    follows = doc[after + 1] if after + 1 < len(doc) else None  # an age, not an amount ("Dr said 5 mg")
    return follows is None or follows.is_punct or follows.lower_ in _AGE_WORDS \
        or not follows.tag_.startswith(("NN", "CD"))


def _listed_compound(doc: Doc, i: int) -> bool:
    """Two Census names hyphenated without spaces ("white-white", "young-baker"), this token either half: a
    double-barrelled surname, whatever the tagger reads each half as."""
    for left in (i, i - 2):
        if left < 0 or left + 2 >= len(doc) or doc[left + 1].text not in _HYPHENS:
            continue
        first, second = doc[left], doc[left + 2]
        if first.whitespace_ or doc[left + 1].whitespace_:
            continue
        if all(not t.is_stop and t.lower_ in name_words() and _TYPED_NAME.fullmatch(t.text) for t in (first, second)):
            return True
    return False


def _abbreviation_not_title(text: str, title: str, after: str) -> bool:
    """"MS", "MR", "SR" in capitals within mixed-case text abbreviate a disease, a valve lesion or a rhythm;
    "M." before a lower-case Latin epithet is a genus."""
    letters = title.rstrip(".")
    if len(letters) > 1 and letters.isupper() and not text.isupper():
        return True
    if letters.lower() == "m":
        first = after.lstrip().split(" ", 1)[0].rstrip(",.;:?")
        return first.islower() and bool(_LATIN_EPITHET.search(first)) and "-" not in first
    return False
