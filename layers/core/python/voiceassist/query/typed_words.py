"""Words a question types that say how it is asked, not what about: another language's function words mixed in,
particles and interjections, short unknown words where a particle stands, phone typos of generic question words,
contractions, English function words and ordinary words (query/question_concepts.py leaves them out or weighs them
as ordinary words); and a clinical word cut short, read as the words and drugs it begins."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from voiceassist.common_words import common_words
from voiceassist.phi.word_lists import CONTRACTIONS, MIN_FOREIGN_STOP_WORDS, stop_words, word_list
from voiceassist.query import plain_words, terminology
from voiceassist.query.concept_weights import GENERIC_WORDS
from voiceassist.query.concepts import clinical_words, completions, drug_mark, is_clinical
from voiceassist.query.terms import content_terms, stem
from voiceassist.query.typed_quantities import _NUMERALS

_SURFACE_WORD = re.compile(r"[^\W_]+(?:[-'/][^\W_]+)*")  # any alphabet's letters: "máxima" stays whole


def _completed(word: str) -> tuple[frozenset[str], ...]:
    """The alternatives a truncated clinical word stands for: each clinical word it begins (as its stemmed terms)
    and each drug (its mark); none for a word known as typed (concepts.completions)."""
    completion = completions(word)
    if completion is None:
        return ()
    words = (content_terms(w) for w in completion.words)
    return (*(w for w in words if w), *(frozenset({drug_mark(g)}) for g in completion.drugs))


# Another language's function words mixed into an English question ("CURB-65 score 2 wala patient - admit karna hai ya
# ghar bhejna?", "metformin start kaise karein"): the stop words of the Latin-script lists of stopwords-iso (MIT) and of
# Hindi as typed in the Latin script (hinglishswd), less every word SCOWL's English lists hold in lower case
# (terminology.mixed_stop_words). A word counts only when the concept layer does not know it (a drug, an
# abbreviation as typed or in lower case, a disease, a clinical word) and it is not typed in capitals (an acronym);
# and only in a language whose list holds at least MIN_FOREIGN_STOP_WORDS of the question's such words, as
# foreign_function_words reads a question written wholly in another language: one stray word ("pred" is a Czech
# preposition, "od" a Polish one, "bd" in no language's list but the English one) is shorthand, not another language.
def mixed_function_words(words: Sequence[str], besides: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words of a question (as typed) that are another language's function words mixed into it, lower case;
    the lists of the languages `besides` left out."""
    unknown = {w.lower() for w in words if w.isalpha() and not (len(w) > 1 and w.isupper())}
    unknown = {w for w in unknown if not _clinical_vocabulary(w)}
    found: set[str] = set()
    for language, stops in terminology.mixed_stop_words().items():
        if language in besides:
            continue
        held = unknown & stops
        if len(held) >= MIN_FOREIGN_STOP_WORDS:
            found |= held
    return frozenset(found)


# A particle or interjection typed into an English question ("how fast uptitrate metformin ah, every week ok?", "soy
# sauce, wah, what daily sodium limit", "yeah nah, can I start two drugs", "ja so quick one"): a word some language's
# stop-word list holds (stopwords-iso, MIT, English's list included) that WordNet 3.0 knows in no part of speech
# (terminology.particles), typed in lower case where a particle stands outside the clause's syntax (an interjection
# enters into no syntactic relation: Quirk et al. 1985, on interjections): the question's first word, or the word
# right before a clause's end (a comma, semicolon, colon, question or exclamation mark, full stop, spaced dash) or
# the question's end. Never a word the concept layer knows (a drug, an abbreviation as typed or in lower case, a
# disease, a clinical word) or one cut short ("pred": shorthand stands where a noun does); never an English function
# word ("since", "else", "whats": weighed as one already, _ordinary). One stray word of another language inside a
# clause ("od", "pred") is not read here (mixed_function_words needs two).
_PARTICLE_PLACE = re.compile(r"(?:^|(?<=[\s,;(]))([a-z]+)(?=[ \t]*(?:[,;:?!.]|[ \t][-\u2013\u2014][ \t]|$))"
                             r"|^([a-z]+)\b")


def typed_particles(text: str) -> frozenset[str]:
    """The words of `text` typed as a particle or interjection where one stands (lower case)."""
    found = {m.group(1) or m.group(2) for m in _PARTICLE_PLACE.finditer(text.strip())}
    return frozenset(w for w in found if w in terminology.particles() and stem(w) not in _ordinary()
                     and not _clinical_vocabulary(w) and not _completed(w))


# A short word that no English list and no vocabulary of the concept layer holds, typed where a particle or a term of
# address stands: a pidgin's, a creole's or another language's word inside an English question ("Wat is the IM
# adrenaline dose per kg abeg?", "still wheezing leh", "Max dose metformin per doba?", "Oga, good evening sir",
# "Bwoy, big man", "Duw, how often"). Where it stands is typed_particles' place (the question's first word, or right
# before a clause's end), or the question's first word capitalised before a comma (a term of address or a greeting:
# an interjection or vocative enters into no syntactic relation, Quirk et al. 1985). Unknown means: not in wordfreq's
# English words (Zipf >= 3), SCOWL's size-50 list or the ordinary and plain words; no drug, class, shorthand,
# abbreviation in any case, disease or clinical word, nor a clinical word or drug it begins. At most
# MAX_UNKNOWN_PARTICLE letters, with a vowel: an unknown brand ("Piriton") is a longer word, and one the drug
# dictionary lacks stays a topic, as does any longer unknown word ("Pacjent"; MIRAGE's "anterior nares.", and its
# OCR's "pubey?", "funga." for puberty and fungal, are five letters); a lower-case abbreviation has no vowel ("wave of
# jvp."). A word with another alphabet's letters is not read here ("Ciśnienie": the other language's content word).
# Read as typed, before the concepts found are written as spaces ("post paum hemorrhage?" puts no "paum" at an end).
MAX_UNKNOWN_PARTICLE = 4
_VOWEL = re.compile(r"[aeiouy]")
_ADDRESS_PLACE = re.compile(r"^\s*([A-Z][a-z]+)(?=[ \t]*,)")


