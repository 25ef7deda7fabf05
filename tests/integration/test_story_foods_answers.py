"""A food told in the story is what the patient ate; a food the ask names is what is asked (decision 0024, session
20, ans20a), through the whole pipeline on the bundled sample corpus with the extractive default. Questions written
for this test, none from a question set."""

from __future__ import annotations

import pytest
from voiceassist_local.cli.local import ensure_sample_corpus

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.models import AnswerStatus, QueryRequest


def ask(deps: Dependencies, query: str):  # type: ignore[no-untyped-def]
    return service.answer(deps, QueryRequest(query=query, top_k=5), user_id="story-foods")


@pytest.mark.parametrize("query", [
    "She is on metformin for her sugars. Can she eat shrimp on metformin?",
    "Is it safe to eat lobster while taking lisinopril?",
])
def test_a_food_the_ask_names_is_not_answered_from_a_passage_without_it(local_deps: Dependencies,
                                                                       query: str) -> None:
    ensure_sample_corpus(local_deps)
    assert ask(local_deps, query).metadata.answer_status is not AnswerStatus.ANSWERED


def test_a_food_told_in_the_story_does_not_refuse_the_dose_asked(local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)
    reply = ask(local_deps, "Lips swelled and he is wheezy after shrimp at a wedding. "
                            "What is the IM adrenaline dose for an adult?")
    assert reply.metadata.answer_status is AnswerStatus.ANSWERED, reply.answer
    assert '"shrimp"' not in reply.answer
