"""The local runner embeds a question's knowledge-base text beside PHI detection, only with an in-boundary
embedder, and the answer is the one the question gets without it (voiceassist_local.query_prefetch)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from voiceassist_local.pipelines import local_pipeline_runner
from voiceassist_local.query_prefetch import PrefetchingEmbedder

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.models import QueryRequest, QueryResponse
from voiceassist.ports import Vectors
from voiceassist.query.expansion import expand_query

PHI_QUESTION = "Patient John Smith, MRN 4471230: what is the maximum daily dose of metformin for eGFR 40?"


class RecordingEmbedder:
    """The shared embedder, recording each call's texts and thread, and whether PHI detection had finished."""

    def __init__(self, inner: Any, *, in_boundary: bool, detections: list[str]) -> None:
        self.inner, self.in_boundary, self.detections = inner, in_boundary, detections
        self.model_id, self.dimension, self.max_tokens = inner.model_id, inner.dimension, inner.max_tokens
        self.calls: list[tuple[list[str], str, int]] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append((list(texts), threading.current_thread().name, len(self.detections)))
        return self.inner.embed(texts)

    def count_tokens(self, text: str) -> int:
        return int(self.inner.count_tokens(text))


class RecordingDetector:
    def __init__(self, inner: Any, detections: list[str]) -> None:
        self.inner, self.detections = inner, detections

    def detect(self, text: str) -> Any:
        result = self.inner.detect(text)
        self.detections.append(text)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def recording(kb_deps: Dependencies) -> Iterator[tuple[Dependencies, list[str]]]:
    detections: list[str] = []
    kb_deps.phi_detector = RecordingDetector(kb_deps.phi_detector, detections)  # type: ignore[misc]
    yield kb_deps, detections


def _ask(deps: Dependencies, question: str) -> QueryResponse:
    return service.answer(deps, QueryRequest(query=question), user_id="clinician-1")


def _answer_of(response: QueryResponse) -> tuple[Any, ...]:
    return (response.answer, [c.chunk_id for c in response.citations], response.metadata.answer_status,
            response.metadata.phi_detected)


def test_query_prefetch_embeds_the_question_once_beside_phi_detection_with_the_same_answer(
        recording: tuple[Dependencies, list[str]]) -> None:
    deps, detections = recording
    plain = _answer_of(_ask(deps, PHI_QUESTION))  # kb_runner: no prefetch
    embedder = RecordingEmbedder(deps.embedder, in_boundary=True, detections=detections)
    deps.embedder = embedder  # type: ignore[misc]
    runner = local_pipeline_runner(deps)
    deps.pipelines = runner  # type: ignore[misc]
    try:
        response = _ask(deps, PHI_QUESTION)
    finally:
        runner.close()  # type: ignore[attr-defined]

    assert isinstance(deps.embedder, PrefetchingEmbedder)
    # the knowledge-base text was embedded once, ahead, on its own thread (inside the boundary: the ONNX model)
    assert [(texts, thread.startswith("embed-ahead")) for texts, thread, _ in embedder.calls] == [
        ([expand_query(PHI_QUESTION)], True)]
    assert _answer_of(response) == plain
    assert response.metadata.phi_detected


def test_query_prefetch_never_embeds_ahead_of_the_phi_verdict_outside_the_boundary(
        recording: tuple[Dependencies, list[str]]) -> None:
    deps, detections = recording
    embedder = RecordingEmbedder(deps.embedder, in_boundary=False, detections=detections)
    deps.embedder = embedder  # type: ignore[misc]
    runner = local_pipeline_runner(deps)
    deps.pipelines = runner  # type: ignore[misc]
    try:
        _ask(deps, "What is the maximum daily dose of metformin?")
    finally:
        runner.close()  # type: ignore[attr-defined]

    assert deps.embedder is embedder  # not wrapped
    assert embedder.calls and all(not thread.startswith("embed-ahead") and detected >= 1
                                  for _, thread, detected in embedder.calls)


def test_query_prefetch_drops_a_vector_no_search_took(recording: tuple[Dependencies, list[str]]) -> None:
    deps, _ = recording
    runner = local_pipeline_runner(deps)
    deps.pipelines = runner  # type: ignore[misc]
    try:
        response = _ask(deps, "hi")  # a greeting: answered without a search
    finally:
        runner.close()  # type: ignore[attr-defined]

    assert isinstance(deps.embedder, PrefetchingEmbedder)
    assert response.metadata.sources_searched == []
    assert deps.embedder._pending == {}