def unknown_particles(text: str) -> frozenset[str]:
    """The words of `text` (lower case) that no vocabulary here knows, typed as a particle or a term of address."""
    found = {m.group(1) or m.group(2) for m in _PARTICLE_PLACE.finditer(text.strip())}
    if (address := _ADDRESS_PLACE.match(text)) is not None:
        found.add(address.group(1).lower())
    return frozenset(w for w in found if 2 <= len(w) <= MAX_UNKNOWN_PARTICLE and w.isascii() and _VOWEL.search(w)
                     and _unknown(w))


def _unknown(word: str) -> bool:
    return not (word in terminology.english_words() or word in common_words() or plain_words.is_plain(word)
                or stem(word) in _ordinary() or _clinical_vocabulary(word)
                or word in terminology.folded_abbreviations() or _completed(word))


# A phone typo of a word that says what is asked ("strated", "strting", "chnage"): a lower-case word of MIN_TYPO
# letters or more that no vocabulary here knows (_unknown_long: no English list, no clinical word, drug, abbreviation
# or completion, not SCOWL's size-70 words near a term) one swap of two neighbouring letters or one left-out letter
# (the commonest slips on a phone's keyboard, beside a neighbouring key) from exactly one generic question word
# (GENERIC_WORDS) of wordfreq Zipf TYPO_ZIPF or more is that word. Only generic words: read against every frequent
# English word, MIRAGE's anatomy "articular" and "costal" became "particular" and "coastal" (clinical words the
# vocabulary here lacks). Decision 0024, session 18.
MIN_TYPO = 6
TYPO_ZIPF = 4.0
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def phone_typo(word: str) -> str | None:
    """The generic question word one swap of two neighbouring letters or one left-out letter from an unknown word."""
    lower = word.lower()
    if len(lower) < MIN_TYPO or not lower.isalpha() or not lower.isascii() or not word.islower() \
            or not _unknown_long(lower):
        return None
    english = terminology.english_words()
    swaps = {lower[:i] + lower[i + 1] + lower[i] + lower[i + 2:] for i in range(len(lower) - 1)}
    inserts = {lower[:i] + c + lower[i:] for i in range(len(lower) + 1) for c in _LETTERS}
    found = {w for w in swaps | inserts if english.get(w, 0.0) >= TYPO_ZIPF and stem(w) in GENERIC_WORDS}
    return found.pop() if len(found) == 1 else None


def _unknown_long(word: str) -> bool:
    return not (word in terminology.english_words() or word in common_words() or plain_words.is_plain(word)
                or _clinical_vocabulary(word) or word in terminology.folded_abbreviations() or _completed(word)
                or word in terminology.english_near_terms())


def _clinical_vocabulary(word: str) -> bool:
    """Whether the concept layer knows a lower-case word: a drug, class, shorthand, abbreviation (as typed, or typed
    in lower case), disease or a word of the clinical vocabulary."""
    return is_clinical(word) or word in clinical_words() or word in terminology.SHORTHAND


def _typed_contraction(word: str) -> bool:
    """A contraction typed with its apostrophe ("won't", "she'll", "they've"): spaCy's contractions list holds it
    without one ("wont"), and a function word it is either way."""
    return "'" in word and word.lower().replace("'", "") in word_list(CONTRACTIONS)


@lru_cache(maxsize=1)
def _ordinary() -> frozenset[str]:
    """The stems of frequent English words that no clinical vocabulary uses ("fast", "together", "enough"):
    they say how a question is asked, like GENERIC_WORDS (query/terminology.py, ordinary_words)."""
    return frozenset(stem(w) for w in terminology.ordinary_words()) | _function_words()


@lru_cache(maxsize=1)
def _function_words() -> frozenset[str]:
    """spaCy's English stop words (MIT; shipped in _data/phi/stop_words.tsv): function words ("per", "without",
    "whereas") and numerals, said whatever the topic, so never a topic of their own; the same weight as an
    ordinary word ("per kilo": the passage's "0.01 mg/kg" needs no "per"). With them spaCy's contractions typed
    without the apostrophe ("theyve", "dont", "wont"; its English tokenizer exceptions, in
    _data/phi/contractions.txt), which leave out the words of their own ("ill", "well", "its"). And the English
    cardinal numbers said in words (population.CARDINAL_WORDS: spaCy's list has "one" and "forty" but not "zero",
    "seven" or "thirty"; and the multipliers, _NUMERALS), a number typed in digits being no topic either."""
    return frozenset(stem(w) for w in stop_words().get("en", frozenset()) | word_list(CONTRACTIONS) | _NUMERALS
                     if w.isalpha())
