"""Clinical abbreviations in a question gain their long form, so both sub-queries can match the words."""

from __future__ import annotations

import pytest

from voiceassist.query.expansion import expand_abbreviations


@pytest.mark.parametrize(("question", "expanded"), [
    ("apixaban dose in AF with CKD",
     "apixaban dose in AF (atrial fibrillation) with CKD (chronic kidney disease)"),
    ("NSAIDs after MI", "NSAIDs (nonsteroidal anti-inflammatory drug) after MI (myocardial infarction)"),
    ("eGFR before metformin", "eGFR (estimated glomerular filtration rate) before metformin"),
], ids=["two_abbreviations", "plural_and_final", "mixed_case"])
def test_expand_abbreviations_appends_the_long_form(question: str, expanded: str) -> None:
    assert expand_abbreviations(question) == expanded


@pytest.mark.parametrize("question", [
    "EGFR mutation testing",  # the receptor, not eGFR: case decides
    "IL-6 levels in sepsis",  # part of a hyphenated name
    "aspirin after myocardial infarction (MI)",  # already spelled out
    "ms and af in lower case",  # lower-case words are ordinary words
])
def test_expand_abbreviations_leaves_other_text_unchanged(question: str) -> None:
    assert expand_abbreviations(question) == question


def test_expand_abbreviations_expands_a_repeated_abbreviation_once() -> None:
    assert expand_abbreviations("MI or MI?") == "MI (myocardial infarction) or MI?"
