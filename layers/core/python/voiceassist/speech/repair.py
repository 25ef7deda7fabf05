"""Transcript repair: a recognizer's spelling of a knowledge-base term put back to the term.

A general-purpose recognizer splits and bends clinical words it rarely saw ("metformin" heard as "met for
min", "eGFR" as "EGFR" or "eGFR-40"). The repair compares the transcript with the knowledge base's vocabulary
(speech.vocabulary: the sourced drug dictionary's and abbreviation list's names that indexed passages use) and
rewrites a span of one to `MAX_SPAN` words to a term when

- the span's letters, joined, are the term's ("met for min" -> "metformin"), or
- they sound alike (a span that is not a `known` word: a common English word such as "severe" is heard right,
  not "severity"): their Metaphone keys (Lawrence Philips' phonetic key, from the jellyfish package) are within
  `MIN_SIMILARITY` of each other (Ratcliff/Obershelp, difflib's ratio) and their letters within
  `MIN_LETTER_SIMILARITY`; both at least `MIN_FUZZY_LETTERS` long, the keys' first sounds the same, for a term
  that is one word ("lycinopril" and "lisinopril" are both LSNPRL); where Metaphone opens the two with different
  sounds but they begin with the same consonant that Double Metaphone (its successor, from the Metaphone package)
  opens both with, the Double Metaphone keys are compared instead: Metaphone reads every opening "ch" as in
  "church", so "corthalidone" (KR0LTN) was never "chlorthalidone" (XLR0LTN; Double Metaphone KLR0LTN, the Greek
  "k": Piper's blind17_spoken, session 18), or
- the span is the term in another case ("EGFR" -> "eGFR"), or the term glued to a number by a hyphen
  ("eGFR-40" -> "eGFR 40"), or
- words said apart sound like a one-word term as above, and they are short English words (MAX_SPLIT_LETTERS)
  before a fragment that is no `known` word and no term (the recognizer's spelling of a term split: "and to
  biotic" -> "antibiotic"); words that are all English or terms ("are antihistamines", "resp rate"), and a
  fragment that is the term with another ending ("an antihistamine"), were heard right and stay, or
- words the recognizer wrote as hyphenated pieces, one of them no `known` word and no term, sound like a one-word
  term as above ("last-arton" -> "losartan"; "long-term" is English throughout and stays), or
- one word that is no `known` word is two terms glued, each found as above ("lactocacidosis" -> "lactic
  acidosis": "lactoc" sounds like "lactic", "acidosis" is one), or a short English word glued to a term as
  written ("Islactic" -> "Is lactic"), or a term as written glued to an English word of `MIN_GLUED_FOLLOWING`
  letters or more that is no English ending ("metforminactually" -> "metformin actually", espeak-ng's blind12,
  session 16), or
- words said apart at the wrong place: their letters, joined, are a short English word (MAX_SPLIT_LETTERS) and a
  term as written, and one of them is neither a `known` word nor a term ("stay unmet formin" -> "stay un
  metformin", espeak-ng's "stay on metformin", blind10_spoken, session 15); the short word stays as heard.

- a word before a number is a term written as letters and that number when the number is the term's and the word,
  in lower case or in capitals, sounds like its letters (the keys' first sounds the same, Metaphone keys and letters
  within `MIN_NUMBERED_SIMILARITY`: the number is the rest of the evidence): "curved 65", "CARB-65" -> "CURB-65". A
  word in capitals before the number is the recognizer writing the score's name as it writes "CURB-65" (Piper's
  "CURB 65" heard "CARB-65", blind7_spoken, session 15); a capitalized word ("Kirby 65") is a name and stays. A short
  English word (MAX_SPLIT_LETTERS) glued before the term's letters as written, in capitals or lower case, is that
  word and the term (Piper's "So CURB sixty-five" heard "SoCURB-65" -> "So CURB-65", blind15_spoken, session 16).

- a term that ends in its own number glued by a hyphen to a further number is the term and that number, as "eGFR-40"
  is "eGFR 40": "CURB-65-03" (Piper's "curb sixty five of three", blind16_spoken) and "CURB-65-041" (espeak-ng's "of
  zero or one", blind14_spoken) are "CURB-65 03", "CURB-65 041" (session 17): the score's value is read after the
  score's name, not after a hyphen. The number is written as heard.

- a term, a hyphen, and a word that is no `known` word and no term (a fragment) are the term and the fragment: the
  recognizer began the word after a term it knew with a hyphen, taking it for the term's compound ("azithromycin
  -dosen" for Piper's "azithromycin dose in", holdout2; "adrenaline -noster", "pneumonia -drowing", espeak-ng's
  blind16_spoken, session 17), and "azithromycin-dosen" is no drug for the pipeline where "azithromycin dosen" is. The
  fragment stays as heard; a compound of English words or terms ("first-line", "ACE-inhibitor") stays.

- the word after a term is the word the knowledge base's passages write after that term less its first letter, and
  the passages never write the word as heard after it (`followers`): espeak-ng's "CURB sixty-five score" heard "CURB-65
  core" (five decodes in four sets, session 15): the "s" heard with the number. Only a word of three letters or more,
  never one the PHI detector found. The same when the "s" was written on the term as its clitic and the word after
  it, with an "s" before it, is that follower: "CURB-65's core" -> "CURB-65 score" (blind7, blind15, session 16).

- a term written in capitals, said letter by letter (an initialism of the knowledge base: "eGFR", "CAP"), heard
  with its first letter written as something else glued before the rest of its capitals: "3GFR" and "ReggaeFR"
  for espeak-ng's "e G F R" (blind11, blind12, blind10_spoken, session 17): the letter said alone runs into the
  word before it ("Her e", "their e"). One word that is no `known` word and no term, ending in two capitals or
  more that end the term, with something before them, whose Metaphone key is the term's with its first sound
  replaced or dropped ("RKFR", "KFR" for "EKFR"). "GFR" alone (nothing before its capitals: said so) and a word
  ending in lower case ("GFRs") stay.

- words the recognizer itself doubted (`doubted`: below its word confidence threshold, adapters/local/whisper_stt
  DOUBTED_WORD), every word of the span doubted and none of them a term, sound like a one-word term as above, even
  when they are English words: a doubted "lows are tan" is the recognizer's guess at a word it did not know
  ("losartan"), while a word it was sure of is taken as heard. The route doubts no word (DOUBTED_WORD is 0: with
  Whisper base it bent only words heard right, docs/benchmarks.md "Voice", session 12).

Only vocabulary terms can be written, so a repair never adds a word that is not in the knowledge base's
terminology, and the words that stay are the recognizer's. The thresholds are measured by
bench/voice_answers.py (docs/benchmarks.md, "Voice"), tuned on the dev and holdout sets and checked on holdout2
and holdout3.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

MAX_SPAN = 3  # words joined into one term at most ("met for min")
MIN_SIMILARITY = 0.85  # difflib ratio of a span's Metaphone key to a term's (bench/voice_answers.py)
MIN_LETTER_SIMILARITY = 0.6  # and of their letters: a key drops vowels, so unlike words can share one
# English inflectional and common derivational endings: a word and the term differing only by them are one word
# in two forms, said right ("withheld"/"withhold" is caught as English, "reassessed"/"reassess" here)
ENDINGS = frozenset({"", "s", "es", "d", "ed", "ing", "e", "y", "ic", "ical", "al", "ly", "ies", "ion", "ions",
                     "er", "ers", "ity"})
MAX_SPLIT_LETTERS = 3  # an English word this short may be a piece of a term the recognizer split ("and to biotic")
MIN_FUZZY_LETTERS = 6  # shorter spans and terms are repaired only when exact: short words collide
# an English word glued after a term as written has this many letters at least ("metforminactually"): a shorter
# rest is more often an ending ("statins") than a word
MIN_GLUED_FOLLOWING = 3
# a word before a term's own number ("curved 65" for "CURB-65", Piper's blind13_spoken): the number matches exactly,
# so the word needs less (Metaphone KRFT / KRB 0.57, letters 0.6); a word that opens a different sound never matches
MIN_NUMBERED_SIMILARITY = 0.5
_NUMBERED_TERM = re.compile(r"(?P<letters>[a-z]+)(?P<number>\d+)")
_CAPITALS_AT_END = re.compile(r"[A-Z]{2,}$")
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*")
_GLUED_NUMBER = re.compile(r"^(?P<term>.+?)-(?P<number>\d[\d,.]*)$")


def letters(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


@lru_cache(maxsize=4096)
def sound(key: str) -> str:
    """The Metaphone key of a word's letters: one letter per sound, vowels kept only at the start
    ("lycinopril" and "lisinopril" are both LSNPRL). jellyfish comes with the `voice` and `local` extras (the
    local recognizer's transcripts are the ones repaired), so it is imported here, not with the module."""
    import jellyfish

    return str(jellyfish.metaphone(key)) or key


@dataclass(frozen=True)
class Vocabulary:
    """The terms a transcript may be repaired to, keyed by their letters."""

    by_letters: dict[str, str]
    by_sound: dict[str, str]
    known: frozenset[str] = frozenset()  # words heard right when heard: never bent to a term that sounds alike
    by_number: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)  # "65": (("curb", "CURB-65"),)
    # the words passages write right after a term, by the term's letters: "curb65": {"score", "of", ...}
    followers: dict[str, frozenset[str]] = field(default_factory=dict)
    initialisms: tuple[str, ...] = ()  # one-word terms of letters with two capitals or more ("eGFR", "CAP")

    @classmethod
    def of(cls, terms: Iterable[str], known: Iterable[str] = (),
           followers: dict[str, frozenset[str]] | None = None) -> Vocabulary:
        keyed: dict[str, str] = {}
        for term in terms:
            key = letters(term)
            if len(key) >= 2:
                keyed.setdefault(key, term)
        sounds = {sound(key): term for key, term in keyed.items() if len(key) >= MIN_FUZZY_LETTERS and " " not in term}
        numbered: dict[str, list[tuple[str, str]]] = {}
        for key, term in keyed.items():
            found = _NUMBERED_TERM.fullmatch(key)
            if found and " " not in term:
                numbered.setdefault(found["number"], []).append((found["letters"], term))
        initialisms = tuple(term for term in keyed.values() if term.isalpha() and sum(c.isupper() for c in term) >= 2)
        return cls(keyed, sounds, frozenset(known), {number: tuple(terms) for number, terms in numbered.items()},
                   {key: words for key, words in (followers or {}).items() if key in keyed}, initialisms)

    def numbered(self, word: str, number: str) -> str | None:
        """The term that is letters and `number` whose letters sound like `word` (MIN_NUMBERED_SIMILARITY), the
        nearest; None when the word is the term's letters as written (heard right) or none is near."""
        heard = letters(word)
        best: tuple[float, str] | None = None
        for part, term in self.by_number.get(number, ()):
            if heard == part:
                return None
            key, term_key = sound(heard), sound(part)
            if key[0] != term_key[0]:
                continue
            similarity = min(SequenceMatcher(None, key, term_key).ratio(), SequenceMatcher(None, heard, part).ratio())
            if similarity >= MIN_NUMBERED_SIMILARITY and (best is None or similarity > best[0]):
                best = similarity, term
        return best[1] if best else None

    def initialism(self, word: str) -> str | None:
        """The initialism term `word` is when its first letter was heard as something else (see the module's rule):
        "3GFR", "ReggaeFR" -> "eGFR"; None otherwise."""
        tail = _CAPITALS_AT_END.search(word)
        key = letters(word)
        if tail is None or tail.start() == 0 or key in self.known or key in self.by_letters:
            return None
        heard = sound(key)
        for term in self.initialisms:
            term_sound = sound(letters(term))
            if term.endswith(tail.group(0)) and len(term_sound) > 1 and \
                    term_sound[1:] in (heard, heard[1:]) and heard != term_sound:
                return term
        return None

    def glued(self, key: str) -> tuple[str, float] | None:
        """Two words written as one word that is no `known` word: a short English word (MAX_SPLIT_LETTERS) and a
        term as written ("islactic": "is lactic"), a term as written and an English word of MIN_GLUED_FOLLOWING
        letters or more that is no ending ("metforminactually": "metformin actually"; the longest term first), or
        two terms ("lactocacidosis": "lactic acidosis"): the split
        whose halves are terms (MIN_FUZZY_LETTERS letters each or more; exact or by sound, `closest`) with the
        highest similarity of the worse half."""
        if key in self.known or key.isdigit():
            return None
        for cut in range(1, MAX_SPLIT_LETTERS + 1):  # a short English word glued before a term ("islactic")
            if key[:cut] in self.known and len(key) - cut >= MIN_FUZZY_LETTERS and key[cut:] in self.by_letters:
                return f"{key[:cut]} {self.by_letters[key[cut:]]}", 1.0
        followed = self.term_and_word(key)
        if followed is not None:
            return followed, 1.0
        if len(key) < 2 * MIN_FUZZY_LETTERS:
            return None
        best: tuple[str, float] | None = None
        for cut in range(MIN_FUZZY_LETTERS, len(key) - MIN_FUZZY_LETTERS + 1):
            first, second = self.closest(key[:cut]), self.closest(key[cut:])
            if first is None or second is None or " " in first[0] + second[0]:
                continue
            similarity = min(first[1], second[1])
            if best is None or similarity > best[1]:
                best = f"{first[0]} {second[0]}", similarity
        return best

    def term_and_word(self, key: str) -> str | None:
        """A term as written glued to an English word of MIN_GLUED_FOLLOWING letters or more that is no ending
        ("metforminactually": "metformin actually"), the longest term first; None for a `known` word or a term.
        Tried before a term that sounds like the whole word: "amoxicillinsafe" sounds near enough to "amoxicillin"
        (Metaphone AMKSSLNSF and AMKSSLN, 0.88), which would drop the word "safe"."""
        if key in self.known or key in self.by_letters:
            return None
        for cut in range(len(key) - MIN_GLUED_FOLLOWING, MIN_FUZZY_LETTERS - 1, -1):
            rest = key[cut:]
            if key[:cut] in self.by_letters and rest in self.known and rest not in ENDINGS:
                return f"{self.by_letters[key[:cut]]} {rest}"
        return None

    def regrouped(self, key: str, pieces: Sequence[str]) -> str | None:
        """Words said apart at the wrong place (`pieces`, their letters; `key`, all of them joined): a short
        English word (MAX_SPLIT_LETTERS) and a term as written, when one piece is neither a `known` word nor a term
        (a fragment: "unmet formin" is "un metformin") and the first piece is not already the short word."""
        if not self.known or all(piece in self.known or piece in self.by_letters for piece in pieces):
            return None
        for cut in range(1, MAX_SPLIT_LETTERS + 1):
            word, rest = key[:cut], key[cut:]
            if word in self.known and pieces[0] != word and len(rest) >= MIN_FUZZY_LETTERS and rest in self.by_letters:
                return f"{word} {self.by_letters[rest]}"
        return None

    def closest(self, key: str, *, doubted: bool = False) -> tuple[str, float] | None:
        """The term whose letters are `key` (similarity 1), or the one that sounds most alike above
        MIN_SIMILARITY, with its similarity. A `known` word is heard right unless the recognizer `doubted` it."""
        if key in self.by_letters:
            return self.by_letters[key], 1.0
        if len(key) < MIN_FUZZY_LETTERS or key.isdigit() or (key in self.known and not doubted):
            return None
        heard = sound(key)
        best: tuple[str, float] | None = None
        for term_sound, term in self.by_sound.items():
            one, other = (heard, term_sound) if term_sound[0] == heard[0] else _opened_alike(key, letters(term))
            if not one or not other or one[0] != other[0] or abs(len(other) - len(one)) > len(other) // 3:
                continue
            if _inflected(key, letters(term)):
                return None  # the term with another ending, said right ("antibiotics" for "antibiotic")
            ratio = SequenceMatcher(None, one, other).ratio()
            if ratio < MIN_SIMILARITY or SequenceMatcher(None, key, letters(term)).ratio() < MIN_LETTER_SIMILARITY:
                continue
            if best is None or ratio > best[1]:
                best = term, ratio
        return best


