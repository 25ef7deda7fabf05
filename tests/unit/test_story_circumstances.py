"""The circumstances a question's story tells (decision 0024, session 20): people, places, foods and conveyances
(WordNet 3.0's files), places and peoples spaCy's recognizer names, and a dropped "g". Sentences written for these
tests, none from a question set."""

from __future__ import annotations

import pytest

from voiceassist.query import case_words, described_case, plain_words, story_places
from voiceassist.query import question_concepts as qc
from voiceassist.query.question_concepts import question_concepts


def concept(question: str, label: str) -> qc.Concept:
    return next(c for c in question_concepts(question) if c.label.lower() == label)


def test_the_shipped_words_are_people_places_foods_and_conveyances() -> None:
    assert plain_words.is_circumstance("ambulance") and plain_words.is_circumstance("Helicopter")
    assert plain_words.is_circumstance("halibut") and not plain_words.is_circumstance("halibut", food=False)
    assert plain_words.is_circumstance("fella")
    # a person named by a condition, a clinical word, an unknown word: none
    for word in ("diabetic", "asthmatic", "nurse", "wheeze", "xqzt"):
        assert not plain_words.is_circumstance(word)


@pytest.mark.parametrize(("question", "label"), [
    ("Came in by helicopter with a swollen tongue after a wasp. Can that IM adrenaline dose be repeated?",
     "helicopter"),
    ("Ate mackerel at a wedding, now hives and low BP. Should that IM adrenaline dose be repeated?", "mackerel"),
])
def test_a_circumstance_told_in_the_story_weighs_nothing_missing(question: str, label: str) -> None:
    # the asks refer back ("that"), so session 18's story-apart reading does not reach them
    told = concept(question, label)
    assert (told.weight, told.covered_weight) == (0.0, 1.0)


def test_a_circumstance_asked_about_keeps_its_weight() -> None:
    asked = concept("Hives after amoxicillin. Can she still travel by helicopter today?", "helicopter")
    assert asked.weight > 0.0


def test_where_the_ask_names_no_topic_a_food_stays_the_point() -> None:
    question = "Ate mackerel at a wedding and came by taxi, now itchy all over. What now?"
    assert concept(question, "taxi").weight == 0.0
    assert concept(question, "mackerel").weight > 0.0


def test_a_place_named_after_a_preposition_or_by_the_recognizer_is_told() -> None:
    question = ("Twenty minutes out from Quorraville with a man whose throat is tight after a bee. "
                "When should the second IM adrenaline dose go in?")
    assert "quorraville" in story_places.place_words(question)
    assert concept(question, "quorraville").weight == 0.0
    assert story_places.place_words("no capital letter inside this text") == frozenset()


def test_clinical_shorthand_the_recognizer_tags_is_no_place() -> None:
    # the recognizer may tag "IM" as a facility; the concept layer gives it a meaning, so it keeps its weight
    question = "Gave the IM shot in Tampa an hour ago. How soon can the IM dose be repeated?"
    assert concept(question, "intramuscular").weight > 0.0


def test_switched_off_places_and_circumstances_weigh_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    question = "Came in by helicopter with a swollen tongue after a wasp. Can that IM adrenaline dose be repeated?"
    monkeypatch.setattr(described_case, "CIRCUMSTANCES_TOLD", False)
    assert concept(question, "helicopter").weight > 0.0


@pytest.mark.parametrize(("typed", "restored"), [("wheezin", "wheezing"), ("Comin'", "coming"),
                                                 ("vomitin", "vomiting")])
def test_a_dropped_g_is_read_as_the_ing_form(typed: str, restored: str) -> None:
    assert case_words.g_restored(typed) == restored


@pytest.mark.parametrize("word", ["basin", "cabin", "insulin", "within", "begin", "xyzin"])
def test_a_word_ending_in_in_is_left(word: str) -> None:
    assert case_words.g_restored(word) is None


def test_a_g_dropped_sign_is_covered_by_the_sign() -> None:
    told = concept("Still wheezin after the nebs. Max IM adrenaline dose for an adult?", "wheezin")
    assert frozenset({"wheez"}) in told.alternatives
