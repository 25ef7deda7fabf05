from __future__ import annotations

import pytest

from voiceassist.models import Intent
from voiceassist.query.intent import classify_intent


@pytest.mark.parametrize(("question", "expected"), [
    ("What is the starting dose of metformin and how is it titrated?", Intent.DRUG_INFO),
    ("What is the first-line treatment for community-acquired pneumonia in adults?", Intent.TREATMENT),
    ("What are the diagnostic criteria for sepsis?", Intent.DIAGNOSIS),
    ("What do the current guidelines recommend for blood pressure targets?", Intent.GUIDELINE),
    ("My patient is a 67 year old man with new atrial fibrillation, what should I do?", Intent.CASE_CONSULTATION),
    ("Tell me about the history of vaccination", Intent.GENERAL),
])
def test_classify_intent_picks_the_clinical_intent(question: str, expected: Intent) -> None:
    result = classify_intent(question)
    assert result.intent is expected
    assert 0.0 < result.confidence <= 1.0


def test_classify_intent_asks_for_the_type_of_an_ambiguous_condition() -> None:
    assert "type 1" in (classify_intent("What is the treatment of diabetes in adults?").clarifying_question or "")
    assert classify_intent("What is the treatment of type 2 diabetes in adults?").clarifying_question is None
    assert "chronic" in (classify_intent("How do I dose drugs in kidney disease?").clarifying_question or "")
    assert classify_intent("How do I dose drugs in chronic kidney disease stage 4?").clarifying_question is None


def test_classify_intent_asks_for_more_when_too_short() -> None:
    assert classify_intent("metformin?").clarifying_question is not None


def test_classify_intent_answers_two_words_that_name_a_topic_and_what_is_wanted() -> None:
    # as clinicians type into a search box: a drug and "dose", a condition and "treatment"
    assert classify_intent("metformin dose").clarifying_question is None
    assert classify_intent("CAP treatment").clarifying_question is None
    # but two words with no cue of what is wanted, or one cue alone, are asked about
    assert classify_intent("metformin eGFR").clarifying_question is not None
    assert classify_intent("dose?").clarifying_question is not None
    assert classify_intent("hi there").clarifying_question is not None
