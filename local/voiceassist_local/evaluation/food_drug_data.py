"""Writes `voiceassist/_data/concepts/food_drugs.txt.gz`, the drug dictionary's names that are foods: what a patient
ate, not a medicine given (the evidence score weighs such a word told in the story as a food, not as the patient's
drug: query/story_exposures.py):

    apt-get install wordnet-base
    .venv/bin/python -m voiceassist_local.evaluation.food_drug_data

The drug dictionary (terminology.drug_names: DrugBank, MeSH and Wikipedia names) lists allergen extracts under the
food's name ("shrimp", "lobster"), so "anaphylaxis after shrimp" reads the food as a drug of the case. A name is a
food when it is one word of the shipped English list (SCOWL size 50) that WordNet 3.0 files as a circumstance word of
the food kind (circumstance_word_data.is_circumstance and kind: every sense a food, the animal or plant a food is, a
person or a plain file's; none under medicine; a sense in noun.food), leaving the clinical-vocabulary exclusion of that
list aside, since the dictionary is where the word was read as clinical. Choice and measurement:
docs/decisions/0024-clinical-concepts.md (session 20, ans20a).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voiceassist.common_words import common_words
from voiceassist.query.story_exposures import FOOD_DRUGS_FILE
from voiceassist.query.terminology import drug_names
from voiceassist_local.evaluation import circumstance_word_data as circumstance
from voiceassist_local.evaluation import plain_word_data as plain


def food_drugs(wordnet: Path = plain.WORDNET) -> list[str]:
    english = common_words()
    return sorted(name for name in drug_names() if plain._LETTERS.fullmatch(name) and len(name) > 2
                  and name in english and circumstance.is_circumstance(name, wordnet)
                  and circumstance.kind(name, wordnet) == "food")


def write_food_drugs(wordnet: Path = plain.WORDNET) -> None:
    header = ["# The drug dictionary's names (terminology.drug_names) that are foods: one word of the shipped",
              "# English list (SCOWL size 50) every WordNet 3.0 sense of which is a food, the animal or plant a food",
              "# is, a person or a plain file's, with a food sense, none under medicine (Debian's wordnet-base 1:3.0;",
              "# local/voiceassist_local/evaluation/food_drug_data.py). WordNet's licence:",
              *plain._licence()]
    plain._write(FOOD_DRUGS_FILE, header, food_drugs(wordnet))


def main(argv: list[str] | None = None) -> int:
    del argv
    write_food_drugs()
    print(FOOD_DRUGS_FILE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
