"""Writes `voiceassist/_data/concepts/register_words.txt.gz`, English words of register, stance and discourse: how a
question is put, not what it is about (the evidence score weighs them as ordinary words: query/plain_words.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.register_word_data

A question in a formal register or an everyday one names, besides its topic, what the asker thinks, prefers, says
or quotes ("the figure the reference proposes", "I prefer to avoid", "rationale pls", "proper technique"). WordNet
3.0 files such words by what they denote (lexnames(5WN)) under cognition and communication: noun.cognition
("cognitive processes and contents": "rationale", "technique", "possibility"), noun.communication ("communicative
processes and contents": "guidance", "counseling"), verb.cognition ("verbs of thinking, judging, analyzing,
doubting": "prefer", "propose"). A word is a register word when WordNet knows it and every sense of it, in every
part of speech its form can be (morphy(7WN)), lies in REGISTER_FILES: the plain files (plain_word_data.PLAIN_FILES:
people, time, feelings, places, relations, motives, possession, shapes; verbs of motion, emotion, social life,
telling, competition, owning, being, weather; adverbs) and those three; and no sense of it is medical: under
"medicine, medical specialty" or "medical science" (noun.cognition) or "practice of medicine" (noun.act) by
WordNet's hypernymy (@, @i), or in such a topic domain (;c), nor under the life sciences, mental states or scores
(MEDICAL_SYNSETS): "hematology", "regimen", "indication", "cytology", "disorientation" stay topics; and no
word its lemmas are derivationally related to (WordNet's + pointers) is of the clinical vocabulary: "refer" (to
"referral"), "respond" ("response") stay topics; and WordNet writes no sense of it with a capital letter (a name or an
initialism: "med" is "MEd", a degree, where a question's "med" is a medicine).
A word with a sense of the body, a state, a substance, an artefact, an act, a process, a quantity or an attribute,
or an adjective sense, keeps its weight (adjectives hold clinical states WordNet files as plain adjectives:
"obese", "wheezy", "drowsy"; decision 0024, session 12).

The words are those of the shipped English list (`_data/phi/common_words.txt.gz`, SCOWL size 50) less the concept
layer's clinical vocabulary, the setting words and spaCy's English stop words, as for the plain words
(plain_word_data.plain_words), and less the plain words themselves (already weighed so). Choice and measurement:
docs/decisions/0024-clinical-concepts.md (session 19).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from voiceassist.common_words import common_words
from voiceassist.query.plain_words import REGISTER_FILE
from voiceassist_local.evaluation import plain_word_data as plain

REGISTER_FILES = plain.PLAIN_FILES | frozenset(("noun.cognition", "noun.communication", "verb.cognition"))
# WordNet 3.0 synsets (part of speech, offset in data.<part>) under which a sense may be a clinical topic:
# "medicine, medical specialty", "medical science" (noun.cognition) and "medicine, practice of medicine" (noun.act);
# "life science, bioscience" (the sciences of living things: "cytology", "morphology"); "psychological state, mental
# condition" (noun.state: "disorientation" is a confusion); "mark, grade, score" (what a clinical score gives:
# "percentile")
MEDICAL_SYNSETS = frozenset({("noun", "06043075"), ("noun", "06045562"), ("noun", "00612160"), ("noun", "06037298"),
                             ("noun", "14373582"), ("noun", "05737153")})
_POINTER_PARTS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
_UPWARD = frozenset({"@", "@i", ";c"})  # hypernym, instance hypernym, domain of synset (topic)


@cache
def _synsets(part: str, wordnet: Path = plain.WORDNET) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """synset offset -> (its words, its pointers as "symbol offset part source/target"): data.<part>, wndb(5WN)."""
    table = {}
    for line in (wordnet / f"data.{part}").read_text(encoding="latin-1").splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        fields = line.split(" | ")[0].split()
        count = int(fields[3], 16)  # offset, file number, synset type, word count, then word and lex id pairs
        at = 4 + 2 * count
        words = tuple(fields[4 + 2 * i] for i in range(count))  # as WordNet writes them ("MEd", "FTP")
        pointers = tuple(" ".join(fields[at + 1 + 4 * i:at + 5 + 4 * i]) for i in range(int(fields[at])))
        table[fields[0]] = (words, pointers)
    return table


def _upward(part: str, offset: str, wordnet: Path) -> list[tuple[str, str]]:
    """The synsets a synset's hypernym, instance-hypernym and topic-domain pointers reach."""
    found = []
    for pointer in _synsets(part, wordnet)[offset][1]:
        symbol, target, pos, _ = pointer.split()
        if symbol in _UPWARD:
            found.append((_POINTER_PARTS[pos], target))
    return found


