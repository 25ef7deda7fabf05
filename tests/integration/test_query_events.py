"""One orchestrator: the query run's events, streamed as SSE over real HTTP, aggregated by REST, and the PHI
boundary kept while streaming (the cloud model never gets a PHI question; a failed detector counts as PHI)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.event_stream import stream_query

from tests.stubs.query_stack import IN_BOUNDARY_ANSWER, USER, CrashingDetector, query_stack
from voiceassist.conversation import events
from voiceassist.models import QueryRequest
from voiceassist.query import tool_loop

PHI_QUESTION = ("Patient John Smith, MRN 4417823, DOB 03/14/1956: what is the metformin dose for eGFR 40? "
                "Call 617-555-0199.")
PHI_VALUES = ("John Smith", "Smith", "4417823", "03/14/1956", "617-555-0199")
VOLATILE = ("query_id", "latency_ms", "trace_id")  # differ between any two runs of the same question


def post(url: str, body: dict[str, Any]) -> tuple[str, bytes]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as reply:
        return reply.headers.get("content-type", ""), reply.read()


def parse_sse(data: bytes) -> list[tuple[str, Any]]:
    parsed = []
    for block in data.decode().split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        parsed.append((fields["event"], json.loads(fields["data"])))
    return parsed


def stable(response: dict[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in response["metadata"].items() if k not in VOLATILE}
    return {**response, "metadata": metadata}


def assert_in_order(kinds: list[str]) -> None:
    """route, plan, retrieval, route (the model), tokens, citations, critique, done: each once, tokens many."""
    tokens = [i for i, k in enumerate(kinds) if k == "token"]
    assert tokens == list(range(tokens[0], tokens[-1] + 1)) and len(tokens) >= 3
    collapsed = [k for i, k in enumerate(kinds) if k != "token" or i == tokens[0]]
    assert collapsed == ["route", "plan", "retrieval", "route", "token", "citations", "critique", "done"]


def test_sync_and_stream_give_the_same_answer_and_events_come_in_order(kb_server_url: str) -> None:
    body = {"query": "What is the metformin dose for eGFR 40?"}
    content_type, rest = post(f"{kb_server_url}/v1/query", body)
    assert content_type.startswith("application/json")
    stream_type, raw = post(f"{kb_server_url}/v1/query/stream", body)
    assert stream_type.startswith("text/event-stream")

    streamed = parse_sse(raw)
    kinds = [kind for kind, _ in streamed]
    assert_in_order(kinds)
    done = streamed[-1][1]
    sync = json.loads(rest)
    assert stable(done) == stable(sync)  # the same answer, citations, warnings and routing
    assert sync["citations"] and sync["citations"][0]["doc_key"] == "sample-metformin"
    assert "".join(data["text"] for kind, data in streamed if kind == "token") == done["answer"]
    by_kind = {kind: data for kind, data in streamed}
    assert by_kind["citations"]["citations"] == done["citations"]
    assert streamed[0][1]["phi_detected"] is False and streamed[0][1]["boundary"] == "cloud_allowed"
    assert by_kind["plan"]["action"] == "search" and by_kind["plan"]["searches"]
    assert "sample-metformin" in [d["doc_key"] for d in by_kind["retrieval"]["documents"]]
    assert by_kind["critique"]["grounded"] is True and by_kind["critique"]["cited_sentences"] >= 1


def test_a_clarifying_question_streams_plan_then_the_question(kb_server_url: str) -> None:
    _, raw = post(f"{kb_server_url}/v1/query/stream", {"query": "dose?"})
    streamed = parse_sse(raw)
    kinds = [kind for kind, _ in streamed]
    assert kinds[:2] == ["route", "plan"] and "retrieval" not in kinds and kinds[-1] == "done"
    assert streamed[1][1]["action"] == "clarify"
    done = streamed[-1][1]
    assert done["clarifying_question"] and "".join(
        d["text"] for k, d in streamed if k == "token") == done["answer"]


def test_an_invalid_body_is_a_json_400_before_any_stream(kb_server_url: str) -> None:
    for body in ({"query": "  "}, {"query": "x" * 4001}, {"question": "metformin dose?"}):
        request = urllib.request.Request(f"{kb_server_url}/v1/query/stream", data=json.dumps(body).encode(),
                                         method="POST", headers={"content-type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)
        reply = json.loads(refused.value.read())
        assert refused.value.code == 400 and refused.value.headers["content-type"] == "application/json"
        # POST /v1/query's code and details for the same body (it said invalid_input, without details)
        assert reply["error"]["code"] == "invalid_request" and reply["error"]["trace_id"]
        assert reply["error"]["details"] and reply["error"]["details"][0]["field"] in ("query", "question")


def test_a_stream_refusal_never_echoes_a_field_name_that_is_free_text(kb_server_url: str) -> None:
    """As POST /v1/query's 400 (tests/unit/api/test_api_errors.py): a key that is not shaped like a field name (a
    patient's name, an MRN) is not named back."""
    body = {"query": "What is the dose of metformin?", "John Smith MRN 4417823": 1}
    request = urllib.request.Request(f"{kb_server_url}/v1/query/stream", data=json.dumps(body).encode(),
                                     method="POST", headers={"content-type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    reply = refused.value.read().decode()
    assert refused.value.code == 400 and "Smith" not in reply and "4417823" not in reply


def test_a_foreign_session_streams_an_error_event(kb_server_url: str) -> None:
    _, raw = post(f"{kb_server_url}/v1/query/stream", {"query": "metformin dose?", "session_id": "ses_nobody"})
    [(kind, data)] = parse_sse(raw)
    assert kind == "error" and data["error"]["code"] == "not_found"


def test_a_streamed_question_the_client_got_wrong_is_not_logged_as_a_failure(kb_server_url: str) -> None:
    """An unknown session is the client's 404: the stream logged it at ERROR as 'streamed query failed', with its
    stack frames, as if the server had failed (found by a WebSocket client probe)."""
    import logging

    from voiceassist.observability import logger

    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.ERROR)
    handler.emit = records.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        _, raw = post(f"{kb_server_url}/v1/query/stream", {"query": "metformin dose?", "session_id": "ses_nobody"})
    finally:
        logger.removeHandler(handler)
    assert parse_sse(raw)[-1][0] == "error" and [r.getMessage() for r in records] == []


# ---- PHI while streaming -----------------------------------------------------------------------------------

def run_streamed(question: str) -> list[events.Event]:
    return list(stream_query(QueryRequest(query=question), user_id=USER, trace_id="req-test"))


def test_a_streamed_phi_question_never_reaches_the_cloud_model_and_no_step_event_repeats_it(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector) as stack:
        streamed = run_streamed(PHI_QUESTION)
        assert stack.cloud.raw_requests == []  # the cloud model was never called
        # the in-boundary model streamed its answer (InvokeEndpointWithResponseStream) as draft tokens
        assert [r.path.rsplit("/", 1)[-1] for r in stack.sagemaker.raw_requests] == ["invocations-response-stream"]
    drafts = [e["data"]["text"] for e in streamed if e["type"] == "token" and "draft" in e["data"]]
    assert "".join(drafts) == IN_BOUNDARY_ANSWER
    route, model_route = [e["data"] for e in streamed if e["type"] == "route"]
    assert route["phi_detected"] is True and route["boundary"] == "in_boundary_only"
    assert {"PERSON", "PHONE_NUMBER"} & set(route["phi_entity_types"])
    assert model_route["in_boundary"] is True and model_route["model"] == "llama-3.1-8b"
    steps = [e for e in streamed if e["type"] in ("route", "plan", "retrieval", "critique", "citations")]
    assert [v for v in PHI_VALUES if v.lower() in json.dumps(steps).lower()] == []
    assert streamed[-1]["type"] == "done" and streamed[-1]["data"]["metadata"]["phi_detected"] is True


def test_a_failed_detector_keeps_a_streamed_question_inside_the_boundary(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any) -> None:
    from voiceassist.phi.detection import FailClosedDetector

    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=FailClosedDetector(CrashingDetector())) as stack:  # type: ignore[arg-type]
        streamed = run_streamed("What is the metformin dose for eGFR 40?")
        assert stack.cloud.raw_requests == [] and stack.pubmed.requests == []
    route = streamed[0]["data"]
    assert streamed[0]["type"] == "route" and route["detector_failed"] is True
    assert route["phi_detected"] is True and route["boundary"] == "in_boundary_only"
    assert "recognizer crashed" not in json.dumps(streamed)
    assert streamed[-1]["type"] == "done"


