"""The planner, the retrieval ladder and the critic as a client sees them: the same run streamed and synchronous,
stub model servers that answer unsupported sentences, the PubMed stub over HTTP, and the PHI boundary kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.event_stream import stream_query

from tests.stubs.openai_stub import StubReply
from tests.stubs.query_stack import USER, CrashingDetector, query_stack
from voiceassist.composition import dependencies
from voiceassist.conversation import events, orchestrator
from voiceassist.models import QueryRequest
from voiceassist.query import answering

UNSUPPORTED = "Metformin cures gout within 3 days [1]."
QUESTION = "What is the metformin dose for eGFR 40?"
UNCOVERED = "What is the first-line treatment for acute gout flares?"
PHI_UNCOVERED = "Patient John Smith, MRN 4417823: what is the first-line treatment for acute gout flares?"
PHI_VALUES = ("John Smith", "Smith", "4417823")
VOLATILE = ("query_id", "latency_ms", "trace_id")


def streamed(question: str) -> list[events.Event]:
    return list(stream_query(QueryRequest(query=question), user_id=USER, trace_id="req-test"))


def stable(response: dict[str, Any]) -> dict[str, Any]:
    return {**response, "metadata": {k: v for k, v in response["metadata"].items() if k not in VOLATILE}}


def of_type(items: list[events.Event], kind: str) -> list[dict[str, Any]]:
    return [item["data"] for item in items if item["type"] == kind]


def test_a_withdrawn_answer_streams_and_returns_the_same_retry_and_abstention(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector, cloud_script=[StubReply(text=UNSUPPORTED)]) as stack:
        stream = streamed(QUESTION)
        sync = orchestrator.respond(dependencies(), QueryRequest(query=QUESTION), user_id=USER, trace_id="req-2")
        assert len(stack.cloud.requests) == 4  # two answers a run: the first, and the retry one step down

    done = stream[-1]["data"]
    assert stable(done) == stable(sync.model_dump(mode="json"))
    assert (done["answer"], done["citations"], done["metadata"]["answer_status"]) == (
        answering.UNGROUNDED_REPLY, [], "no_evidence")
    kinds = [item["type"] for item in stream if item["type"] != "token"]
    assert kinds == ["route", "plan", "retrieval", "route", "retrieval", "route", "citations", "critique", "done"]
    first, second = of_type(stream, "retrieval")
    assert (first["step"], second["step"]) == ("hybrid", "dense")
    assert of_type(stream, "plan")[0]["plan"]["action"] == "answer"
    [critique] = of_type(stream, "critique")
    assert [c["action"] for c in critique["critic"]] == ["retried", "abstained"]
    assert done["metadata"]["plan"]["action"] == "no_evidence"


def test_an_uncovered_phi_free_question_reaches_pubmed_over_http_and_says_which_steps_it_tried(
        kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_embedder: Any, shared_phi_detector: Any) -> None:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector) as stack:
        stream = streamed(UNCOVERED)
        assert stack.pubmed.requests_to("esearch")  # the ladder's last step searched PubMed

    steps = [(a["step"], a["evidence"] is not None) for a in stream[-1]["data"]["metadata"]["plan"]["retrieval"]
             ["tried"]]
    assert steps[-1] == ("pubmed", True) and ("dense", True) in steps
    assert [r["step"] for r in of_type(stream, "retrieval")][-1] == "pubmed"
    assert "pubmed" in stream[-1]["data"]["metadata"]["sources_searched"]


@pytest.mark.parametrize("failed_check", [False, True], ids=["phi", "failed-phi-check"])
def test_an_uncovered_phi_question_never_reaches_pubmed_nor_the_cloud_and_no_event_repeats_it(
        failed_check: bool, kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, shared_embedder: Any, shared_phi_detector: Any) -> None:
    from voiceassist.phi.detection import FailClosedDetector

    detector = FailClosedDetector(CrashingDetector()) if failed_check else shared_phi_detector  # type: ignore[arg-type]
    question = UNCOVERED if failed_check else PHI_UNCOVERED
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=detector) as stack:
        stream = streamed(question)
        assert stack.pubmed.requests == [] and stack.cloud.raw_requests == []

    done = stream[-1]["data"]
    assert done["metadata"]["answer_status"] == "no_evidence"
    last = done["metadata"]["plan"]["retrieval"]["tried"][-1]
    assert last["step"] == "pubmed" and last["evidence"] is None and "PHI" in last["reason"]
    steps = [e for e in stream if e["type"] in ("route", "plan", "retrieval", "critique", "citations")]
    assert [v for v in PHI_VALUES if v.lower() in json.dumps(steps).lower()] == []
