"""The planner, the retrieval fallback ladder and the critic, through the real query.asl.json and handlers.

The ladder (query/ladder.py) loops from "Good Results?" back to "Search Sources"; the critic (query/critic.py)
from "Grounded?". PubMed is an in-process SearchSource recording what it was asked; PHI never reaches it.
"""

from __future__ import annotations

from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner

from tests.statemachines.test_query_pipeline import PASSAGES, QUESTION, USER, ScriptedChatModel
from tests.stubs.query_stack import CrashingDetector, index_passages
from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.models import (
    AnswerStatus,
    Chunk,
    DocumentMetadata,
    QueryRequest,
    QueryResponse,
    SearchHit,
    SourceType,
)
from voiceassist.phi.detection import FailClosedDetector
from voiceassist.query import answering, ladder

UNCOVERED = "What is the first-line treatment for acute gout flares?"
PHI_UNCOVERED = "Patient John Smith, MRN 4417823: what is the first-line treatment for acute gout flares?"
UNSUPPORTED = "Metformin cures gout within 3 days [1]."
SUPPORTED = "Up to 2,000 mg per day [1]."


class GoutLiterature:
    """PubMed in-process: one abstract about gout; records every question it was sent."""

    name, in_boundary, budget_seconds = "pubmed", False, 4.0

    def __init__(self) -> None:
        self.queries: list[str] = []

    def search(self, query: str, *, top_k: int = 5, deadline_s: float | None = None) -> list[SearchHit]:
        self.queries.append(query)
        metadata = DocumentMetadata(doc_key="pmid:32000002", title="Treatment of acute gout flares",
                                    source_type=SourceType.PUBMED, pmid="32000002",
                                    url="https://pubmed.ncbi.nlm.nih.gov/32000002/")
        chunk = Chunk(chunk_id="pmid:32000002", doc_id="pmid:32000002", doc_key="pmid:32000002", version=1,
                      ordinal=0, text="Colchicine or an NSAID is the first-line treatment for acute gout flares.",
                      token_count=20, metadata=metadata)
        return [SearchHit(chunk=chunk, score=1.0, source="pubmed")]


@pytest.fixture
def deps(local_deps: Dependencies, runner: LocalPipelineRunner) -> Dependencies:
    """Two passages (metformin dosing, hypertension), no chat model unless a test sets one, PubMed in-process."""
    index_passages(local_deps, "reference", "Sample reference", PASSAGES)
    local_deps.pipelines = runner  # type: ignore[misc]
    local_deps.external_sources = {"pubmed": GoutLiterature()}  # type: ignore[misc]
    return local_deps


def ask(deps: Dependencies, question: str, cloud: Any = None, local: Any = None) -> QueryResponse:
    deps.cloud_chat, deps.local_chat = cloud, local  # type: ignore[misc]
    return service.answer(deps, QueryRequest(query=question), user_id=USER)


def steps_of(response: QueryResponse) -> list[tuple[str, bool]]:
    """(step, searched) for every ladder step taken or skipped."""
    assert response.metadata.plan is not None
    return [(a.step, a.evidence is not None) for a in response.metadata.plan.retrieval.tried]


def test_a_covered_question_is_answered_from_the_hybrid_step_with_a_confident_plan(deps: Dependencies) -> None:
    response = ask(deps, QUESTION)

    plan = response.metadata.plan
    assert plan is not None and (plan.action, plan.retrieval.step) == ("answer", "hybrid")
    assert steps_of(response) == [("hybrid", True)]
    assert 0.5 < plan.confidence <= 1.0 and "reaches the threshold" in plan.reason
    assert [c.action for c in plan.critiques] == ["accepted"]
    assert deps.external_sources["pubmed"].queries == []


def test_an_uncovered_question_goes_down_the_ladder_to_pubmed_and_cites_it(deps: Dependencies) -> None:
    response = ask(deps, UNCOVERED)

    assert response.metadata.answer_status is AnswerStatus.ANSWERED
    assert [c.pmid for c in response.citations] == ["32000002"] and "Colchicine" in response.answer
    assert steps_of(response) == [("hybrid", True), ("relaxed", True), ("dense", True), ("pubmed", True)]
    plan = response.metadata.plan
    assert plan is not None and (plan.action, plan.retrieval.step) == ("answer", "pubmed")
    assert ladder.LOWER_STEP_WARNING.format(step="PubMed") in response.metadata.warnings
    assert deps.external_sources["pubmed"].queries == [UNCOVERED]
    assert "pubmed" in response.metadata.sources_searched


def test_a_phi_question_never_goes_down_to_pubmed(deps: Dependencies) -> None:
    response = ask(deps, PHI_UNCOVERED)

    assert deps.external_sources["pubmed"].queries == []
    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE and response.citations == []
    assert steps_of(response) == [("hybrid", True), ("relaxed", True), ("dense", True), ("pubmed", False)]
    plan = response.metadata.plan
    assert plan is not None and plan.action == "no_evidence" and plan.confidence > 0.5
    assert "contains PHI" in plan.retrieval.tried[-1].reason
    assert "John Smith" not in str(plan.model_dump()) and "4417823" not in str(plan.model_dump())


