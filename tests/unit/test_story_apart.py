"""The story apart from the ask (decision 0024, session 18): which clause asks when a question both tells and names a
value, opens with a heading, or offers alternatives without its mark; and the words only the story names weigh
nothing missing where the ask names a thing of its own, unless the ask refers back to the case, acts on its course,
or the word is a population or a setting of care. Sentences written for these tests."""

from __future__ import annotations

import pytest

from voiceassist.query import described_case, wording
from voiceassist.query import question_concepts as qc
from voiceassist.query.question_concepts import question_concepts
from voiceassist.query.wording import asked_clauses


def concept(question: str, label: str) -> qc.Concept:
    return next(c for c in question_concepts(question) if c.label.lower() == label.lower())


def test_a_clause_naming_a_value_asks_only_where_no_clause_is_marked() -> None:
    # the dose is told; the wh-clause asks
    assert asked_clauses("Gliclazide at top dose for a year, sugars still high, what do we add next?") == (
        "what do we add next",)
    # with no other mark, the clause naming the value still asks
    assert asked_clauses("pt 80kg, anaphylaxis. IM adrenaline dose per kg") == ("IM adrenaline dose per kg",)


def test_a_short_heading_asks_with_the_clause_after_it() -> None:
    assert asked_clauses("Dental extraction: stop apixaban the day before or the morning of?") is None
    # a longer opening is the case, not a heading
    assert asked_clauses("Man of seventy with a chest infection at home - what antibiotic?") == ("what antibiotic",)


def test_alternatives_typed_without_a_question_mark_ask() -> None:
    assert asked_clauses("what to give after doxycycline fails - clarithromycin or levofloxacin") is None
    # with a question mark typed, the mark decides
    assert asked_clauses("doxycycline or clarithromycin tried, what next?") == ("what next",)


def test_the_marks_weighed_alike_as_before_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wording, "MARKS_WEIGHED", False)
    assert asked_clauses("Gliclazide at top dose for a year, sugars still high, what do we add next?") == (
        "Gliclazide at top dose for a year", "what do we add next")


STORY = "Hairdresser from Leeds, swollen lips after a wasp at her salon. What is the IM adrenaline dose for an adult?"


def test_words_of_the_story_weigh_nothing_missing_where_the_ask_names_a_thing() -> None:
    for label in ("Hairdresser", "Leeds", "salon", "lips"):
        told = concept(STORY, label)
        assert told.weight == 0.0 and told.held_weight == 1.0 and not told.topic
    assert concept(STORY, "epinephrine").weight == 1.0  # the asked drug keeps its weight


def test_the_story_weighs_as_before_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(described_case, "STORY_APART", False)
    assert concept(STORY, "salon").weight == described_case.SCENARIO_WEIGHT


@pytest.mark.parametrize("question", [
    # the ask refers back to the case
    "Hairdresser from Leeds, swollen lips after a wasp at her salon. Is that adrenaline dose right for her?",
    # the ask acts on the case's course of treatment
    "Hairdresser from Leeds on lisinopril, swollen lips at her salon. Switch to losartan?",
    # the ask names no thing of its own ("next": a plain word): it asks about the case, the whole question its topic
    "Hairdresser from Leeds, swollen lips after a wasp at her salon. What do we do next?",
])
def test_the_story_keeps_its_weight_where_the_ask_needs_it(question: str) -> None:
    assert concept(question, "salon").weight >= described_case.SCENARIO_WEIGHT


def test_a_setting_of_care_or_a_population_in_the_story_is_left_to_its_reader() -> None:
    question = "Hairdresser admitted to ICU, swollen lips, on HD. What is the IM adrenaline dose for an adult?"
    assert concept(question, "ICU").weight == described_case.SCENARIO_WEIGHT  # a setting of care (care_setting.stated)
    # hemodialysis: renal impairment (population)
    assert concept(question, "HD").weight == described_case.SCENARIO_WEIGHT
    assert concept(question, "Hairdresser").weight == 0.0


def test_a_word_asking_a_kind_of_value_names_no_thing_of_its_own() -> None:
    # "frequency" is marked with the kind of value it asks (query/asked_kinds.py), not a drug, class, disease or
    # abbreviation: the story keeps its weight (an exam stem would otherwise be read as "frequency" alone)
    question = "A human gene marker carried by a carrier in a colony, each with a frequency of 0.3, will be:"
    assert concept(question, "gene").weight == described_case.SCENARIO_WEIGHT