def test_a_phi_free_streamed_question_goes_to_the_cloud_model(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector) as stack:
        streamed = run_streamed("What is the metformin dose for eGFR 40?")
        assert len(stack.cloud.requests) == 1 and stack.sagemaker.requests == []
    model_route = [e["data"] for e in streamed if e["type"] == "route"][1]
    assert model_route["model"] == "gpt-4o-mini" and model_route["in_boundary"] is False


def test_a_calculator_question_streams_its_tool_result_before_the_answer(kb_server_url: str) -> None:
    body = {"query": "CHA2DS2-VASc for a 75-year-old woman with hypertension and diabetes"}
    streamed = parse_sse(post(f"{kb_server_url}/v1/query/stream", body)[1])
    kinds = [kind for kind, _ in streamed]
    tools = [data for kind, data in streamed if kind == "tool"]
    assert [t["phase"] for t in tools] == ["call", "result"] and tools[0]["call_id"] == tools[1]["call_id"]
    assert tools[0]["name"] == tool_loop.CALCULATOR_TOOL and isinstance(tools[0]["arguments"], list)
    assert tools[1]["ok"] is True and "5" in tools[1]["content"]
    assert kinds.index("tool") < kinds.index("token") and kinds[-1] == "done"
    assert streamed[-1][1]["metadata"]["answer_status"] == "tool_result"


def test_a_client_that_leaves_mid_stream_closes_its_channel_and_the_server_goes_on(kb_server_url: str) -> None:
    import socket
    import time
    from urllib.parse import urlsplit

    from voiceassist.adapters.local.event_hub import HUB

    address = urlsplit(kb_server_url)
    body = json.dumps({"query": "What is the metformin dose for eGFR 40?"}).encode()
    with socket.create_connection((address.hostname, address.port), timeout=60) as client:
        client.sendall(f"POST /v1/query/stream HTTP/1.1\r\nHost: {address.netloc}\r\n".encode()
                       + b"Content-Type: application/json\r\n"
                       + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        received = b""
        while b"event: route" not in received:
            chunk = client.recv(4096)
            assert chunk, f"the server closed the stream before its first event: {received[:200]!r}"
            received += chunk
        # leave without reading the rest
    deadline = time.monotonic() + 60
    while HUB._channels and time.monotonic() < deadline:  # the run finishes on its own, then the face closes
        time.sleep(0.05)
    assert HUB._channels == {}
    _, rest = post(f"{kb_server_url}/v1/query", {"query": "What is the metformin dose for eGFR 40?"})
    assert json.loads(rest)["citations"]
