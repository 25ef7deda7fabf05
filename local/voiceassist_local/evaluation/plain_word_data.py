"""Writes `voiceassist/_data/concepts/plain_words.txt`, English words that name no clinical thing in any sense (the
evidence score weighs them as ordinary words: query/plain_words.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.plain_word_data

A question says who it is about and how it is asked with words no reference repeats ("kindly advise", "one of my
ladies", "in her seventies", "just bumped his Cozaar up"). WordNet 3.0 (Princeton University; the WordNet 3.0
licence, quoted in the file's header; Debian's wordnet-base) files every sense of every word in one of 45
lexicographer files by what it denotes (lexnames(5WN)). A word is plain when WordNet knows it and every sense of
it, in every part of speech its form can be (WordNet's own morphology, morphy(7WN): the exception lists and the
detachment rules), lies in one of PLAIN_FILES: people, time, feelings, places, relations, motives, possession,
shapes; verbs of motion, emotion, social life, telling, competition, owning, being and weather; adverbs. A word
with a sense in any other file (the body, states, substances, artefacts, acts, processes, quantities, foods,
organisms, attributes; verbs of the body, consumption, change, contact, perception; relational adjectives) may
name a clinical thing and is not plain.

The words are those of the shipped English word list (`_data/phi/common_words.txt.gz`: SCOWL size 50, its
inflected forms included), less the concept layer's clinical vocabulary (concept_data.clinical_vocabulary and the
words of the abbreviation list's meanings, the synonym groups and MeSH's population entry terms, compared by
`terms.stem`, so "infants" of "infant" stays a topic), the one-word MeSH disease names, the drug dictionary's
names and the words who asks, where and of what source (query/setting.py: "pharmacist", "clinic", "guide", context
only where the question frames them). A word WordNet does not know (an unknown brand, "uptitrate") is never
plain. Choice and measurement: docs/decisions/0024-clinical-concepts.md (session 12).
"""

from __future__ import annotations

import gzip
import re
import sys
from functools import cache
from pathlib import Path

from voiceassist.common_words import common_words
from voiceassist.query.plain_words import CLINICAL_SENSE_FILE, PLAIN_FILE

WORDNET = Path("/usr/share/wordnet")
_LICENCE = Path("/usr/share/doc/wordnet-base/copyright")
# lexnames(5WN): the lexicographer files, numbered as data.* files give them (field 2)
LEXICOGRAPHER_FILES = (  # noqa: SIM905 - a word list reads better as text
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body noun.cognition "
    "noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive noun.object "
    "noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape "
    "noun.state noun.substance noun.time verb.body verb.change verb.cognition verb.communication verb.competition "
    "verb.consumption verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession "
    "verb.social verb.stative verb.weather adj.ppl").split()
PLAIN_FILES = frozenset((  # noqa: SIM905 - a word list reads better as text
    "noun.person noun.time noun.feeling noun.location noun.relation noun.motive noun.possession noun.shape "
    "verb.motion verb.emotion verb.social verb.communication verb.competition verb.possession verb.stative "
    "verb.weather adv.all").split())
# Session 14: where a question describes its case, a word every sense of which lies in one of these files tells the
# story and cannot be its clinical point (gate_scenario.described_reading). Never among them: the files a clinical thing
# may be filed in, the body, states, processes, substances, natural phenomena and attributes (noun.body, noun.state,
# noun.process, noun.substance, noun.phenomenon, noun.attribute), verbs of the body and of change (verb.body,
# verb.change: "swell", "worsen"), and adjectives ("wheezy", "puffy"). Three readings of the files between were
# measured leaving one writer out (evaluation/gate_scenario.py --context) and not adopted (decision 0024,
# session 14).
_WHO_WHERE_WHEN = PLAIN_FILES | frozenset((  # noqa: SIM905 - a word list reads better as text
    "noun.Tops noun.food noun.group noun.communication noun.animal noun.plant").split())
_THINGS_DONE = _WHO_WHERE_WHEN | frozenset(("noun.artifact", "noun.act", "noun.event", "noun.object"))
_EVERYTHING_ELSE = _THINGS_DONE | frozenset((  # noqa: SIM905 - a word list reads better as text
    "noun.cognition noun.quantity verb.consumption verb.contact verb.creation verb.cognition verb.perception").split())
# Session 15: the files a sense of a word that may be a case's clinical point lies in: session 14's (the body, states,
# processes, substances, natural phenomena, attributes; verbs of the body and of change: "swell", "worsen"), and the
# verbs of consumption ("drinks", "ate", "smokes": what a patient takes in is an exposure)
CLINICAL_FILES = frozenset((  # noqa: SIM905 - a word list reads better as text
    "noun.body noun.state noun.process noun.substance noun.phenomenon noun.attribute verb.body verb.change "
    "verb.consumption").split())
