"""A condition named only as the setting of a question about something else gets no clarifying question."""

from __future__ import annotations

import pytest

from voiceassist.query.intent import classify_intent
from voiceassist.query.question_topic import is_setting, other_topics


@pytest.mark.parametrize("question", [
    "Which antibiotics for CAP in an outpatient with diabetes or chronic heart disease?",
    "What is the dose of empagliflozin in heart failure?",
    "Blood pressure target in a patient with diabetes?",
    "What is the treatment of hypertension in diabetes?",
    "Can a patient with poorly controlled diabetes take prednisone?",
    "Is warfarin safe in a woman with a history of hepatitis?",
])
def test_a_comorbidity_in_a_question_about_something_else_is_not_asked_about(question: str) -> None:
    assert classify_intent(question).clarifying_question is None


@pytest.mark.parametrize(("question", "asked"), [
    ("What is the first-line treatment for diabetes?", "type 1"),
    ("What is the treatment of diabetes in adults?", "type 1"),
    ("How is heart failure treated with diuretics?", "HFrEF"),  # the condition comes first: it is the topic
    ("A patient with diabetes: what is the first-line treatment?", "type 1"),  # nothing else is asked about
    ("My patient John Smith with diabetes: first-line treatment?", "type 1"),  # a name is not a topic
    ("How do I dose drugs in kidney disease?", "chronic"),
    ("Which hepatitis vaccine for a patient with hepatitis?", "hepatitis A"),
])
def test_the_condition_the_question_is_about_is_still_asked_about(question: str, asked: str) -> None:
    assert asked in (classify_intent(question).clarifying_question or "")


def test_a_setting_needs_a_marker_before_it_and_another_topic() -> None:
    question = "What is the dose of empagliflozin in heart failure?"
    start = question.index("heart failure")
    assert is_setting(question, start, start + len("heart failure"))
    bare = "What is the usual dose in heart failure?"
    start = bare.index("heart failure")
    assert not is_setting(bare, start, start + len("heart failure"))  # "dose", "usual" say what is asked
    unmarked = "Heart failure and empagliflozin: what dose?"
    assert not is_setting(unmarked, 0, len("Heart failure"))


def test_generic_words_people_and_names_are_not_topics() -> None:
    assert other_topics("What is the first-line treatment for an elderly woman, Mary Jones, ") == frozenset()
    assert other_topics("What is the dose of empagliflozin") == {"empagliflozin"}


@pytest.mark.parametrize("question", [
    "Heart failure on the problem list, COPD too. What inhaler should she use?",
    "Known hepatitis, asthma flaring - which steroid dose for the asthma?",
    "She has diabetes and smokes; what's the best way to stop smoking?",
    "Lymphoma years ago, in remission. Which pneumococcal vaccine now?",
])
def test_a_condition_in_the_case_description_is_not_asked_about(question: str) -> None:
    # the clause that asks (wording.asked_clauses) names a topic of its own; the condition only describes the case
    assert classify_intent(question).clarifying_question is None


@pytest.mark.parametrize(("question", "asked"), [
    ("Asthma is well controlled; what is the first-line treatment for diabetes?", "type 1"),
    ("COPD and obesity. How is her heart failure best treated?", "HFrEF"),
    ("Hepatitis in pregnancy, what's the management?", "hepatitis A"),  # the asked clause names nothing else
])
def test_an_ambiguous_condition_in_the_asked_clause_is_still_asked_about(question: str, asked: str) -> None:
    assert asked in (classify_intent(question).clarifying_question or "")