@lru_cache(maxsize=4096)
def double_sound(key: str) -> str:
    """The primary Double Metaphone key of a word's letters (Lawrence Philips, 2000; the Metaphone package, BSD):
    Metaphone's successor, which reads spellings Metaphone reads one way only as English says them, among them an
    opening "ch" before a consonant as the Greek "k" ("chlorthalidone" KLR0LTN, where Metaphone's XLR0LTN opens
    with the sound of "church"). Imported here, not with the module, as jellyfish is (`sound`)."""
    from metaphone import doublemetaphone

    return str(doublemetaphone(key)[0])


def _opened_alike(heard: str, term: str) -> tuple[str, str]:
    """The two words' Double Metaphone keys when Metaphone heard them open with different sounds and they begin
    with the same consonant (`Vocabulary.closest`: Piper's "chlorthalidone" heard "corthalidone", blind17_spoken,
    session 18); empty keys otherwise. Double Metaphone writes every opening vowel as "A" ("anaerobic" ANRPK and
    "aerobic" ARPK, "inpatients" and "outpatients"), so words that open with a vowel are left to Metaphone, which
    keeps the vowel."""
    if heard[:1] != term[:1]:
        return "", ""
    one, other = double_sound(heard), double_sound(term)
    return (one, other) if one[:1] not in ("", "A") and one[:1] == other[:1] else ("", "")


