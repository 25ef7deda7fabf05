"""A phrasal verb's particle is no verb of changing a course, and a food the drug dictionary lists is what the patient
ate when the story tells it (decision 0024, session 20, ans20a). Sentences written for these tests, none from a
question set."""

from __future__ import annotations

import pytest

from voiceassist.query import described_case, particles, story_exposures, wording
from voiceassist.query import question_concepts as qc
from voiceassist.query.question_concepts import question_concepts


def concept(question: str, label: str) -> qc.Concept:
    return next(c for c in question_concepts(question) if c.label.lower() == label)


def apart(question: str) -> bool:
    asked = wording.asked_clauses(question)
    assert asked is not None
    focus = [c for c in qc._concepts(". ".join(asked)) if c.topic]
    return described_case._ask_apart(focus, asked)


@pytest.mark.parametrize("text", [
    "which glucagon am I drawing up for the IM shot",
    "when do we see him back for the amoxicillin review",
    "should we sit her up before the IM adrenaline",
])
def test_a_particle_after_a_verb_or_its_object_is_no_verb(text: str) -> None:
    words = particles.verb_words(text, particles.course_phrasal_verbs())
    assert not {"up", "back"} & set(words)


@pytest.mark.parametrize("text", [
    "can I up the amlodipine", "Up the metformin?", "we up her lisinopril", "is it fine to up it",
    "bump it up", "cut back on the metformin", "step the dose down",
])
def test_a_particle_in_a_verbs_place_or_completing_a_course_phrasal_verb_is_kept(text: str) -> None:
    words = particles.verb_words(text, particles.course_phrasal_verbs())
    assert {"up", "back", "down"} & set(words)


def test_drawing_up_the_drug_leaves_the_ask_apart_from_the_story() -> None:
    question = ("Swollen lips and hoarse after a wasp at the allotment. "
                "Which epinephrine strength am I drawing up for the IM shot?")
    assert apart(question)
    # raising the dose is still a change of the course: the ask refers to the treatment, not apart from it
    assert not apart("Swollen lips after a wasp, already had one shot. Should I bump up the IM epinephrine?")
    assert not apart("On amlodipine 5 mg, pressure still high. Can I up the amlodipine?")


def test_the_food_drug_names_are_foods_not_medicines() -> None:
    assert story_exposures.is_food("shrimp") and story_exposures.is_food("Lobster")
    for name in ("metformin", "epinephrine", "grapefruit", "iron"):
        assert not story_exposures.is_food(name)


def test_a_dictionary_food_told_in_the_story_weighs_nothing_missing() -> None:
    question = "Lips swelled up after lobster at a wedding, wheezy. What IM epinephrine dose for an adult?"
    told = concept(question, "lobster")
    assert (told.weight, told.covered_weight) == (0.0, 1.0)
    assert concept(question, "epinephrine").weight == 1.0


@pytest.mark.parametrize("question", [
    "On metformin for her sugars. Can she eat shrimp on metformin?",
    "Is a lobster allergy a reason to avoid iodinated contrast?",
])
def test_a_food_the_ask_names_stays_a_topic(question: str) -> None:
    label = "shrimp" if "shrimp" in question else "lobster"
    assert concept(question, label).weight >= 1.0


def test_a_food_told_where_the_ask_refers_back_keeps_its_weight() -> None:
    # the ask refers back to the case ("that"): session 18's story-apart reading does not hold, so the food keeps
    # the background weight a drug of the case has
    question = "Ate shrimp, now hives and wheeze. Is that IM epinephrine dose safe to repeat?"
    assert concept(question, "shrimp").weight > 0.0


def test_the_food_drug_data_takes_one_english_word_filed_as_a_food(monkeypatch: pytest.MonkeyPatch) -> None:
    from voiceassist_local.evaluation import food_drug_data

    monkeypatch.setattr(food_drug_data, "drug_names", lambda: {
        "krill": "krill", "metformin": "metformin", "cod liver oil": "cod liver oil", "ferry": "ferry", "qz": "qz"})
    monkeypatch.setattr(food_drug_data, "common_words", lambda: frozenset({"krill", "metformin", "ferry", "qz"}))
    kinds = {"krill": "food", "ferry": "circumstance"}
    monkeypatch.setattr(food_drug_data.circumstance, "is_circumstance", lambda word, wordnet: word in kinds)
    monkeypatch.setattr(food_drug_data.circumstance, "kind", lambda word, wordnet: kinds[word])
    # a food, not a conveyance; not a phrase, a medicine WordNet does not file as a circumstance, nor a short word
    assert food_drug_data.food_drugs() == ["krill"]