def derived_words(word: str, wordnet: Path = plain.WORDNET) -> set[str]:
    """The words WordNet's derivationally related form pointers (+) lead to from `word`'s lemmas ("refer":
    "referral", "reference", "referee")."""
    found = set()
    for part in plain._PARTS:
        for base in plain.base_forms(word, part, wordnet):
            for offset in plain._index(part, wordnet)[base]:
                words, pointers = _synsets(part, wordnet)[offset]
                for pointer in pointers:
                    symbol, target, pos, ends = pointer.split()
                    source, aim = int(ends[:2], 16), int(ends[2:], 16)
                    if symbol == "+" and source and words[source - 1].lower() == base:
                        found.add(_synsets(_POINTER_PARTS[pos], wordnet)[target][0][aim - 1].lower())
    return found


def is_medical(part: str, offset: str, wordnet: Path = plain.WORDNET) -> bool:
    """Whether a synset lies under medicine or medical science by hypernymy, or in such a topic domain."""
    seen: set[tuple[str, str]] = set()
    stack = [(part, offset)]
    while stack:
        synset = stack.pop()
        if synset in MEDICAL_SYNSETS:
            return True
        if synset in seen:
            continue
        seen.add(synset)
        stack.extend(_upward(synset[0], synset[1], wordnet))
    return False


def senses(word: str, wordnet: Path = plain.WORDNET) -> list[tuple[str, str]]:
    """(part of speech, synset offset) of every sense of `word`, in every part of speech its form can be."""
    return [(part, offset) for part in plain._PARTS for base in plain.base_forms(word, part, wordnet)
            for offset in plain._index(part, wordnet)[base]]


def written_with_capitals(word: str, wordnet: Path = plain.WORDNET) -> bool:
    """Whether WordNet writes a sense of the word with a capital letter: a name or an initialism ("MEd" for "med",
    "FTP"), which a lower-case word typed in a question may stand for otherwise (clinical shorthand: "med")."""
    for part, offset in senses(word, wordnet):
        for written in _synsets(part, wordnet)[offset][0]:
            bare = written.split("(")[0]  # an adjective's syntactic marker: "galore(ip)"
            if bare.lower() in plain.base_forms(word, part, wordnet) and bare != bare.lower():
                return True
    return False


def is_register(word: str, wordnet: Path = plain.WORDNET) -> bool:
    files = plain.lexicographer_files(word, wordnet)
    return (bool(files) and files <= REGISTER_FILES and not written_with_capitals(word, wordnet)
            and not any(is_medical(part, offset, wordnet) for part, offset in senses(word, wordnet)))


def register_words(wordnet: Path = plain.WORDNET) -> list[str]:
    """The shipped English words that are register words and not already plain (the module's doc)."""
    from voiceassist.phi.word_lists import stop_words
    from voiceassist.query.terms import stem

    clinical = plain._clinical_stems()
    stop = stop_words().get("en", frozenset())
    return sorted(word for word in common_words()
                  if plain._LETTERS.fullmatch(word) and len(word) > 2 and word not in stop
                  and stem(word) not in clinical and not plain.is_plain(word, wordnet)
                  and is_register(word, wordnet)
                  # "refer" (to "referral"), "respond" ("response"): a form of a clinical word stays a topic
                  and not any(stem(derived) in clinical for derived in derived_words(word, wordnet)))


def write_register_words(wordnet: Path = plain.WORDNET) -> None:
    header = ["# English words of register, stance and discourse: the words of the shipped English list",
              "# (_data/phi/common_words.txt.gz, SCOWL size 50) every WordNet 3.0 sense of which lies in one of the",
              f"# lexicographer files {', '.join(sorted(REGISTER_FILES))}",
              "# and none under medicine or medical science (hypernymy or topic domain); less the plain words and",
              "# the concept layer's clinical vocabulary (Debian's wordnet-base 1:3.0;",
              "# local/voiceassist_local/evaluation/register_word_data.py). WordNet's licence:",
              *plain._licence()]
    plain._write(REGISTER_FILE, header, register_words(wordnet))


def main(argv: list[str] | None = None) -> int:
    del argv
    write_register_words()
    print(REGISTER_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
