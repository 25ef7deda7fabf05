"""Writes `voiceassist/_data/concepts/person_nouns.txt.gz`, the English nouns that name a person (the population
reader takes "<a person> of <a number>" for an age: "an old boy of 89", "a lad of 4"; query/population.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.person_noun_data

The nouns are WordNet 3.0's (Princeton University; the WordNet 3.0 licence, quoted in the file's header; Debian's
wordnet-base) one-word lemmas of the lexicographer file noun.person (lexnames(5WN): "nouns denoting people"), less
every lemma whose most frequent sense as a person (the first such of index.noun's, ordered by the tagged-corpus
counts) is a relative (a hyponym of relative.n.01, "a person related by blood or marriage"): "a mother of 3" counts
her children, not her years; "a boy of 4" (a son only in a rarer sense) is a boy. Choice:
docs/decisions/0024-clinical-concepts.md (session 17).
"""

from __future__ import annotations

import re
import sys

from voiceassist.query.population import PERSON_NOUNS_FILE
from voiceassist_local.evaluation.plain_word_data import WORDNET, _licence, _write

PERSON_FILE_NUMBER = "18"  # noun.person in lexnames(5WN)
RELATIVE = "10235549"  # relative.n.01's synset offset in WordNet 3.0's data.noun
_LEMMA = re.compile(r"[a-z]+")


def _synsets() -> dict[str, tuple[str, list[str], list[str]]]:
    """offset -> (lexicographer file number, lemmas, hypernym offsets) of every noun synset."""
    synsets = {}
    for line in (WORDNET / "data.noun").read_text(encoding="utf-8").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split(" | ")[0].split()
        offset, lexfile, count = fields[0], fields[1], int(fields[3], 16)
        lemmas = [fields[4 + 2 * i].lower() for i in range(count)]
        rest = fields[4 + 2 * count:]
        pointers = int(rest[0])
        hypernyms = [rest[1 + 4 * i + 1] for i in range(pointers) if rest[1 + 4 * i] in ("@", "@i")]
        synsets[offset] = (lexfile, lemmas, hypernyms)
    return synsets


def person_nouns() -> list[str]:
    synsets = _synsets()
    below_relative: dict[str, bool] = {}

    def relative(offset: str) -> bool:
        if offset not in below_relative:
            below_relative[offset] = False  # a cycle guard; WordNet's hypernyms have none
            below_relative[offset] = offset == RELATIVE or any(relative(h) for h in synsets[offset][2])
        return below_relative[offset]

    people = set()
    for lexfile, lemmas, _ in synsets.values():
        if lexfile == PERSON_FILE_NUMBER:
            people |= {lemma for lemma in lemmas if _LEMMA.fullmatch(lemma)}
    relatives = set()
    for line in (WORDNET / "index.noun").read_text(encoding="utf-8").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        # lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets (most frequent first)
        senses = [o for o in fields[-int(fields[2]):] if synsets[o][0] == PERSON_FILE_NUMBER]
        if fields[0] in people and senses and relative(senses[0]):
            relatives.add(fields[0])
    return sorted(people - relatives)


def main() -> int:
    header = ["# English nouns that name a person: WordNet 3.0's one-word lemmas of noun.person, less those with a",
              "# sense under relative.n.01 (local/voiceassist_local/evaluation/person_noun_data.py). Its licence:",
              *_licence()]
    _write(PERSON_NOUNS_FILE, header, person_nouns())
    return 0


if __name__ == "__main__":
    sys.exit(main())
