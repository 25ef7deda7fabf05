"""query.asl.json, run with the real handlers on the embedded stack: the routes between the stages.

The chat models are in-process scripts (no sockets); the stub-server runs over HTTP live in
tests/integration/test_phi_matrix.py. Retry waits are scaled to zero.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.pipelines import copy_json, install_interpreter_speedups

from tests.stubs.query_stack import index_passages
from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.errors import DependencyError, ModelUnavailable
from voiceassist.models import (
    AuditOutcome,
    ChatCompletion,
    ChatMessage,
    Chunk,
    DocumentMetadata,
    QueryRequest,
    QueryResponse,
    SearchHit,
    SourcePreferences,
    SourceType,
    TokenUsage,
)
from voiceassist.query.answering import FALLBACK_WARNING
from voiceassist.query.circuit_breaker import BreakerRegistry

USER = "clinician-1"
PASSAGES = {
    "metformin-dosing": "Metformin: start with 500 mg once or twice daily with meals; the usual maximum is "
                        "2,000 mg per day in divided doses. Reduce the dose when eGFR is between 30 and 45.",
    "hypertension-first-line": "For uncomplicated hypertension, first-line drugs are a thiazide diuretic, an "
                               "ACE inhibitor, an angiotensin receptor blocker or a calcium channel blocker.",
}
QUESTION = "What is the usual maximum daily dose of metformin?"


class ScriptedChatModel:
    """A ChatModel playing a script: a text is answered, an exception raised; the last entry repeats."""

    def __init__(self, name: str, *, in_boundary: bool, script: Sequence[str | Exception]) -> None:
        self.name = name
        self.in_boundary = in_boundary
        self.script = list(script)
        self.calls: list[list[ChatMessage]] = []

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        self.calls.append(list(messages))
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        usage = TokenUsage(prompt_tokens=50, completion_tokens=9)
        return ChatCompletion(text=step, model=self.name, usage=usage)

    def stream(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
               temperature: float = 0.1) -> Iterator[str]:
        yield self.complete(messages, max_tokens=max_tokens, temperature=temperature).text


@pytest.fixture
def deps(local_deps: Dependencies, runner: LocalPipelineRunner) -> Dependencies:
    """The embedded stack with two passages indexed directly (no ingestion) and the zero-wait runner."""
    index_passages(local_deps, "reference", "Sample reference", PASSAGES)
    local_deps.pipelines = runner  # type: ignore[misc]
    return local_deps


def ask(deps: Dependencies, cloud: Any = None, local: Any = None, question: str = QUESTION) -> QueryResponse:
    deps.cloud_chat, deps.local_chat = cloud, local  # type: ignore[misc]
    return service.answer(deps, QueryRequest(query=question), user_id=USER)


def audit_of(deps: Dependencies, response: QueryResponse) -> Any:
    return next(r for r in deps.audit.list(user_id=USER) if r.response_id == response.metadata.query_id)


def test_query_pipeline_answers_with_the_cloud_model_and_times_every_stage(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=["Up to 2,000 mg per day [1]."])

    response = ask(deps, cloud, ScriptedChatModel("llama", in_boundary=True, script=["unused"]))

    assert (response.answer, response.metadata.model, response.metadata.warnings) == (
        "Up to 2,000 mg per day [1].", "gpt-4o-mini", [])
    assert response.citations[0].section == "metformin-dosing"
    assert set(response.metadata.latency_ms) == {"detect_phi", "input_screen", "classify", "search_knowledge_base",
                                                 "evidence", "generate_primary", "grounding", "assemble"}
    assert audit_of(deps, response).outcome is AuditOutcome.ANSWERED


def test_query_pipeline_asks_a_clarifying_question_without_searching_or_generating(deps: Dependencies
                                                                                    ) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=["unused"])

    response = ask(deps, cloud, question="diabetes treatment?")

    assert response.clarifying_question and response.answer == response.clarifying_question
    assert (cloud.calls, response.metadata.sources_searched, response.citations) == ([], [], [])
    assert audit_of(deps, response).outcome is AuditOutcome.CLARIFY


def test_query_pipeline_retries_a_transient_cloud_failure_once(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False,
                              script=[ModelUnavailable("HTTP 503"), "Up to 2,000 mg per day [1]."])
    local = ScriptedChatModel("llama", in_boundary=True, script=["unused"])

    response = ask(deps, cloud, local)

    assert (response.metadata.model, response.metadata.warnings) == ("gpt-4o-mini", [])
    assert (len(cloud.calls), local.calls) == (2, [])


def test_query_pipeline_falls_back_after_the_retry_fails_and_says_so(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=[ModelUnavailable("HTTP 503")])
    local = ScriptedChatModel("llama", in_boundary=True, script=["At most 2,000 mg a day [1]."])

    response = ask(deps, cloud, local)

    assert (response.answer, response.metadata.model) == ("At most 2,000 mg a day [1].", "llama")
    assert response.metadata.warnings == [FALLBACK_WARNING.format(model="llama")]
    assert (len(cloud.calls), len(local.calls), response.metadata.degraded) == (2, 1, False)


def test_query_pipeline_does_not_retry_a_permanent_cloud_error(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=[DependencyError("HTTP 401")])
    local = ScriptedChatModel("llama", in_boundary=True, script=["At most 2,000 mg a day [1]."])

    response = ask(deps, cloud, local)

    assert (response.metadata.model, len(cloud.calls)) == ("llama", 1)


def test_query_pipeline_skips_an_open_circuit_without_calling_the_cloud(deps: Dependencies) -> None:
    breaker = BreakerRegistry(deps.state).for_model("gpt-4o-mini")
    for _ in range(breaker.failure_threshold):
        breaker.record_failure(breaker.acquire())
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=["unused"])
    local = ScriptedChatModel("llama", in_boundary=True, script=["At most 2,000 mg a day [1]."])

    response = ask(deps, cloud, local)

    assert (response.metadata.model, cloud.calls) == ("llama", [])


def test_query_pipeline_degrades_to_an_extractive_answer_when_every_model_fails(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=[ModelUnavailable("HTTP 503")])
    local = ScriptedChatModel("llama", in_boundary=True, script=[ModelUnavailable("endpoint down")])

    response = ask(deps, cloud, local)

    assert (response.metadata.model, response.metadata.extractive, response.metadata.degraded) == (
        "extractive", True, True)
    assert "2,000 mg" in response.answer and response.citations
    assert set(response.metadata.latency_ms) >= {"generate_extractive"}
    assert audit_of(deps, response).outcome is AuditOutcome.DEGRADED


def test_query_pipeline_without_any_model_answers_extractively_but_not_degraded(deps: Dependencies) -> None:
    response = ask(deps)

    assert (response.metadata.model, response.metadata.extractive, response.metadata.degraded) == (
        "extractive", True, False)
    assert "2,000 mg" in response.answer


def test_query_pipeline_sends_a_phi_question_only_to_the_in_boundary_model(deps: Dependencies) -> None:
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=["unused"])
    local = ScriptedChatModel("llama", in_boundary=True, script=["At most 2,000 mg a day [1]."])
    question = "Patient John Smith, MRN 4417823: what is the usual maximum daily dose of metformin?"

    response = ask(deps, cloud, local, question=question)

    assert (response.metadata.model, response.metadata.phi_detected, cloud.calls) == ("llama", True, [])
    assert question in local.calls[0][-1].content
    assert "John Smith" not in audit_of(deps, response).query_redacted


class ScriptedLiterature:
    """PubMed in-process: one abstract, or a search that ignores its deadline and outlasts the backstop."""

    name, in_boundary, budget_seconds = "pubmed", False, 4.0

    def __init__(self, *, hang_s: float = 0.0) -> None:
        self.hang_s = hang_s
        self.queries: list[tuple[str, float | None]] = []

    def search(self, query: str, *, top_k: int = 5, deadline_s: float | None = None) -> list[SearchHit]:
        self.queries.append((query, deadline_s))
        time.sleep(self.hang_s)
        metadata = DocumentMetadata(doc_key="pmid:31000001", title="Metformin dosing in CKD: a cohort",
                                    source_type=SourceType.PUBMED, pmid="31000001",
                                    url="https://pubmed.ncbi.nlm.nih.gov/31000001/")
        chunk = Chunk(chunk_id="pmid:31000001", doc_id="pmid:31000001", doc_key="pmid:31000001", version=1,
                      ordinal=0, text="Metformin up to 1,000 mg per day was safe with eGFR 30 to 45.",
                      token_count=20, metadata=metadata)
        return [SearchHit(chunk=chunk, score=1.0, source="pubmed")]


PUBMED_FIRST = SourcePreferences.model_validate({"prioritize": ["pubmed", "guidelines"]})


def test_query_pipeline_searches_pubmed_in_parallel_and_cites_its_article(deps: Dependencies) -> None:
    literature = ScriptedLiterature()
    deps.external_sources = {"pubmed": literature}  # type: ignore[misc]
    deps.cloud_chat = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=["Up to 1,000 mg [1], see [2]."])

    response = service.answer(deps, QueryRequest(query=QUESTION, sources=PUBMED_FIRST), user_id=USER)

    assert response.metadata.sources_searched == ["pubmed", "guidelines", "drug_references"]
    # [2] (the guideline) does not say "1,000 mg": the grounding check removes it like a dangling citation
    assert [(c.pmid, c.url) for c in response.citations] == [
        ("31000001", "https://pubmed.ncbi.nlm.nih.gov/31000001/")]
    assert "removed citations whose excerpt does not support the sentence: [2]" in response.metadata.warnings
    assert literature.queries == [(QUESTION, deps.settings.pubmed_budget_seconds)]
    assert {"search_knowledge_base", "search_pubmed"} <= set(response.metadata.latency_ms)


def test_query_pipeline_turns_a_source_that_outlasts_its_backstop_into_a_warning(deps: Dependencies) -> None:
    # Given a PubMed client that ignores its 0.2 s budget: the state machine's time-out (1 + 2 s) stops it
    slow = ScriptedLiterature(hang_s=6)
    slow.budget_seconds = 0.2
    deps.external_sources = {"pubmed": slow}  # type: ignore[misc]

    started = time.perf_counter()
    response = service.answer(deps, QueryRequest(query=QUESTION, sources=PUBMED_FIRST), user_id=USER)

    assert time.perf_counter() - started < 5.5
    assert response.metadata.warnings == ["source pubmed was unavailable (States.Timeout); answered without them"]
    assert "2,000 mg" in response.answer and response.metadata.degraded is False


def test_interpreter_speedups_leave_the_pipelines_answer_unchanged(deps: Dependencies) -> None:
    def answer() -> dict[str, Any]:
        cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=[ModelUnavailable("HTTP 503")])
        local = ScriptedChatModel("llama", in_boundary=True, script=["At most 2,000 mg a day [1]."])
        response = ask(deps, cloud, local).model_dump(mode="json")
        response["metadata"] = {key: value for key, value in response["metadata"].items()
                                if key not in ("query_id", "latency_ms")}
        return response

    before = answer()
    install_interpreter_speedups()

    assert answer() == before


def test_copy_json_copies_every_level_and_hands_other_objects_to_deepcopy() -> None:
    original: dict[str, Any] = {"hits": [{"chunk": {"text": "metformin", "page": None}, "score": 0.5}],
                                "when": datetime(2026, 1, 2, tzinfo=UTC), "flags": (True, 1.5)}

    copied = copy_json(original)
    copied["hits"][0]["chunk"]["text"] = "changed"

    assert original["hits"][0]["chunk"]["text"] == "metformin"
    assert (copied["when"], copied["flags"]) == (original["when"], original["flags"])
    assert copied["hits"] is not original["hits"]
    def local() -> int:  # pickle refuses a local function, deepcopy keeps it
        return 1

    unpicklable = {"call": local, "hits": [{"score": 0.5}]}
    assert copy_json(unpicklable) == unpicklable


class CountingDetector:
    """The real detector, recording every text it is asked about."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.texts = inner, []

    def detect(self, text: str) -> Any:
        self.texts.append(text)
        return self.inner.detect(text)


def test_query_pipeline_detects_a_question_asked_alone_once_before_the_cloud_model(deps: Dependencies) -> None:
    detector = CountingDetector(deps.phi_detector)
    deps.phi_detector = detector  # type: ignore[assignment]
    vars(deps).pop("query", None)
    cloud = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=["Up to 2,000 mg per day [1]."])

    response = ask(deps, cloud)

    assert response.metadata.model == "gpt-4o-mini"
    assert detector.texts == [QUESTION]


def test_query_pipeline_detects_what_a_conversation_adds_before_the_cloud_model(deps: Dependencies) -> None:
    detector = CountingDetector(deps.phi_detector)
    deps.phi_detector = detector  # type: ignore[assignment]
    vars(deps).pop("query", None)
    deps.cloud_chat = ScriptedChatModel("gpt-4o-mini", in_boundary=False, script=["Up to 2,000 mg per day [1]."])
    earlier = "user: my patient takes metformin"

    response = service.answer(deps, QueryRequest(query=QUESTION), user_id=USER, history=[earlier])

    assert response.metadata.model == "gpt-4o-mini"
    assert detector.texts[0] == QUESTION and any("takes metformin" in text for text in detector.texts[1:])
