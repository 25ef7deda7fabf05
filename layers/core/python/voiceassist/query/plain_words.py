"""English words that name no clinical thing in any sense ("kindly", "ladies", "seventies", "bumped", "abroad"):
every WordNet 3.0 sense of them lies in a lexicographer file of people, time, feelings, places, relations, motives,
possession or shapes, of verbs of motion, emotion, social life, telling, competition, owning, being or weather, or
of adverbs, and the concept layer's clinical vocabulary does not use them (`_data/concepts/plain_words.txt.gz`,
written by voiceassist_local.evaluation.plain_word_data; the source, its licence and the choice in
docs/decisions/0024-clinical-concepts.md, session 12). The evidence score weighs such a word as an ordinary word
(query/question_concepts.py): GENERIC_WEIGHT when a passage lacks it, fully when it holds it, never named as a
missing topic. A word WordNet does not know (an unknown brand) is never plain.

Where a question describes its case, an ordinary word none of whose WordNet senses may be a clinical point is the
story, not what is asked (is_story; `_data/concepts/clinical_sense_words.txt.gz`, written by the same module;
decision 0024, session 15).

Words of register, stance and discourse ("rationale", "technique", "prefer", "proposes"), every sense of which WordNet
files under the plain files or cognition and communication and none under medicine, weigh as plain words too
(is_register; `_data/concepts/register_words.txt.gz`, written by voiceassist_local.evaluation.register_word_data;
decision 0024, session 19).

Adverbs in -ly WordNet does not derive from an adjective ("normally": usually; "mainly", "lately") weigh as plain words
too, though their adjective is clinical vocabulary (is_usuality_adverb; `_data/concepts/usuality_adverbs.txt`, written
by voiceassist_local.evaluation.adverb_data; decision 0024, session 20, ans20b)."""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

from voiceassist.common_words import common_words
from voiceassist.query.terminology import ordinary_words
from voiceassist.settings import PACKAGE_DIR

PLAIN_FILE = PACKAGE_DIR / "_data" / "concepts" / "plain_words.txt.gz"
CLINICAL_SENSE_FILE = PACKAGE_DIR / "_data" / "concepts" / "clinical_sense_words.txt.gz"
# (session 19) WordNet 3.0's adjectives derived from a clinical noun or verb ("wheezy": "wheeze"; written by
# voiceassist_local.evaluation.derived_adjective_data)
DERIVED_ADJECTIVES_FILE = PACKAGE_DIR / "_data" / "concepts" / "derived_adjectives.tsv"
REGISTER_FILE = PACKAGE_DIR / "_data" / "concepts" / "register_words.txt.gz"
# (session 20) WordNet 3.0's people, places, foods and conveyances (written by
# voiceassist_local.evaluation.circumstance_word_data)
CIRCUMSTANCE_FILE = PACKAGE_DIR / "_data" / "concepts" / "circumstance_words.txt.gz"
# (session 20, ans20b) adverbs in -ly WordNet 3.0 does not derive from an adjective ("normally", "mainly"; written by
# voiceassist_local.evaluation.adverb_data)
USUALITY_ADVERBS_FILE = PACKAGE_DIR / "_data" / "concepts" / "usuality_adverbs.txt"


@lru_cache(maxsize=1)
def plain_words() -> frozenset[str]:
    """The words, lower case as listed (a missing file is an install error: it raises)."""
    return _read(PLAIN_FILE)


@lru_cache(maxsize=1)
def clinical_sense_words() -> frozenset[str]:
    """The words of the shipped English list and the ordinary-word list a WordNet 3.0 sense of which may be a case's
    clinical point: filed under the body, states, processes, substances, natural phenomena or attributes, or a verb
    of the body, of change or of consumption ("drinks", "back", "fit"; decision 0024, session 15)."""
    return _read(CLINICAL_SENSE_FILE)


@lru_cache(maxsize=1)
def register_words() -> frozenset[str]:
    """English words of register, stance and discourse ("rationale", "technique", "prefer", "proposes"): every WordNet
    3.0 sense of them filed under the plain files or cognition and communication, none under medicine
    (`_data/concepts/register_words.txt.gz`, written by voiceassist_local.evaluation.register_word_data; decision
    0024, session 19)."""
    return _read(REGISTER_FILE)


@lru_cache(maxsize=1)
def circumstance_words() -> dict[str, str]:
    """English words that tell a case's circumstances, each "food" or "circumstance": every WordNet 3.0 sense a
    person, a location, a food (or its animal or plant), a conveyance or a plain file's ("halibut", "ambulance",
    "taxi"; decision 0024, session 20)."""
    return dict(line.split("\t") for line in _read(CIRCUMSTANCE_FILE))


@lru_cache(maxsize=1)
def usuality_adverbs() -> frozenset[str]:
    """Adverbs in -ly with a meaning of their own, not their adjective's ("normally": usually; decision 0024,
    session 20, ans20b): weighed as plain words, though the adjective ("normal") is clinical vocabulary."""
    return frozenset(line.strip() for line in USUALITY_ADVERBS_FILE.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#"))


def _read(path: Path) -> frozenset[str]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def is_plain(word: str) -> bool:
    return word.lower() in plain_words()


def is_register(word: str) -> bool:
    """Whether a word says how a question is put (a formal or everyday register: "commencement" is not one, an act and
    an event; "rationale", "proposes", "prefer" are), not what it is about: weighed as a plain word."""
    return word.lower() in register_words()


def is_usuality_adverb(word: str) -> bool:
    return word.lower() in usuality_adverbs()


def is_circumstance(word: str, *, food: bool = True) -> bool:
    """Whether a word can only tell who is in a case, where, what was eaten (unless not `food`) or how the patient
    travels."""
    kind = circumstance_words().get(word.lower())
    return kind is not None and (food or kind != "food")


def is_story(word: str) -> bool:
    """Whether an ordinary word ("since", "otherwise", "family", "sorry") can only tell a case's story: an English
    word (the shipped English list or the ordinary-word list: query/terminology.py) no WordNet sense of which is
    filed where a clinical thing may be (clinical_sense_words). A word neither list holds is not one."""
    lower = word.lower()
    return (lower.isascii() and lower.isalpha() and (lower in common_words() or lower in ordinary_words())
            and lower not in clinical_sense_words())


@lru_cache(maxsize=1)
def _derived() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for line in DERIVED_ADJECTIVES_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            adjective, base = line.split("\t")
            table[adjective] = (*table.get(adjective, ()), base)
    return table


def derived_from(word: str) -> tuple[str, ...]:
    """The clinical nouns and verbs an adjective is formed from ("wheezy": "wheeze"; "feverish": "fever"), so a
    passage naming the sign covers the question's adjective (WordNet 3.0's derivationally related forms)."""
    return _derived().get(word.lower(), ())
