"""The PHI boundary where the in-boundary Llama is on Amazon Bedrock (dev, decision 0016): the real query pipeline
builds a real bedrock-runtime client (VOICEASSIST_IN_BOUNDARY_PROVIDER=bedrock) that speaks Converse to a stub on
127.0.0.1. A question carrying PHI goes to Bedrock as asked and never to OpenAI; with Bedrock throttled it is
answered extractively, still never by OpenAI; a PHI-free question still goes to OpenAI first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner

from tests.stubs.openai_stub import StubReply
from tests.stubs.query_stack import (
    BEDROCK_MODEL_ID,
    CLOUD_ANSWER,
    CLOUD_MODEL,
    IN_BOUNDARY_ANSWER,
    SAGEMAKER_MODEL,
    QueryStack,
    find_phi,
    query_stack,
    recorded_logs,
)
from voiceassist.query.answering import DEGRADED_WARNING
from voiceassist.settings import InBoundaryProvider

PHI = ("Maria Gonzalez", "MRN 5581234")
PHI_QUESTION = "Patient Maria Gonzalez, MRN 5581234, eGFR 40: what is the maximum metformin dose?"
PHI_FREE_QUESTION = "What is the maximum metformin dose for an eGFR of 40?"
CONVERSE_PATH = f"/model/{BEDROCK_MODEL_ID.replace(':', '%3A')}/converse"


@pytest.fixture
def bedrock_stack(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch, shared_embedder: Any, shared_phi_detector: Any) -> Any:
    def open_(**options: Any) -> Any:
        return query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                           detector=shared_phi_detector, in_boundary_provider=InBoundaryProvider.BEDROCK,
                           clinical_context=None, **options)

    return open_


@pytest.fixture
def nothing_leaked(capfd: pytest.CaptureFixture[str]) -> Iterator[Any]:
    with recorded_logs() as logs:
        def check(stack: QueryStack) -> None:
            out, err = capfd.readouterr()
            assert find_phi(PHI, *(r.path + r.body for r in stack.cloud.raw_requests)) == [], "PHI reached OpenAI"
            assert find_phi(PHI, *logs, out, err, *stack.traces.entries, *stack.stored_text()) == []

        yield check


def test_a_phi_question_is_answered_by_bedrock_as_asked_and_never_by_openai(bedrock_stack: Any,
                                                                          nothing_leaked: Any) -> None:
    with bedrock_stack() as stack:
        response = stack.ask(PHI_QUESTION)

        assert (response.metadata.phi_detected, response.metadata.model) == (True, SAGEMAKER_MODEL)
        assert response.answer == IN_BOUNDARY_ANSWER and response.citations
        assert stack.cloud.raw_requests == []
        converse = [r for r in stack.sagemaker.raw_requests if r.path == CONVERSE_PATH]
        assert converse and PHI_QUESTION in converse[-1].body  # in-boundary: the question as it was asked
        assert not [r for r in stack.sagemaker.raw_requests if "/invocations" in r.path]  # no SageMaker call
        nothing_leaked(stack)


def test_with_bedrock_throttled_a_phi_question_stays_inside_and_is_answered_extractively(
        bedrock_stack: Any, nothing_leaked: Any) -> None:
    with bedrock_stack(sagemaker_script=[StubReply(status=429)]) as stack:
        response = stack.ask(PHI_QUESTION)

        meta = response.metadata
        assert (meta.model, meta.extractive, meta.degraded) == ("extractive", True, True)
        assert DEGRADED_WARNING in meta.warnings and response.citations
        throttled = [r for r in stack.sagemaker.raw_requests if r.path == CONVERSE_PATH]
        assert len(throttled) == 2  # transient: retried once, then no other in-boundary model is left
        assert stack.cloud.raw_requests == []
        nothing_leaked(stack)


def test_a_phi_free_question_still_goes_to_the_cloud_model_first(bedrock_stack: Any) -> None:
    with bedrock_stack() as stack:
        response = stack.ask(PHI_FREE_QUESTION)

        assert (response.metadata.phi_detected, response.metadata.model) == (False, CLOUD_MODEL)
        assert response.answer == CLOUD_ANSWER
        assert not [r for r in stack.sagemaker.raw_requests if r.path == CONVERSE_PATH]
