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

- **A phone number is one the numbering plan has**: a digit run the phone pattern took without a cue ("the 2007
  2008 survey", a grant number) names a phone only if phonenumbers (Google's libphonenumber metadata, Apache
  2.0) calls it a valid number of PHONE_REGION, or of the country its "+" prefix gives; anything else is no find
  at all, not even a guess (a date or a range written with spaces is read by the date rules, not this one).

- **A drug, protein or chemical is no name**: a name found without a cue in a title, key or file name whose
  words are all words of the drug dictionary's names (generics, brands and synonyms of `_data/concepts/
  drugs.tsv.gz`, from drug-named-entity-recognition 2.0.9, MIT: it holds "kras", "integrin", "activin",
  "nodal", "collagen") and none a Census name is dropped ("Kras oncogene ...", "Activin-Nodal-signalling").

- **Common words and eponyms** are guesses too (name_vocabulary.py): "Diaphragm Atrophy", "Hutchinson-Gilford
  progeria syndrome".

Set on the tuning half of SciFact's titles (bench/metadata_screen.py --part tune) and reported once on the other
half (docs/benchmarks.md, "Metadata screen").
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Sequence
from functools import lru_cache

from voiceassist.models import PhiEntity
from voiceassist.phi.detection import whole_word_span
from voiceassist.phi.word_lists import ENGLISH, name_words, stop_words
from voiceassist.settings import PACKAGE_DIR

DRUGS_FILE = PACKAGE_DIR / "_data" / "concepts" / "drugs.tsv.gz"  # generic<TAB>other names|..., "#" comments

HEADLINE_SHARE = 0.8
HEADLINE_MIN_WORDS = 3
CUED_NAME_SCORE = 0.9  # a name after a cue ("Mr", "patient", "'s daughter"): phi/names.py's STRONG
CONTEXT_SCORE = 0.7  # a pattern's own score is 0.5-0.6; a cue word beside it adds 0.35 (Presidio's context)
PHONE_REGION = "US"  # the numbering plan of a number written without "+": the NANP, where HIPAA applies
_WHOLE_WORD = re.compile(r"(?<![^\W_])[^\W\d_]{2,}(?![^\W_])")  # letters only, with no letter or digit beside
# Words of a name that are words of everything else too: never redacted on their own ("Maria de la Cruz")
NAME_PARTICLES = frozenset({"de", "la", "le", "da", "di", "du", "del", "der", "den", "van", "von", "dos", "das",
                             "los", "las", "st", "mc", "mac"})
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


def numbering_plan_phone(entity: PhiEntity, probe: str) -> bool:
    """A phone number find that a numbering plan has (a cue such as "tel" or "fax" makes any find one)."""
    if entity.entity_type != "PHONE_NUMBER" or entity.score >= CONTEXT_SCORE:
        return True
    import phonenumbers  # Presidio's own dependency: in the PHI image with it, not in every function that
    # imports the screen's module (the API reads pseudonymous keys from it)

    try:
        number = phonenumbers.parse(probe[entity.start:entity.end], PHONE_REGION)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(number)


def cued_identifier(entities: Sequence[PhiEntity]) -> bool:
    """A record number, date or other identifier that a cue ("MRN", "DOB") gave its score: the value is about
    a patient, and its capitals are a patient's name's."""
    return any(e.entity_type != "PERSON" and e.score >= CONTEXT_SCORE for e in entities)


_NEXT_WORD = re.compile(r"[\s,_-]{1,3}([^\W\d_]{2,})(?![\w'’])")
_PREVIOUS_WORD = re.compile(r"(?<![\w'’])([^\W\d_]{2,})[\s,_-]{1,3}$")


def neighbouring_names(probe: str, names: Sequence[tuple[int, int]], folded: Sequence[PhiEntity],
                       census: bool = True) -> set[str]:
    """Words beside a name found in a title, key or file name (a space, comma, "-" or "_" between) that are
    names too (lower case): outside the English vocabulary, as the case-folded reading `folded` marks them,
    capitalised where the value is not in headline case ("Mathiassen_Joseph_MRN..."), or (with `census`, in a
    title) a Census name; the surname of "Gierschner, Stefania", where the detector found the given name only.
    A key's Census words are not taken: "zebulon_plan" is a plan, "Plan" a Census name."""
    capitals = not headline_case(probe)
    # one word the folded reading takes for a name: a word outside its vocabulary (a span of several is NER's,
    # which can run on into a word: "zebulon plan")
    spans = (whole_word_span(probe, e.start, e.end) for e in folded if e.entity_type == "PERSON")
    unknown = [(s, e) for s, e in spans if len(_WORD.findall(probe[s:e])) == 1]

    def name_word(match: re.Match[str]) -> bool:
        word = match.group(1).lower()
        start, end = match.span(1)
        capitalised = capitals and match.group(1)[0].isupper() and match.group(1)[1:].islower()
        return word not in stop_words()[ENGLISH] and (
            capitalised or (census and census_name(word)) or any(s <= start and end <= e for s, e in unknown))

    words = set()
    for start, end in names:
        after, before = _NEXT_WORD.match(probe, end), _PREVIOUS_WORD.search(probe, 0, start)
        words |= {m.group(1).lower() for m in (after, before) if m is not None and name_word(m)}
    return words


def name_beside_identifier(guesses: dict[str, str]) -> bool:
    """Two weak signals of one value that together name a patient: a name guess with a Census name among its
    words, and a record number or date beside it ("Miller, Derek - 55012398 - referral letter.docx", "Kevin
    Miles - lab results 04-27-2019"); not a title's guess and a corpus id in the key."""
    return (any(kind == "PERSON" and any(census_name(word) for word in _WHOLE_WORD.findall(value))
                for value, kind in guesses.items())
            and any(kind != "PERSON" for kind in guesses.values()))


def census_names(probe: str) -> list[str]:
    """The words of a key or file name that are given names or surnames of the Census lists (lower case): a
    guess, redacted only when something else in the metadata was found (an MRN, a date of birth, a name)."""
    words = (word.lower() for word in _WHOLE_WORD.findall(probe))  # "LY2405319" is a code, not "ly"
    return [word for word in words if census_name(word) and word not in NAME_PARTICLES]


@lru_cache(maxsize=1)
def drug_vocabulary() -> frozenset[str]:
    """Every word of the drug dictionary's names (lower case), read once per process."""
    with gzip.open(DRUGS_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(word for line in lines if not line.startswith("#") for word in _WORD.findall(line.lower()))


def drug_term(entity: PhiEntity, probe: str) -> bool:
    """A name found without a cue whose words are all the drug dictionary's and none a Census name."""
    if entity.entity_type != "PERSON" or entity.score >= CUED_NAME_SCORE:
        return False
    start, end = whole_word_span(probe, entity.start, entity.end)
    words = [word.lower() for word in _WORD.findall(probe[start:end])]
    return bool(words) and all(word in drug_vocabulary() and not census_name(word) for word in words)