CONTEXT_VARIANTS = {"files W (who, where, when, food, animals, plants)": _WHO_WHERE_WHEN,
                    "files W+A (and artefacts, acts, events, objects)": _THINGS_DONE,
                    "files W+A+C (and cognition, quantities, verbs of contact, consumption)": _EVERYTHING_ELSE}
_PARTS = {"noun": "noun", "verb": "verb", "adj": "adj", "adv": "adv"}
# morphy(7WN)'s detachment rules, by part of speech
_DETACHMENT = {
    "noun": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
             ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}
_LETTERS = re.compile(r"[a-z]+")
_APOSTROPHE_WORD = re.compile(r"[a-z]+'[a-z]+")


@cache
def _index(part: str, wordnet: Path = WORDNET) -> dict[str, tuple[str, ...]]:
    """lemma -> synset offsets, from index.<part> (wndb(5WN))."""
    table = {}
    for line in (wordnet / f"index.{part}").read_text(encoding="latin-1").splitlines():
        if not line.strip() or line.startswith(" "):  # the licence at the file's head
            continue
        fields = line.split()
        pointer_count = int(fields[3])
        table[fields[0]] = tuple(fields[6 + pointer_count:])
    return table


@cache
def _files(part: str, wordnet: Path = WORDNET) -> dict[str, str]:
    """synset offset -> its lexicographer file, from data.<part>."""
    table = {}
    for line in (wordnet / f"data.{part}").read_text(encoding="latin-1").splitlines():
        if line.strip() and not line.startswith(" "):
            offset, number = line.split(" ", 2)[:2]
            table[offset] = LEXICOGRAPHER_FILES[int(number)]
    return table


@cache
def _exceptions(part: str, wordnet: Path = WORDNET) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for line in (wordnet / f"{part}.exc").read_text(encoding="latin-1").splitlines():
        if not line.strip():
            continue
        inflected, *bases = line.split()
        table[inflected] = table.get(inflected, ()) + tuple(bases)
    return table


def base_forms(word: str, part: str, wordnet: Path = WORDNET) -> list[str]:
    """WordNet's morphy: the lemmas of `part` that `word` can be an inflection of (itself included)."""
    index = _index(part, wordnet)
    candidates = [word, *_exceptions(part, wordnet).get(word, ())]
    candidates += [word[:-len(suffix)] + ending for suffix, ending in _DETACHMENT[part] if word.endswith(suffix)]
    return [c for c in dict.fromkeys(candidates) if c in index]


def lexicographer_files(word: str, wordnet: Path = WORDNET) -> set[str]:
    """The files of every sense of `word`, in every part of speech its form can be (empty: WordNet lacks it)."""
    found = set()
    for part in _PARTS:
        for base in base_forms(word, part, wordnet):
            found |= {_files(part, wordnet)[offset] for offset in _index(part, wordnet)[base]}
    return found


def is_plain(word: str, wordnet: Path = WORDNET) -> bool:
    files = lexicographer_files(word, wordnet)
    return bool(files) and files <= PLAIN_FILES


def _clinical_stems() -> frozenset[str]:
    from voiceassist.query import concepts, terminology
    from voiceassist.query.terms import stem
    from voiceassist_local.evaluation.concept_data import clinical_vocabulary
    from voiceassist_local.evaluation.setting_data import _disease_words

    words = (clinical_vocabulary() | concepts._clinical_words() | {w.lower() for w in _disease_words()}
             | {name.lower() for name in terminology.drug_names() if " " not in name})
    # who asks, where and of what source (query/setting.py) are context only where the question frames them: a
    # "pharmacist role in ..." is the topic, so a setting word is never plain
    words |= {w.lower() for w in terminology.setting_words()}
    return frozenset(stem(w) for w in words)


def stem_of(word: str) -> str:
    from voiceassist.query.terms import stem

    return stem(word)


@cache
def clinical_names() -> frozenset[str]:
    """The stems of the words of the names the concept layer reads as clinical: classes, shorthand, synonym groups,
    MeSH population terms, one-word MeSH disease names. Not the abbreviation list's meaning words ("hospital",
    "home", "clinic" are among them) nor the drug dictionary's names (its brands hold "Shrimp" and "Farm"): a word
    the concept layer reads as a drug is a drug concept, never a context word (attribute_owner._named)."""
    from voiceassist.query import population, synonyms, terminology
    from voiceassist_local.evaluation.setting_data import _disease_words

    names = (*terminology.class_forms(), *terminology.SHORTHAND,
             *terminology.SHORTHAND.values(), *(f for g in synonyms.GROUPS for f in g),
             *(f for forms in population.TERMS.values() for f in forms), *_disease_words())
    words = {w for name in names for w in _LETTERS.findall(name.lower())}
    return frozenset(stem_of(w) for w in words)


