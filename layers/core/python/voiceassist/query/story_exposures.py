"""A food the drug dictionary lists is what the patient ate, in the story (decision 0024, session 20, ans20a; read by
query/question_concepts.py).

The drug dictionary lists allergen extracts under the food's name ("shrimp", "lobster"), so a story of anaphylaxis
"after a shrimp curry" read the food as a drug of the case, which keeps a weight when a passage lacks it. Told in the
story where the ask stands apart from it (it names a drug, class or disease of its own, neither refers back nor
changes a course: described_case._ask_apart), such a word is the exposure, read as the story's other foods are
(weighs nothing missing); named in the ask ("can she eat shrimp on metformin") it stays a topic. The words:
`_data/concepts/food_drugs.txt.gz`, written by `python -m voiceassist_local.evaluation.food_drug_data` (WordNet 3.0's
food senses of the dictionary's names; WordNet's licence in its header).
"""

from __future__ import annotations

import gzip
from functools import lru_cache

from voiceassist.query.terminology import CONCEPT_DATA

FOOD_DRUGS_FILE = CONCEPT_DATA / "food_drugs.txt.gz"


@lru_cache(maxsize=1)
def food_drugs() -> frozenset[str]:
    with gzip.open(FOOD_DRUGS_FILE, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def is_food(label: str) -> bool:
    """Whether a concept's label is one of the drug dictionary's names that WordNet files as a food."""
    return label.lower() in food_drugs()