def test_a_failed_phi_check_counts_as_phi_and_never_goes_down_to_pubmed(deps: Dependencies) -> None:
    deps.phi_detector = FailClosedDetector(CrashingDetector())  # type: ignore[arg-type,misc]

    response = ask(deps, UNCOVERED)

    assert deps.external_sources["pubmed"].queries == []
    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE
    plan = response.metadata.plan
    assert plan is not None and plan.retrieval.tried[-1].step == "pubmed"
    assert "could not be checked for PHI" in plan.retrieval.tried[-1].reason


def test_the_relaxed_step_answers_with_a_weak_evidence_warning_and_a_lower_confidence(deps: Dependencies) -> None:
    deps.settings = deps.settings.model_copy(update={"evidence_threshold": 0.97,  # type: ignore[misc]
                                                     "relaxed_evidence_threshold": 0.5})

    response = ask(deps, "What is the maximum daily metformin dose in divided doses for most adults?")

    assert response.metadata.answer_status is AnswerStatus.ANSWERED and "2,000 mg" in response.answer
    assert steps_of(response) == [("hybrid", True), ("relaxed", True)], response.metadata.plan
    plan = response.metadata.plan
    assert plan is not None and plan.retrieval.step == "relaxed" and 0.2 <= plan.confidence < 0.5
    assert any(w.startswith("weak evidence:") for w in response.metadata.warnings)
    assert deps.external_sources["pubmed"].queries == []


def test_the_critic_withdraws_an_unsupported_answer_and_retries_once_down_the_ladder(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=[UNSUPPORTED, SUPPORTED])

    response = ask(deps, QUESTION, cloud)

    assert (response.answer, response.metadata.answer_status) == (SUPPORTED, AnswerStatus.ANSWERED)
    assert len(cloud.calls) == 2 and response.citations
    plan = response.metadata.plan
    assert plan is not None and [(c.action, c.step) for c in plan.critiques] == [
        ("retried", "hybrid"), ("accepted", "dense")]
    assert plan.retrieval.step == "dense" and plan.action == "answer"
    assert any(w.startswith("a first answer was withdrawn") for w in response.metadata.warnings)
    assert not any("sentence(s) that no cited excerpt supports" in w for w in response.metadata.warnings)


def test_the_critic_abstains_when_the_retry_is_unsupported_too(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=[UNSUPPORTED])

    response = ask(deps, QUESTION, cloud)

    assert (response.answer, response.citations) == (answering.UNGROUNDED_REPLY, [])
    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE and len(cloud.calls) == 2
    assert response.metadata.usage.completion_tokens == 18  # both answers were paid for (9 tokens each)
    plan = response.metadata.plan
    assert plan is not None and plan.action == "no_evidence"
    assert [c.action for c in plan.critiques] == ["retried", "abstained"]
    assert "the retry failed too" in plan.reason


def test_the_critic_never_retries_a_phi_question_on_pubmed(deps: Dependencies) -> None:
    # Given a PHI question whose in-boundary answers are never supported: the critic retries on the dense step
    # (in-boundary), then abstains; PubMed is never asked
    local = ScriptedChatModel("llama", in_boundary=True, script=[UNSUPPORTED])
    question = "Patient John Smith, MRN 4417823: what is the usual maximum daily dose of metformin?"

    response = ask(deps, question, local=local)

    assert deps.external_sources["pubmed"].queries == []
    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE and response.citations == []
    plan = response.metadata.plan
    assert plan is not None and [c.action for c in plan.critiques] == ["retried", "abstained"]
    assert len(local.calls) == 2 and "John Smith" not in str(plan.model_dump())


def test_the_relaxed_step_never_answers_a_question_naming_a_single_topic(deps: Dependencies) -> None:
    # "metformin" is its one topic word (the rest are generic): weak evidence there is any metformin passage
    deps.settings = deps.settings.model_copy(update={"evidence_threshold": 0.97,  # type: ignore[misc]
                                                     "relaxed_evidence_threshold": 0.5})
    deps.external_sources = {}  # type: ignore[misc]

    response = ask(deps, "What is the usual maximum daily dose of metformin for elderly adults?")

    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE
    assert steps_of(response)[:3] == [("hybrid", True), ("relaxed", True), ("dense", True)]
    assert response.metadata.plan is not None
    assert "no passage names every topic" in response.metadata.plan.retrieval.tried[1].reason


def test_phi_in_the_earlier_messages_keeps_the_ladder_off_pubmed(deps: Dependencies) -> None:
    history = ["user: Patient John Smith, MRN 4417823, has painful swollen toes.", "assistant: See [1]."]

    response = service.answer(deps, QueryRequest(query=UNCOVERED), user_id=USER, history=history)

    assert deps.external_sources["pubmed"].queries == []
    assert response.metadata.answer_status is AnswerStatus.NO_EVIDENCE
    plan = response.metadata.plan
    assert plan is not None and plan.retrieval.tried[-1].step == "pubmed"
    assert "contains PHI" in plan.retrieval.tried[-1].reason