def _inflected(one: str, other: str) -> bool:
    """Whether the words are one word with different English endings: past their shared start each has nothing
    left or one of ENDINGS ("diuretics" and "diuretic", "reassessed" and "reassess", "allergic" and "allergy";
    not "metform" and "metformin")."""
    shared = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        shared += 1
    return shared >= MIN_FUZZY_LETTERS - 1 and one[shared:] in ENDINGS and other[shared:] in ENDINGS


def repaired(text: str, vocabulary: Vocabulary, keep: Sequence[tuple[int, int]] = (),
             doubted: Sequence[tuple[int, int]] = ()) -> str:
    """The transcript with the spans that are vocabulary terms in a recognizer's spelling rewritten; a word inside
    a `keep` span (start, end: what the PHI detector found in the transcript as heard, a patient's name) is left
    as heard, and no repaired span reaches into it. `doubted`: the spans of the words the recognizer doubted."""
    return corrections(text, vocabulary, keep, doubted)[0]


def corrections(text: str, vocabulary: Vocabulary, keep: Sequence[tuple[int, int]] = (),
                doubted: Sequence[tuple[int, int]] = ()) -> tuple[str, list[tuple[str, str]]]:
    """`repaired`'s transcript, and each change as (the words as heard, the term written for them)."""
    if not vocabulary.by_letters:
        return text, []
    tokens = [token for token in _TOKEN.finditer(text)
              if not any(start < token.end() and token.start() < end for start, end in keep)]
    unsure = frozenset(n for n, token in enumerate(tokens)
                       if any(start < token.end() and token.start() < end for start, end in doubted))
    pieces: list[str] = []
    changes: list[tuple[str, str]] = []
    position = 0
    i = 0
    while i < len(tokens):
        match = _repair_at(text, tokens, i, vocabulary, unsure)
        if match is None:
            i += 1
            continue
        span_end, replacement = match
        pieces.append(text[position:tokens[i].start()])
        pieces.append(replacement)
        changes.append((text[tokens[i].start():tokens[span_end - 1].end()], replacement))
        position = tokens[span_end - 1].end()
        i = span_end
    pieces.append(text[position:])
    return "".join(pieces), changes


