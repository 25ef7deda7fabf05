"""Every question is offered the tools, through the real query.asl.json and the real model adapters: the cloud
model is the OpenAI SDK on the OpenAI stub, the in-boundary model a boto3 SageMaker client on the same stub's
InvokeEndpoint route (tests/stubs/query_stack.py). A question that names no calculator is searched by the model
and answered with the search's citation; a PHI question offers the in-boundary model only the tools that may
receive PHI; when the cloud model fails, the in-boundary fallback is offered the tools; nothing with PHI
reaches the cloud stub; the sync and streamed answers of a turn that searched are the same."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.server import make_server

from tests.integration.test_query_events import parse_sse, post, stable
from tests.stubs.openai_stub import StubReply
from tests.stubs.query_stack import (
    CLINICAL_CONTEXT,
    CLOUD_ANSWER,
    CLOUD_MODEL,
    IN_BOUNDARY_ANSWER,
    SAGEMAKER_MODEL,
    QueryStack,
    find_phi,
    query_stack,
)
from voiceassist.query.answering import FALLBACK_WARNING

QUESTION = "What is the maximum daily dose of metformin?"  # names no calculator
PHI_QUESTION = "Patient John Smith, MRN 4417823: what is the maximum daily dose of metformin?"
PHI_VALUES = ("John Smith", "4417823")
SEARCH = StubReply(tool_calls=(("search_knowledge_base", {"query": "metformin maximum daily dose"}),))


def open_stack(seed_dir: Path, runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               embedder: Any, detector: Any, **options: Any) -> Any:
    return query_stack(seed_dir, tmp_path, monkeypatch, runner=runner, embedder=embedder, detector=detector,
                       **options)


def offered(request: dict[str, Any]) -> list[str]:
    return sorted(tool["function"]["name"] for tool in request.get("tools", []))


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def audited_tools(stack: QueryStack) -> list[tuple[str | None, int | None]]:
    return [(r.tool, r.tool_status) for r in stack.deps.audit.list(user_id="clinician-1") if r.tool]


def test_the_cloud_model_searches_then_answers_citing_the_search(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    with open_stack(kb_seed_dir, kb_runner, tmp_path, monkeypatch, shared_embedder, shared_phi_detector,
                    cloud_script=[SEARCH, StubReply(text=CLOUD_ANSWER)]) as stack:
        response = stack.ask(QUESTION)

        first, second = stack.cloud.requests
        assert {"calculate_medical_score", "search_knowledge_base", "search_pubmed"} <= set(offered(first))
        assert CLINICAL_CONTEXT in first["messages"][0]["content"]  # the answer path's session context
        assert second["messages"][-2]["tool_calls"][0]["function"]["name"] == "search_knowledge_base"
        (result,) = tool_messages(second)
        assert result.startswith("(1) ") and "(cite as [1])" in result
        assert (response.answer, response.metadata.model) == (CLOUD_ANSWER, CLOUD_MODEL)
        assert response.citations and "metformin" in response.citations[0].doc_key
        assert audited_tools(stack) == [("search_knowledge_base", 200)]
        assert stack.sagemaker.requests == []


def test_a_phi_question_offers_the_in_boundary_model_only_the_tools_that_may_receive_phi(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    with open_stack(kb_seed_dir, kb_runner, tmp_path, monkeypatch, shared_embedder, shared_phi_detector,
                    sagemaker_script=[SEARCH, StubReply(text=IN_BOUNDARY_ANSWER)]) as stack:
        response = stack.ask(PHI_QUESTION)

        phi_safe = sorted(d.name for d in stack.deps.tool_registry.definitions() if d.requires_phi)
        assert [offered(r) for r in stack.sagemaker.requests] == [phi_safe, phi_safe]
        assert "search_pubmed" not in phi_safe
        assert (response.answer, response.metadata.model) == (IN_BOUNDARY_ANSWER, SAGEMAKER_MODEL)
        assert stack.cloud.raw_requests == [] and find_phi(PHI_VALUES, *stack.stored_text()) == []
        assert audited_tools(stack) == [("search_knowledge_base", 200)]


def test_the_in_boundary_fallback_is_offered_the_tools_when_the_cloud_model_fails(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    with open_stack(kb_seed_dir, kb_runner, tmp_path, monkeypatch, shared_embedder, shared_phi_detector,
                    cloud_script=[StubReply(status=503)],
                    sagemaker_script=[SEARCH, StubReply(text=IN_BOUNDARY_ANSWER)]) as stack:
        response = stack.ask(QUESTION)

        assert stack.cloud.requests and all("tools" in r for r in stack.cloud.requests)  # offered, then failed
        assert "search_pubmed" in offered(stack.sagemaker.requests[0])  # no PHI: every tool
        assert tool_messages(stack.sagemaker.requests[1])[0].startswith("(1) ")
        assert (response.answer, response.metadata.model) == (IN_BOUNDARY_ANSWER, SAGEMAKER_MODEL)
        assert FALLBACK_WARNING.format(model=SAGEMAKER_MODEL) in response.metadata.warnings
        assert audited_tools(stack) == [("search_knowledge_base", 200)]


def test_sync_and_stream_give_the_same_answer_when_the_model_searches_first(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    answer = StubReply(text=CLOUD_ANSWER)
    with open_stack(kb_seed_dir, kb_runner, tmp_path, monkeypatch, shared_embedder, shared_phi_detector,
                    cloud_script=[SEARCH, answer, SEARCH, answer]) as stack:
        server = make_server("127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            sync = json.loads(post(f"{url}/v1/query", {"query": QUESTION})[1])
            streamed = parse_sse(post(f"{url}/v1/query/stream", {"query": QUESTION})[1])
        finally:
            server.shutdown()
            server.server_close()

        assert len(stack.cloud.requests) == 4  # each run: a search, then the answer
    done = streamed[-1][1]
    assert stable(done) == stable(sync) and sync["answer"] == CLOUD_ANSWER and sync["citations"]
    tokens = [data for kind, data in streamed if kind == "token"]
    assert "".join(t["text"] for t in tokens if "draft" not in t) == done["answer"]
    assert "".join(t["text"] for t in tokens if "draft" in t) == CLOUD_ANSWER  # the model's answer, live
    tools = [data for kind, data in streamed if kind == "tool"]
    assert [(t["phase"], t["name"]) for t in tools] == [("call", "search_knowledge_base"),
                                                          ("result", "search_knowledge_base")]
