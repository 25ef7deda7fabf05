"""Writes `voiceassist/_data/concepts/circumstance_words.txt.gz`, English words that tell a case's circumstances: who
is there, where, what was eaten, how the patient travels (the evidence score weighs such a word told in the story as
nothing when a passage lacks it: query/case_words.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.circumstance_word_data

A case's story names, besides the clinical picture, the people around it ("fella", "auntie", "aide", "residents"),
the place ("settlement", "village"), the food or exposure ("shrimp", "crab", "halibut") and the transport
("ambulance", "taxi", "helicopter"). WordNet 3.0 files such words by what they denote (lexnames(5WN)): noun.person
("nouns denoting people"), noun.location ("nouns denoting spatial position"), noun.food ("nouns denoting foods and
drinks"), and the artefacts under "conveyance, transport" (noun 03100490: vehicles, by hypernymy). A word is a
circumstance word when WordNet knows it and every sense of it, in every part of speech its form can be (morphy(7WN)),
is one of those, lies in the plain files (plain_word_data.PLAIN_FILES: people, time, feelings, places, relations,
motives, possession, shapes; verbs of motion, emotion, social life, telling, competition, owning, being, weather;
adverbs), or is an animal or plant sense of a word that also has a food sense (the food's source: "shrimp",
"halibut", "peanut"); with the register words' guards (register_word_data): no sense under medicine, the life
sciences, mental states or scores, or under "sick person, diseased person, sufferer" (noun 10595647: "diabetic",
"asthmatic" name a condition); no derivationally related form in the clinical vocabulary; no sense WordNet writes
with a capital letter (a name or an initialism). An adjective sense keeps a word out (clinical states WordNet files as
plain adjectives: "obese", "wheezy").

The words are those of the shipped English list (`_data/phi/common_words.txt.gz`, SCOWL size 50) and WordNet's
person nouns (`_data/concepts/person_nouns.txt.gz`: "fella", "auntie"), less the concept layer's clinical vocabulary,
the setting words and spaCy's English stop words, and less the shipped plain words (already weighed as ordinary
words). Choice and measurement: docs/decisions/0024-clinical-concepts.md (session 20, story20).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voiceassist.common_words import common_words
from voiceassist.query.plain_words import CIRCUMSTANCE_FILE
from voiceassist_local.evaluation import plain_word_data as plain
from voiceassist_local.evaluation import register_word_data as register

CIRCUMSTANCE_FILES = frozenset(("noun.person", "noun.location", "noun.food"))
CONVEYANCE = ("noun", "03100490")  # "conveyance, transport": vehicles
SUFFERER = ("noun", "10595647")  # "sick person, diseased person, sufferer"
_SOURCES = frozenset(("noun.animal", "noun.plant"))


def _under(part: str, offset: str, root: tuple[str, str], wordnet: Path) -> bool:
    seen: set[tuple[str, str]] = set()
    stack = [(part, offset)]
    while stack:
        synset = stack.pop()
        if synset == root:
            return True
        if synset in seen:
            continue
        seen.add(synset)
        stack.extend(register._upward(synset[0], synset[1], wordnet))
    return False


def is_circumstance(word: str, wordnet: Path = plain.WORDNET) -> bool:
    senses = register.senses(word, wordnet)
    if not senses or register.written_with_capitals(word, wordnet):
        return False
    files = [(part, offset, plain._files(part, wordnet)[offset]) for part, offset in senses]
    food = any(name == "noun.food" for _, _, name in files)

    def allowed(part: str, offset: str, name: str) -> bool:
        if register.is_medical(part, offset, wordnet) or _under(part, offset, SUFFERER, wordnet):
            return False
        return (name in CIRCUMSTANCE_FILES or name in plain.PLAIN_FILES or (food and name in _SOURCES)
                or (name == "noun.artifact" and _under(part, offset, CONVEYANCE, wordnet)))

    telling = any(name in CIRCUMSTANCE_FILES or name == "noun.artifact" for _, _, name in files)
    return telling and all(allowed(*sense) for sense in files)


def kind(word: str, wordnet: Path = plain.WORDNET) -> str:
    """"food" when a sense of the word is a food (what was eaten may be the case's point), else "circumstance"."""
    return "food" if any(plain._files(part, wordnet)[offset] == "noun.food"
                         for part, offset in register.senses(word, wordnet)) else "circumstance"


def circumstance_words(wordnet: Path = plain.WORDNET) -> list[str]:
    """The shipped English words that are circumstance words and not already plain (the module's doc)."""
    from voiceassist.phi.word_lists import stop_words
    from voiceassist.query.plain_words import plain_words
    from voiceassist.query.population import person_nouns
    from voiceassist.query.terms import stem

    clinical = plain._clinical_stems()
    stop = stop_words().get("en", frozenset())
    # the shipped English list, and WordNet's person nouns the shipped population reader lists ("fella", "auntie")
    return sorted(word for word in common_words() | person_nouns()
                  if plain._LETTERS.fullmatch(word) and len(word) > 2 and word not in stop
                  and stem(word) not in clinical and word not in plain_words()
                  and is_circumstance(word, wordnet)
                  and not any(stem(derived) in clinical for derived in register.derived_words(word, wordnet)))


def write_circumstance_words(wordnet: Path = plain.WORDNET) -> None:
    header = ["# English words that tell a case's circumstances: the words of the shipped English list",
              "# (_data/phi/common_words.txt.gz, SCOWL size 50) every WordNet 3.0 sense of which is a person, a",
              "# location, a food (or the animal or plant a food is), a conveyance, or lies in a plain file",
              f"# ({', '.join(sorted(plain.PLAIN_FILES))}),",
              "# none under medicine, the life sciences, mental states, scores or sufferers; less the plain words and",
              "# the concept layer's clinical vocabulary (Debian's wordnet-base 1:3.0;",
              "# local/voiceassist_local/evaluation/circumstance_word_data.py). WordNet's licence:",
              *plain._licence()]
    header.append("# word<TAB>food (a sense is a food) or circumstance (a person, place or conveyance)")
    plain._write(CIRCUMSTANCE_FILE, header, [f"{word}\t{kind(word, wordnet)}" for word in circumstance_words(wordnet)])


def main(argv: list[str] | None = None) -> int:
    del argv
    write_circumstance_words()
    print(CIRCUMSTANCE_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