def _repair_at(text: str, tokens: list[re.Match[str]], i: int, vocabulary: Vocabulary,
               unsure: frozenset[int] = frozenset()) -> tuple[int, str] | None:
    """(the index after the span, its replacement) for the longest repairable span from token i, or None; `unsure`:
    the indexes of the tokens the recognizer doubted."""
    numbered = _numbered(text, tokens, i, vocabulary)
    if numbered is not None:
        return numbered
    follower = _follower(text, tokens, i, vocabulary)
    if follower is not None:
        return i + 1, follower
    possessive = _possessive_follower(text, tokens, i, vocabulary)
    if possessive is not None:
        return i + 2, possessive
    initialism = vocabulary.initialism(tokens[i].group(0))
    if initialism is not None:
        return i + 1, initialism
    if _fragment_after_term(text, tokens, i, vocabulary):
        return i + 2, f"{tokens[i].group(0)} {tokens[i + 1].group(0)}"
    valued = _numbered_glued_number(text, tokens, i, vocabulary)
    if valued is not None:
        return i + 3, valued
    glued = _GLUED_NUMBER.match(tokens[i].group(0) + _following_number(text, tokens, i))
    if glued and letters(glued["term"]) in vocabulary.by_letters:
        return i + 2, f"{vocabulary.by_letters[letters(glued['term'])]} {glued['number']}"
    best: tuple[float, int, str] | None = None  # (similarity, words, term)
    for size in range(1, min(MAX_SPAN, len(tokens) - i) + 1):
        span = tokens[i:i + size]
        if size > 1 and any(text[a.end():b.start()].strip() not in ("", "-")
                            for a, b in zip(span, span[1:], strict=False)):
            break  # words across punctuation are not one word
        original = text[span[0].start():span[-1].end()]
        key = letters(original)
        if size > 1 and any(c.isdigit() for c in key):
            break
        # words said apart are one term when their letters are the term's, or when they sound like it and one of
        # them is no English word: a near match across words said right would swallow one ("are antihistamines"
        # is not "antihistamines")
        if size == 1:
            followed = vocabulary.term_and_word(key)
            found = (followed, 1.0) if followed else vocabulary.closest(key) or vocabulary.glued(key)
        elif key in vocabulary.by_letters:
            found = vocabulary.by_letters[key], 1.0
        elif regrouped := vocabulary.regrouped(key, [letters(token.group(0)) for token in span]):
            found = regrouped, 1.0
        elif _split_off(span, vocabulary):
            found = vocabulary.closest(key)
            if found is not None and (" " in found[0] or _inflected(letters(span[-1].group(0)), letters(found[0]))
                                      or best is not None and found[1] <= best[0]):
                found = None  # a one-word term only, not the fragment's own term, and nearer than a part of it
        elif _hyphenated(text, span, vocabulary):
            found = vocabulary.closest(key)
            if found is not None and " " in found[0]:
                found = None  # pieces of one word are one word
        else:
            found = None
        if found is None and _doubted(span, range(i, i + size), unsure, vocabulary):
            found = vocabulary.closest(key, doubted=True)
            if found is not None and " " in found[0]:
                found = None  # a one-word term only
        if found is None:
            continue
        term, similarity = found
        if term[0].islower() and original[0].isupper() and " " in term and letters(term.split()[0]) not in \
                vocabulary.by_letters:
            term = term[0].upper() + term[1:]  # the glued English word keeps its capital ("Islactic": "Is lactic")
        if original.lower() == term.lower() and (term == original or term.islower()):
            return None  # the term as said (only its capital may differ: "Metformin" opening a sentence)
        if best is None or (similarity, size) > best[:2]:
            best = similarity, size, term
    return (i + best[1], best[2]) if best else None


