"""Writes `voiceassist/_data/concepts/drug_classes.tsv`, drugs linked to a class their INN stem does not show
(query/terminology.py reads it with the stems):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.drug_class_data

A line is a generic name of the shipped drug dictionary and a class of terminology.CLASSES: the generic, or one of
its names, is a lemma of a noun synset below the class's first WordNet 3.0 sense (Princeton University; the WordNet
3.0 licence, quoted in the file's header; Debian's wordnet-base) by hypernym links ("chlorpheniramine maleate" and
"diphenhydramine" are below antihistamine.n.01). Only WORDNET_CLASSES are read: the classes whose members the INN
stems mostly miss. Choice and measurements: docs/decisions/0024-clinical-concepts.md (session 18).
"""

from __future__ import annotations

import sys

from voiceassist.query import terminology
from voiceassist_local.evaluation.person_noun_data import _synsets
from voiceassist_local.evaluation.plain_word_data import _licence

# Antihistamines: WordNet 3.0 lists 12 generics of the dictionary below antihistamine.n.01 and the class's one INN
# stem ("-tadine") reaches 2 of them. For the other classes of terminology.CLASSES with a WordNet sense the stems
# reach most members already, and WordNet's hyponyms put other drugs under them (griseofulvin under penicillin,
# spironolactone under corticosteroid, the antifungals and antineoplastics under antibiotic): not read.
WORDNET_CLASSES = ("antihistamine",)
DRUG_FILES = ("06", "27")  # lexnames(5WN): noun.artifact (a drug) and noun.substance


def drug_classes() -> list[tuple[str, str]]:
    synsets = _synsets()
    by_lemma: dict[str, list[str]] = {}
    below: dict[str, list[str]] = {}
    for offset, (_, lemmas, hypernyms) in synsets.items():
        for lemma in lemmas:
            by_lemma.setdefault(lemma.replace("_", " "), []).append(offset)
        for hypernym in hypernyms:
            below.setdefault(hypernym, []).append(offset)
    names = terminology.drug_names()
    pairs = set()
    for name in WORDNET_CLASSES:
        senses = [o for o in by_lemma.get(name.lower(), []) if synsets[o][0] in DRUG_FILES][:1]
        pending, seen = list(senses), set()
        while pending:
            for offset in below.get(pending.pop(), []):
                if offset not in seen:
                    seen.add(offset)
                    pending.append(offset)
        for offset in seen:
            for lemma in synsets[offset][1]:
                generic = names.get(lemma.replace("_", " "))
                if generic is not None and name not in terminology.inn_stem_classes(generic):
                    pairs.add((generic, name))
    return sorted(pairs)


def main() -> int:
    header = ["# Drugs linked to a class their INN stem does not show: generic<TAB>class. A generic (or one of its",
              "# names) is a lemma below the class's WordNet 3.0 sense by hypernym links",
              "# (local/voiceassist_local/evaluation/drug_class_data.py). WordNet's licence:",
              *_licence()]
    text = "\n".join(header + [f"{generic}\t{name}" for generic, name in drug_classes()]) + "\n"
    terminology.DRUG_CLASSES_FILE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
