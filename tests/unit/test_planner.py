"""The planner's confidence (query/planner.py) and the ladder's steps (query/ladder.py), on states built by hand."""

from __future__ import annotations

import pytest

from voiceassist.models import AnswerStatus, Critique, PhiResult, QueryRequest, SearchBranch, SourceKind
from voiceassist.query import ladder, planner
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings

SETTINGS = Settings(evidence_threshold=0.55, relaxed_evidence_threshold=0.5)
KB = SearchBranch(kind=SourceKind.KNOWLEDGE_BASE, sources=["guidelines"], budget_seconds=6, timeout_seconds=8)
PUBMED = SearchBranch(kind=SourceKind.EXTERNAL, sources=["pubmed"], budget_seconds=4, timeout_seconds=6)


def state_for(query: str = "What is the maximum dose of metformin?", *, phi: bool | None = False,
              error: str | None = None, **fields: object) -> QueryState:
    checked = None if phi is None else PhiResult(contains_phi=phi, redacted_text=query, error=error)
    return QueryState(user_id="u", request=QueryRequest(query=query), phi=checked, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(("evidence", "step", "expected"), [
    (0.55, "hybrid", 0.5), (1.0, "hybrid", 1.0), (0.775, "hybrid", 0.75), (0.5, "relaxed", 0.25),
    (0.525, "relaxed", 0.375)])
def test_an_answers_confidence_follows_the_evidence_margin(evidence: float, step: str, expected: float) -> None:
    state = state_for(evidence_score=evidence, intent_confidence=1.0)
    state.ladder.step = step

    plan = planner.plan_of(SETTINGS, state)

    assert (plan.action, plan.confidence) == ("answer", expected)


def test_the_grounding_share_and_a_weak_intent_lower_an_answers_confidence() -> None:
    state = state_for(evidence_score=1.0, intent_confidence=0.0, grounding=0.5)

    assert planner.plan_of(SETTINGS, state).confidence == 0.375  # 1.0 x 0.75 x 0.5


@pytest.mark.parametrize(("evidence", "expected"), [(0.0, 1.0), (0.275, 0.75), (0.5, 0.545)])
def test_an_abstentions_confidence_grows_with_the_distance_under_the_threshold(evidence: float,
                                                                                expected: float) -> None:
    state = state_for(evidence_score=evidence, answer_status=AnswerStatus.NO_EVIDENCE)

    plan = planner.plan_of(SETTINGS, state)

    assert (plan.action, plan.confidence) == ("no_evidence", expected)


def test_a_withheld_answers_confidence_is_its_unsupported_share() -> None:
    critique = Critique(grounding=0.25, passed=False, action="abstained", step="dense", reason="only 25%")
    state = state_for(evidence_score=0.9, answer_status=AnswerStatus.NO_EVIDENCE, critiques=[critique])

    plan = planner.plan_of(SETTINGS, state)

    assert (plan.action, plan.confidence, plan.reason) == ("no_evidence", 0.75, "only 25%")


def test_a_calculator_question_plans_a_tool_with_the_share_of_findings_it_gives() -> None:
    state = state_for("CHA2DS2-VASc for a 75-year-old woman with hypertension and diabetes",
                      tool_route="chadsvasc")

    plan = planner.plan_of(SETTINGS, state)

    assert plan.action == "tool" and 0.0 < plan.confidence <= 1.0 and "chadsvasc" in plan.reason


def test_an_ambiguous_question_plans_a_clarification() -> None:
    state = state_for(clarifying_question="Which condition?", intent_confidence=0.25)

    assert (planner.plan_of(SETTINGS, state).action, planner.plan_of(SETTINGS, state).confidence) == (
        "clarify", 0.75)


def test_the_ladder_goes_from_hybrid_to_dense_then_pubmed_and_no_further() -> None:
    state = state_for(search_plan=[KB], fallback_pubmed=PUBMED)

    assert ladder.descend(state) and (state.ladder.step, state.search_plan) == ("dense", [KB])
    assert ladder.descend(state) and (state.ladder.step, state.search_plan) == ("pubmed", [PUBMED])
    assert not ladder.descend(state) and state.ladder.tried == []


@pytest.mark.parametrize(("phi", "error", "words"), [
    (True, None, "contains PHI"), (True, "detector down", "could not be checked"),
    (None, None, "could not be checked")])
def test_the_ladder_never_takes_a_phi_or_unchecked_question_to_pubmed(phi: bool | None, error: str | None,
                                                                       words: str) -> None:
    # even with a PubMed branch planned (defence in depth: Classify would not have planned one)
    state = state_for(phi=phi, error=error, search_plan=[KB], fallback_pubmed=PUBMED)
    state.ladder.step = "dense"

    assert not ladder.descend(state)
    assert state.search_plan == [KB] and not state.search_again
    assert [(a.step, a.evidence) for a in state.ladder.tried] == [("pubmed", None)]
    assert words in state.ladder.tried[0].reason


def test_pubmed_already_searched_is_not_searched_again() -> None:
    state = state_for(search_plan=[KB], sources_searched=["pubmed", "guidelines"])
    state.ladder.step = "dense"

    assert not ladder.descend(state) and "searched with the knowledge base" in state.ladder.tried[0].reason