def _doubted(span: Sequence[re.Match[str]], indexes: range, unsure: frozenset[int], vocabulary: Vocabulary) -> bool:
    """Whether the recognizer doubted every word of the span and heard none of them as a term: its guess at a word
    it did not know ("lows are tan" for "losartan"), which may be English words."""
    return bool(unsure) and all(n in unsure for n in indexes) and \
        not any(letters(token.group(0)) in vocabulary.by_letters for token in span)


def _split_off(span: Sequence[re.Match[str]], vocabulary: Vocabulary) -> bool:
    """Whether the words look like one word the recognizer split: short English words (MAX_SPLIT_LETTERS letters
    at most: "and to", "a") before a fragment that is no English word and no term ("biotic")."""
    *leading, last = (letters(token.group(0)) for token in span)
    return bool(vocabulary.known) and last not in vocabulary.known and last not in vocabulary.by_letters and \
        all(word in vocabulary.known and len(word) <= MAX_SPLIT_LETTERS for word in leading)


def _hyphenated(text: str, span: Sequence[re.Match[str]], vocabulary: Vocabulary) -> bool:
    """Whether the words are one word the recognizer wrote in hyphenated pieces ("last-arton" for "losartan"):
    joined by hyphens only, and one piece neither an English word nor a term. A compound said right ("long-term",
    "first-line", "life-threatening") is English words throughout and stays."""
    pieces = [letters(token.group(0)) for token in span]
    joined = all(text[a.end():b.start()] == "-" for a, b in zip(span, span[1:], strict=False))
    unknown = any(piece not in vocabulary.known and piece not in vocabulary.by_letters for piece in pieces)
    return bool(vocabulary.known) and joined and unknown


