"""The query pipeline with PHI detection in a worker process and the local runner reading ahead (Settings
.phi_worker_process; adapters/presidio/worker.py, query/read_ahead.py): the same answers and the same boundary
as with the detection on a thread; a worker that dies during the question fails it closed (treated as PHI,
answered inside the boundary, nothing sent to the cloud)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import pytest
from voiceassist_local.pipelines import local_pipeline_runner

from tests.stubs.query_stack import CLOUD_ANSWER, CLOUD_MODEL, SAGEMAKER_MODEL, QueryStack, query_stack
from voiceassist.adapters.presidio.worker import WorkerPhiDetector
from voiceassist.observability import listen_to_stages
from voiceassist.phi import FailClosedDetector

PHI_QUESTION = "Patient John Smith, MRN 4417823: what is the maximum daily dose of metformin?"
PHI_FREE_QUESTION = "What is the maximum daily dose of metformin?"
DETECTOR_FAILED = "PHI detection failed; the question was treated as containing PHI"
SLOW_MACHINE_S = 60.0  # the worker starts in seconds, more on a busy CI machine; the Detect PHI state allows 10 s


class DyingWorkerDetector(WorkerPhiDetector):
    """The worker process ends (os._exit, as a crash or the OOM killer would) just as the question arrives."""

    def begin(self, text: str) -> None:
        self.worker.pool().submit(os._exit, 1)
        super().begin(text)


class OpenStack(Protocol):
    def __call__(self, detector: Any) -> AbstractContextManager[QueryStack]: ...


@pytest.fixture(scope="module")
def reading_runner() -> Iterator[Any]:
    runner = local_pipeline_runner()  # the local runtime's runner: it reads ahead
    yield runner
    runner.close()  # type: ignore[attr-defined]


@pytest.fixture
def open_stack(kb_seed_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_embedder: Any,
               reading_runner: Any) -> OpenStack:
    def open_with(detector: Any) -> AbstractContextManager[QueryStack]:
        return query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=reading_runner, embedder=shared_embedder,
                           detector=FailClosedDetector(detector, timeout_s=SLOW_MACHINE_S), clinical_context=None,
                           settings_overrides={"phi_worker_process": True})
    return open_with


def test_query_with_the_phi_worker_routes_as_the_detector_on_a_thread(open_stack: OpenStack) -> None:
    with open_stack(WorkerPhiDetector(timeout_s=SLOW_MACHINE_S)) as stack:
        phi = stack.ask(PHI_QUESTION)
        assert stack.cloud.raw_requests == []  # the PHI question: never the cloud
        phi_free = stack.ask(PHI_FREE_QUESTION)

    assert (phi.metadata.model, phi.metadata.phi_detected) == (SAGEMAKER_MODEL, True)
    assert phi.citations and phi.citations[0].title
    assert (phi_free.metadata.model, phi_free.metadata.phi_detected) == (CLOUD_MODEL, False)
    assert phi_free.answer.startswith(CLOUD_ANSWER.split(":")[0])
    assert [c.chunk_id for c in phi_free.citations] == [c.chunk_id for c in phi.citations]
    assert all("4417823" not in request.body and "Smith" not in request.body for request in stack.cloud.raw_requests)


def test_query_with_the_phi_worker_reports_the_work_run_ahead_as_stages(open_stack: OpenStack) -> None:
    """bench/query.py counts as orchestration only the time no stage covers: the detection begun ahead and the
    search read ahead must be reported as stages, within the question's time."""
    spans: list[tuple[str, float, float]] = []
    with open_stack(WorkerPhiDetector(timeout_s=SLOW_MACHINE_S)) as stack:
        stack.ask(PHI_FREE_QUESTION)  # the worker started
        listen_to_stages(lambda stage, begin, end: spans.append((stage, begin, end)))
        try:
            asked = time.perf_counter()
            stack.ask(PHI_QUESTION)
            answered = time.perf_counter()
        finally:
            listen_to_stages(None)

    assert {"detect_phi_ahead", "search_knowledge_base_ahead", "detect_phi", "search_knowledge_base"} <= {
        stage for stage, _, _ in spans}
    assert all(asked <= begin <= end <= answered for _, begin, end in spans)


def test_query_whose_phi_worker_dies_fails_closed_inside_the_boundary(open_stack: OpenStack) -> None:
    with open_stack(DyingWorkerDetector(timeout_s=SLOW_MACHINE_S)) as stack:
        response = stack.ask(PHI_FREE_QUESTION)

    assert (response.metadata.model, response.metadata.phi_detected) == (SAGEMAKER_MODEL, True)
    assert DETECTOR_FAILED in response.metadata.warnings
    assert stack.cloud.raw_requests == []  # unchecked: nothing leaves
