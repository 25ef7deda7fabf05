"""Writes `voiceassist/_data/concepts/usuality_adverbs.txt`, English adverbs in -ly that WordNet 3.0 does not derive
from an adjective ("normally": "usually"; "mainly", "largely", "lately"; read by query/plain_words.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.adverb_data

A question asks what dose one would "normally" start on, or when a fever "normally" goes; the word's adjective
("normal") is of the clinical vocabulary (a normal range, normal saline), so session 12's plain words, compared by
stem, kept the adverb a topic. WordNet writes an adverb formed from an adjective with a pertainym pointer ("\\",
wndb(5WN)) from the adverb to the adjective sense it is formed from ("orally": "oral", of the mouth; "severely":
"severe"); an adverb without one in any of its senses has a meaning of its own, apart from the adjective's
("normally": under normal conditions, a synonym of "usually"; "lately": recently; "hardly": scarcely). A word is
listed when it ends in -ly, every sense of it is an adverb (adv.all), no sense of it has its own pertainym pointer,
none lies under medicine (register_word_data.is_medical) and WordNet writes none with a capital letter; of the
shipped English list (SCOWL 50), less the plain and register words (already weighed so) and spaCy's English stop
words. Choice and measurement: docs/decisions/0024-clinical-concepts.md (session 20, ans20b).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voiceassist.common_words import common_words
from voiceassist.query import plain_words as shipped
from voiceassist.query.plain_words import USUALITY_ADVERBS_FILE
from voiceassist_local.evaluation import plain_word_data as plain
from voiceassist_local.evaluation import register_word_data as register

_PERTAINYM = "\\"


def _own_pertainym(word: str, wordnet: Path) -> bool:
    """Whether a sense of `word` has a pertainym pointer of its own (from the word, or from its whole synset)."""
    for part, offset in register.senses(word, wordnet):
        words, pointers = register._synsets(part, wordnet)[offset]
        mine = {i + 1 for i, written in enumerate(words) if written.lower() == word}
        for pointer in pointers:
            symbol, _, _, ends = pointer.split()
            if symbol == _PERTAINYM and (int(ends[:2], 16) == 0 or int(ends[:2], 16) in mine):
                return True
    return False


def usuality_adverbs(wordnet: Path = plain.WORDNET) -> list[str]:
    from voiceassist.phi.word_lists import stop_words

    stop = stop_words().get("en", frozenset())
    return sorted(word for word in common_words()
                  if plain._LETTERS.fullmatch(word) and word.endswith("ly") and word not in stop
                  and not shipped.is_plain(word) and not shipped.is_register(word)
                  and plain.lexicographer_files(word, wordnet) == {"adv.all"}
                  and not register.written_with_capitals(word, wordnet)
                  and not any(register.is_medical(p, o, wordnet) for p, o in register.senses(word, wordnet))
                  and not _own_pertainym(word, wordnet))


def write_usuality_adverbs(wordnet: Path = plain.WORDNET) -> None:
    header = ["# English adverbs in -ly WordNet 3.0 does not derive from an adjective: the words of the shipped",
              "# English list (_data/phi/common_words.txt.gz, SCOWL size 50) every sense of which is an adverb",
              "# (adv.all), none with a pertainym pointer of its own, none under medicine, none capitalised; less",
              "# the plain and register words (Debian's wordnet-base 1:3.0;",
              "# local/voiceassist_local/evaluation/adverb_data.py). WordNet's licence:", *plain._licence()]
    USUALITY_ADVERBS_FILE.write_text("\n".join([*header, *usuality_adverbs(wordnet)]) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    del argv
    write_usuality_adverbs()
    print(USUALITY_ADVERBS_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