def _numbered(text: str, tokens: list[re.Match[str]], i: int, vocabulary: Vocabulary) -> tuple[int, str] | None:
    """(i + 2, the term) when token i, a word in lower case or in capitals, and the number after it (a space or a
    hyphen between) are a term in the recognizer's spelling ("curved 65", "CARB-65": "CURB-65"); a capitalized word
    (a name) is never taken. A short English word (MAX_SPLIT_LETTERS) glued before the term's letters as written is
    the word and the term (Piper's "So CURB sixty-five" heard "SoCURB-65", blind15_spoken, session 16)."""
    if not vocabulary.by_number or i + 1 >= len(tokens):
        return None
    if text[tokens[i].end():tokens[i + 1].start()] not in (" ", "-"):
        return None
    word, number = tokens[i].group(0), tokens[i + 1].group(0)
    if not (word.isalpha() and number.isdigit()):
        return None
    for cut in range(1, MAX_SPLIT_LETTERS + 1):  # a short English word glued before the term's letters ("SoCURB-65")
        head, rest = word[:cut], word[cut:]
        if head.lower() in vocabulary.known and (rest.isupper() or rest.islower()) and \
                (key := letters(rest) + number) in vocabulary.by_letters and _NUMBERED_TERM.fullmatch(key):
            return i + 2, f"{head} {vocabulary.by_letters[key]}"
    if not (word.islower() or word.isupper() and len(word) > 1):
        return None
    term = vocabulary.numbered(word, number)
    return (i + 2, term) if term is not None else None


