"""Writes `voiceassist/_data/concepts/derived_adjectives.tsv`, adjectives a clinician types for a sign where a
reference names the sign itself ("wheezy": "wheeze", "itchy": "itch", "feverish": "fever"; query/plain_words.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.derived_adjective_data

WordNet 3.0 (Princeton University; the WordNet 3.0 licence, quoted in the file's header; Debian's wordnet-base) links
an adjective to the noun or verb it is formed from by a derivationally related form pointer ("+", wninput(5WN)),
word to word. A pair is kept when the noun or verb's sense lies in a lexicographer file a clinical thing may be filed
in (plain_word_data.CLINICAL_FILES: the body, states, processes, substances, phenomena, attributes; verbs of the body,
of change and of consumption) or is an act of the body's kind (noun.act: "wheeze", "cough"), when both are single
words and when the two share their first four letters (a morphological derivation: "wheezy" -> "wheeze", not a
synonym's noun, "wheezy" -> "asthma"). Choice and measurement: docs/decisions/0024-clinical-concepts.md (session 19).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voiceassist.query.plain_words import DERIVED_ADJECTIVES_FILE
from voiceassist_local.evaluation.plain_word_data import (
    CLINICAL_FILES,
    LEXICOGRAPHER_FILES,
    WORDNET,
    _files,
    write_pair_table,
)

TARGET_FILES = CLINICAL_FILES | frozenset({"noun.act"})
SHARED_PREFIX = 4
_PART = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


def _lemmas(part: str, wordnet: Path) -> dict[str, list[str]]:
    """synset offset -> its words in order (lower case, underscores as spaces), from data.<part>."""
    table = {}
    for line in (wordnet / f"data.{part}").read_text(encoding="latin-1").splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        fields = line.split()
        count = int(fields[3], 16)
        table[fields[0]] = [fields[4 + 2 * i].lower().replace("_", " ").split("(")[0] for i in range(count)]
    return table


def derived_pairs(wordnet: Path = WORDNET) -> list[tuple[str, str]]:
    """(adjective, noun or verb) pairs of WordNet's derivationally related forms (the module's doc)."""
    lemmas = {part: _lemmas(part, wordnet) for part in ("noun", "verb")}
    pairs: set[tuple[str, str]] = set()
    for line in (wordnet / "data.adj").read_text(encoding="latin-1").splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        fields = line.split()
        count = int(fields[3], 16)
        words = [fields[4 + 2 * i].lower().split("(")[0] for i in range(count)]
        at = 4 + 2 * count
        for i in range(int(fields[at])):
            symbol, offset, pos, source_target = fields[at + 1 + 4 * i: at + 5 + 4 * i]
            part = _PART[pos]
            if symbol != "+" or part not in lemmas or _files(part, wordnet).get(offset) not in TARGET_FILES:
                continue
            source, target = int(source_target[:2], 16), int(source_target[2:], 16)
            if not source or not target:
                continue
            adjective, base = words[source - 1], lemmas[part][offset][target - 1]
            if (adjective.isalpha() and base.isalpha() and adjective != base
                    and adjective[:SHARED_PREFIX] == base[:SHARED_PREFIX]):
                pairs.add((adjective, base))
    return sorted(pairs)


def write(wordnet: Path = WORDNET) -> None:
    assert LEXICOGRAPHER_FILES  # the files' numbering the offsets are read with
    header = ["# adjective<TAB>the noun or verb it is derived from, where that names a clinical thing: WordNet 3.0's",
              "# derivationally related forms (\"+\") from an adjective to a sense in the lexicographer files",
              f"# {', '.join(sorted(TARGET_FILES))}, the two sharing their first {SHARED_PREFIX} letters",
              "# (Debian's wordnet-base 1:3.0; local/voiceassist_local/evaluation/derived_adjective_data.py)."]
    write_pair_table(DERIVED_ADJECTIVES_FILE, header, derived_pairs(wordnet))


def main(argv: list[str] | None = None) -> int:
    del argv
    write()
    print(DERIVED_ADJECTIVES_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
