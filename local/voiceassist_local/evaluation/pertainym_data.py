"""Writes `voiceassist/_data/concepts/pertainyms.tsv`, relational adjectives and the part of the body or the
clinical thing they pertain to ("renal": "kidney", "hepatic": "liver", "cardiac": "heart"; query/ask_words.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.pertainym_data

WordNet 3.0 (Princeton University; the WordNet 3.0 licence, quoted in the file's header; Debian's wordnet-base) links
a relational adjective to the noun it pertains to by a pertainym pointer ("\\", wninput(5WN): "pertains to noun"),
word to word. A pair is kept when the noun's sense lies in a lexicographer file a clinical thing may be filed in
(plain_word_data.CLINICAL_FILES: the body, states, processes, substances, phenomena, attributes) and both are single
words, less an adjective formed by a prefix on another adjective of the same noun ("adrenal", "afebrile": beside
the kidney, without fever). Unlike the derived adjectives (derived_adjective_data), the two need not share their
letters: a Latin or Greek adjective of an English noun ("renal", "kidney") is the point. Choice and measurement:
docs/decisions/0024-clinical-concepts.md (session 20, ask20).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voiceassist.query.ask_words import PERTAINYMS_FILE
from voiceassist_local.evaluation.derived_adjective_data import _lemmas
from voiceassist_local.evaluation.plain_word_data import (
    CLINICAL_FILES,
    LEXICOGRAPHER_FILES,
    WORDNET,
    _files,
    write_pair_table,
)


def pertainym_pairs(wordnet: Path = WORDNET) -> list[tuple[str, str]]:
    """(adjective, noun) pairs of WordNet's pertainym pointers to a clinical noun sense (the module's doc)."""
    nouns = _lemmas("noun", wordnet)
    files = _files("noun", wordnet)
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
            if symbol != "\\" or pos != "n" or files.get(offset) not in CLINICAL_FILES:
                continue
            source, target = int(source_target[:2], 16), int(source_target[2:], 16)
            if not source or not target:
                continue
            adjective, noun = words[source - 1], nouns[offset][target - 1]
            if adjective.isalpha() and noun.isalpha() and adjective != noun:
                pairs.add((adjective, noun))
    return sorted(_unprefixed(pairs))


def _unprefixed(pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The pairs less an adjective that is another adjective of the same noun with a prefix before it: a place
    beside the thing or its negation, not the thing ("adrenal", "suprarenal": beside the kidney, "renal"; "afebrile":
    without fever, "febrile"; "intramuscular": within the muscle, "muscular")."""
    by_noun: dict[str, set[str]] = {}
    for adjective, noun in pairs:
        by_noun.setdefault(noun, set()).add(adjective)
    return {(a, n) for a, n in pairs if not any(b != a and a.endswith(b) for b in by_noun[n])}


def write(wordnet: Path = WORDNET) -> None:
    assert LEXICOGRAPHER_FILES  # the files' numbering the offsets are read with
    header = ["# adjective<TAB>the noun it pertains to, where that names a clinical thing: WordNet 3.0's pertainym",
              "# pointers (\"\\\") from an adjective to a noun sense in the lexicographer files",
              f"# {', '.join(sorted(CLINICAL_FILES))}",
              "# (Debian's wordnet-base 1:3.0; local/voiceassist_local/evaluation/pertainym_data.py)."]
    write_pair_table(PERTAINYMS_FILE, header, pertainym_pairs(wordnet))


def main(argv: list[str] | None = None) -> int:
    del argv
    write()
    print(PERTAINYMS_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