def _fragment_after_term(text: str, tokens: list[re.Match[str]], i: int, vocabulary: Vocabulary) -> bool:
    """Whether token i is a term as written and a hyphen joins it to token i + 1, a lower-case word that is no `known`
    word and no term, with nothing joined after it ("azithromycin-dosen")."""
    if not vocabulary.known or i + 1 >= len(tokens) or text[tokens[i].end():tokens[i + 1].start()] != "-":
        return False
    term, word = letters(tokens[i].group(0)), tokens[i + 1].group(0)
    after = text[tokens[i + 1].end():tokens[i + 1].end() + 1]
    return term in vocabulary.by_letters and word.isalpha() and word.islower() and after != "-" and \
        word not in vocabulary.known and word not in vocabulary.by_letters and \
        term + word not in vocabulary.by_letters


def _numbered_glued_number(text: str, tokens: list[re.Match[str]], i: int, vocabulary: Vocabulary) -> str | None:
    """The term and the number when tokens i and i + 1 are a term with its own number ("CURB-65", "curb 65") and a
    hyphen glues a further number to it ("CURB-65-03": "CURB-65 03"); None otherwise."""
    if not vocabulary.by_number or i + 2 >= len(tokens):
        return None
    word, number, value = (token.group(0) for token in tokens[i:i + 3])
    key = letters(word) + number
    if not (word.isalpha() and number.isdigit() and value.isdigit()) or key not in vocabulary.by_letters or \
            text[tokens[i].end():tokens[i + 1].start()] not in (" ", "-") or \
            text[tokens[i + 1].end():tokens[i + 2].start()] != "-" or not _NUMBERED_TERM.fullmatch(key):
        return None
    return f"{vocabulary.by_letters[key]} {value}"


