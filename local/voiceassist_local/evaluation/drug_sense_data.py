"""Writes `voiceassist/_data/concepts/english_drug_names.txt`: the drug dictionary's other names that are frequent
English words with no drug sense ("sits", "caps", "armour", "diamonds"), which query/concepts.py reads as the drug only
where they are written as a brand is:

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.drug_sense_data

The drug dictionary (drug-named-entity-recognition, MIT: MeSH, DrugBank, Wikipedia) gives many drugs another name
that is an everyday English word: "sits" is a stilbene disulfonic acid, "caps" a sulfonic acid buffer, "armour" the
desiccated thyroid (Armour Thyroid), "diamonds" diamond. Typed in a question they are English far more often ("sits
upright", "the caps"). A name is listed when (1) it is one word and not a generic name of the dictionary (a generic
name is what a reference writes: "oxygen", "iron", "insulin" stay); (2) wordfreq's English list shipped here
(`_data/speech/english_words.tsv.gz`, Zipf frequency 3 or more, CC BY-SA 4.0) holds it: a word used at least once in
a million words; (3) WordNet 3.0 (Princeton University; Debian's wordnet-base) knows it in some part of speech
(its own morphology, morphy(7WN)), and no noun sense of it lies under (hypernym pointers, "@" and "@i", followed up)
drug (03247620, "a substance that is used as a medicine or narcotic"), medicine (03740161), agent (14778436, "a
substance that exerts some force or effect") or hormone (05407119): "adrenaline", "xanax", "antibiotic", "viagra",
"marijuana", "cortisol" have such a sense and stay drugs; a name WordNet does not know ("opioid", a brand) stays.
Choice and measurement: docs/decisions/0024-clinical-concepts.md (session 17).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from voiceassist.query import terminology
from voiceassist.query.concepts import ENGLISH_DRUG_NAMES_FILE
from voiceassist_local.evaluation.plain_word_data import WORDNET, _index, _licence, base_forms

MIN_ZIPF = 3.0  # every word of the shipped wordfreq list (it holds Zipf 3 and more)
DRUG_SENSES = {"03247620": "drug", "03740161": "medicine", "14778436": "agent", "05407119": "hormone"}
_PARTS = ("noun", "verb", "adj", "adv")


@cache
def _hypernyms(wordnet: Path = WORDNET) -> dict[str, tuple[str, ...]]:
    """noun synset offset -> the offsets of its hypernyms (class and instance: "@", "@i"), from data.noun."""
    table: dict[str, tuple[str, ...]] = {}
    for line in (wordnet / "data.noun").read_text(encoding="latin-1").splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        fields = line.split("|", 1)[0].split()
        words = int(fields[3], 16)
        at = 4 + 2 * words
        pointers = int(fields[at])
        found = []
        for k in range(pointers):
            symbol, offset, part = fields[at + 1 + 4 * k:at + 4 + 4 * k]
            if symbol in ("@", "@i") and part == "n":
                found.append(offset)
        table[fields[0]] = tuple(found)
    return table


def _above(offset: str, wordnet: Path = WORDNET) -> set[str]:
    hypernyms = _hypernyms(wordnet)
    seen: set[str] = set()
    todo = [offset]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(hypernyms.get(current, ()))
    return seen


def known(word: str, wordnet: Path = WORDNET) -> bool:
    return any(base_forms(word, part, wordnet) for part in _PARTS)


def has_drug_sense(word: str, wordnet: Path = WORDNET) -> bool:
    """Whether a noun sense of `word` (or of the noun it inflects) is a drug, a medicine, an agent or a hormone."""
    offsets = {o for base in base_forms(word, "noun", wordnet) for o in _index("noun", wordnet)[base]}
    return any(_above(o, wordnet) & DRUG_SENSES.keys() for o in offsets)


def english_drug_names(wordnet: Path = WORDNET) -> list[str]:
    names = terminology.drug_names()
    generics = set(names.values())
    english = terminology.english_words()
    return sorted(name for name in names
                  if " " not in name and name not in generics and english.get(name, 0.0) >= MIN_ZIPF
                  and known(name, wordnet) and not has_drug_sense(name, wordnet))


def main() -> int:
    header = ["# The drug dictionary's other names (not a generic name) that are English words with no drug sense:",
              "# in wordfreq's shipped list (Zipf >= 3) and known to WordNet 3.0, none of whose noun senses lies under",
              "# drug, medicine, agent (a substance) or hormone (Debian's wordnet-base 1:3.0;",
              "# local/voiceassist_local/evaluation/drug_sense_data.py). query/concepts.py reads them as the drug only",
              "# where they are written as a brand. WordNet's licence:",
              *_licence()]
    ENGLISH_DRUG_NAMES_FILE.write_text("\n".join(header + english_drug_names()) + "\n", encoding="utf-8")
    print(ENGLISH_DRUG_NAMES_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
