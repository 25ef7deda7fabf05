"""Writes `voiceassist/_data/safety/substance_classes.tsv.gz`, the classes of drugs and foods that the input screen's
reading of an allergen given covertly (safety/covert_harm.py) checks a hidden substance against:

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.substance_class_data

The classes come from WordNet 3.0's noun hierarchy (Princeton University; the WordNet 3.0 licence, quoted in the
file's header), read from Debian's wordnet-base (/usr/share/wordnet/data.noun): every
synset under ROOTS by hyponymy, and for each of its lemmas the lemmas of every synset above it up to the root
("amoxicillin", "Augmentin" -> penicillin, antibiotic, antibacterial, medicine, drug; "peanut" -> legume, vegetable,
produce, food). A class is what an allergy names ("penicillin allergy"), a substance is what is hidden; the root
lemmas (drug, food, beverage, meal) say what a substance is: a food or a drink is what a drug is hidden in.
Lemmas are lower-cased, "_" read as a space; a lemma with no class above it (a root's own) is written with the
root's lemmas only.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from voiceassist.safety.covert_harm import CLASSES_FILE
from voiceassist_local.evaluation.harm_outcome_data import _LICENCE
from voiceassist_local.evaluation.setting_data import WORDNET

# (offset in data.noun, a lemma of it, to check the file is WordNet 3.0's)
ROOTS: tuple[tuple[str, str], ...] = (
    ("03247620", "drug"),  # drug.n.01: a substance used as a medication or in the preparation of medication
    ("00021265", "food"),  # food.n.01: any substance that can be metabolized by an animal to give energy
    ("07555863", "food"),  # food.n.02 (solid_food): any solid substance used as a source of nourishment
    ("07881800", "beverage"),  # beverage.n.01: any liquid suitable for drinking
    ("07573696", "meal"),  # meal.n.01: the food served and eaten at one time
    # edible_nut.n.01 ("a hard-shelled seed consisting of an edible kernel": peanut, almond, cashew), which WordNet
    # files under nut.n.01, a part of a plant, not under food
    ("07737081", "edible nut"),
)


def _synsets(path: Path) -> dict[str, tuple[list[str], list[str]]]:
    """offset -> (lower-cased lemmas, hyponym offsets) of data.noun (wndb(5WN))."""
    table: dict[str, tuple[list[str], list[str]]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split("|", 1)[0].split()
        count = int(fields[3], 16)
        lemmas = [fields[4 + 2 * i].split("(")[0].replace("_", " ").lower() for i in range(count)]
        at = 4 + 2 * count
        pointers = int(fields[at])
        hyponyms = [fields[at + 2 + 4 * p] for p in range(pointers)
                    if fields[at + 1 + 4 * p] in ("~", "~i") and fields[at + 3 + 4 * p] == "n"]
        table[fields[0]] = (lemmas, hyponyms)
    return table


def substance_classes(wordnet: Path = WORDNET) -> dict[str, set[str]]:
    """lemma -> the lemmas of every synset above it up to its root, the root's included."""
    synsets = _synsets(wordnet / "data.noun")
    classes: dict[str, set[str]] = {}
    for offset, name in ROOTS:
        if offset not in synsets or name not in synsets[offset][0]:
            raise ValueError(f"WordNet offset {offset} is not {name}: not WordNet 3.0's data.noun?")
        pending: list[tuple[str, frozenset[str]]] = [(offset, frozenset())]
        seen = {offset}
        while pending:
            at, above = pending.pop()
            lemmas = synsets[at][0]
            for lemma in lemmas:
                classes.setdefault(lemma, set()).update(above or lemmas)
            below = above | frozenset(lemmas)
            for child in synsets[at][1]:
                if child not in seen:
                    seen.add(child)
                    pending.append((child, below))
    return classes


def write(path: Path = CLASSES_FILE, wordnet: Path = WORDNET) -> int:
    """Write the table; return its number of lemmas."""
    classes = substance_classes(wordnet)
    header = ("# substance<TAB>its classes, |-separated (WordNet 3.0 noun hyponymy under drug.n.01, food.n.01, "
              "food.n.02, beverage.n.01, meal.n.01, edible_nut.n.01;\n# voiceassist_local/evaluation/"
              "substance_class_data.py). Its licence:\n")
    licence = _LICENCE.read_text(encoding="utf-8") if _LICENCE.exists() else ""
    quoted = licence[licence.find("Permission"):] if "Permission" in licence else ""
    header += "".join(("# " + line if line.strip() else "#") + "\n" for line in quoted.strip().splitlines())
    lines = [f"{lemma}\t{'|'.join(sorted(above))}" for lemma, above in sorted(classes.items())]
    # gzip, no timestamp (mtime 0): the same bytes every run; 56 KB, not 528 KB, in the core layer
    path.write_bytes(gzip.compress((header + "\n".join(lines) + "\n").encode("utf-8"), mtime=0))
    return len(lines)


if __name__ == "__main__":
    print(write())