def _follower(text: str, tokens: list[re.Match[str]], i: int, vocabulary: Vocabulary) -> str | None:
    """The word the passages write after the term before token i, when token i is that word less its first letter
    and never follows the term there ("CURB-65 core": "score"); None otherwise. The term is the text from the last
    space before token i, its tokens all in `tokens` (none the PHI detector found)."""
    word = tokens[i].group(0)
    if not vocabulary.followers or i == 0 or len(word) < 3 or not word.isalpha() or not word.islower() or \
            text[tokens[i - 1].end():tokens[i].start()] != " ":
        return None
    start = text.rfind(" ", 0, tokens[i - 1].start()) + 1
    key = letters(text[start:tokens[i - 1].end()])
    covered = "".join(letters(token.group(0)) for token in tokens[:i] if token.start() >= start)
    after = vocabulary.followers.get(key)
    if not after or covered != key or word in after:
        return None
    written = sorted(follower for follower in after if follower[1:] == word)
    return written[0] if len(written) == 1 else None


def _possessive_follower(text: str, tokens: list[re.Match[str]], i: int, vocabulary: Vocabulary) -> str | None:
    """Token i, the end of a term with the clitic "'s", and the word after it, when that word with an "s" before it is
    the word the passages write after the term and the word as heard never follows it there: the term and the
    follower ("CURB-65's core": "65 score"; espeak-ng's "CURB sixty-five score", blind15_spoken, session 16: the "s"
    of "score" heard as the score's possessive). The rule of `_follower` with the "s" written on the term."""
    if not vocabulary.followers or i + 1 >= len(tokens):
        return None
    token, word = tokens[i].group(0), tokens[i + 1].group(0)
    if token[-2:] not in ("'s", "’s") or len(word) < 3 or not word.isalpha() or not word.islower() or \
            text[tokens[i].end():tokens[i + 1].start()] != " ":
        return None
    start = text.rfind(" ", 0, tokens[i].start()) + 1
    key = letters(text[start:tokens[i].end() - 2])
    covered = "".join(letters(t.group(0)) for t in tokens[:i + 1] if t.start() >= start)
    after = vocabulary.followers.get(key)
    if not after or covered != key + "s" or word in after or "s" + word not in after:
        return None
    return f"{token[:-2]} s{word}"


def _following_number(text: str, tokens: list[re.Match[str]], i: int) -> str:
    """'-40' when token i is followed by a hyphen and a number token ("eGFR-40")."""
    if i + 1 >= len(tokens) or text[tokens[i].end():tokens[i + 1].start()] != "-":
        return ""
    following = tokens[i + 1].group(0)
    return "-" + following if following[0].isdigit() else ""