def is_context(word: str, files: frozenset[str], wordnet: Path = WORDNET) -> bool:
    """Whether every sense of `word` lies in `files` (WordNet knows it) and it is no clinical name."""
    found = lexicographer_files(word, wordnet)
    return bool(found) and found <= files and stem_of(word) not in clinical_names()


def clinical_sense_words(wordnet: Path = WORDNET) -> list[str]:
    """(Session 15) The words of the shipped English list (SCOWL 50) and the ordinary-word list with a WordNet sense
    in CLINICAL_FILES: an ordinary word the description of a case names is its story only when it is none of them
    (query/plain_words.is_story)."""
    from voiceassist.query import terminology

    words = {w.lower() for w in common_words() | terminology.ordinary_words()}
    return sorted(w for w in words if _LETTERS.fullmatch(w) and lexicographer_files(w, wordnet) & CLINICAL_FILES)


def write_clinical_sense_words(wordnet: Path = WORDNET) -> None:
    header = ["# English words a WordNet 3.0 sense of which may be a case's clinical point: the words of the",
              "# shipped English list (_data/phi/common_words.txt.gz, SCOWL size 50) and",
              "# _data/concepts/ordinary_words.txt with a sense in the lexicographer files",
              f"# {', '.join(sorted(CLINICAL_FILES))}",
              "# (Debian's wordnet-base 1:3.0; local/voiceassist_local/evaluation/plain_word_data.py).",
              "# WordNet's licence:",
              *_licence()]
    _write(CLINICAL_SENSE_FILE, header, clinical_sense_words(wordnet))


def plain_words(wordnet: Path = WORDNET) -> list[str]:
    """The shipped English words that are plain (the module's doc)."""
    from voiceassist.phi.word_lists import stop_words
    from voiceassist.query.terms import stem

    clinical = _clinical_stems()
    stop = stop_words().get("en", frozenset())
    # (session 17) and WordNet's own words written with an apostrophe ("ma'am", "o'clock"), which the English list
    # leaves out: typed so, a question reads the word whole ("what is the usual dose ma'am?")
    apostrophe = {lemma for part in _PARTS for lemma in _index(part, wordnet) if _APOSTROPHE_WORD.fullmatch(lemma)}
    return sorted(word for word in common_words() | apostrophe
                  if (_LETTERS.fullmatch(word) or _APOSTROPHE_WORD.fullmatch(word)) and len(word) > 2
                  and word not in stop and stem(word) not in clinical and is_plain(word, wordnet))


def _licence() -> list[str]:
    copyright_text = _LICENCE.read_text(encoding="utf-8")
    start = copyright_text.index("Permission to use")
    end = copyright_text.index("agrees to preserve same.", start) + len("agrees to preserve same.")
    return [f"# {line.strip().lstrip('.')}".rstrip() for line in copyright_text[start:end].splitlines()]


def write_pair_table(path: Path, header: list[str], pairs: list[tuple[str, str]]) -> None:
    """A tab-separated table of WordNet word pairs: `header` (what the pairs are and how they were read), WordNet's
    licence, then one pair a line."""
    rows = [f"{first}\t{second}" for first, second in pairs]
    path.write_text("\n".join([*header, "# WordNet's licence:", *_licence(), *rows]) + "\n", encoding="utf-8")


def _write(path: Path, header: list[str], words: list[str]) -> None:
    text = "\n".join(header + words) + "\n"
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as out:  # the same words, the same bytes
        out.write(text.encode("utf-8"))


def write_plain_words(wordnet: Path = WORDNET) -> None:
    header = ["# English words that name no clinical thing in any sense: the words of the shipped English list",
              "# (_data/phi/common_words.txt.gz, SCOWL size 50) and WordNet's words written with an apostrophe",
              "# (\"ma'am\", \"o'clock\"; session 17) every WordNet 3.0 sense of which lies in one of the",
              f"# lexicographer files {', '.join(sorted(PLAIN_FILES))}",
              "# (Debian's wordnet-base 1:3.0; local/voiceassist_local/evaluation/plain_word_data.py), less the",
              "# concept layer's clinical vocabulary. WordNet's licence:",
              *_licence()]
    _write(PLAIN_FILE, header, plain_words(wordnet))


def main(argv: list[str] | None = None) -> int:
    """Writes the plain words; `clinical-senses` (session 15): the clinical-sense words."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["clinical-senses"]:
        write_clinical_sense_words()
        print(CLINICAL_SENSE_FILE)
        return 0
    write_plain_words()
    print(PLAIN_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
