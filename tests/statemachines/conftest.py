"""Fixtures for running ingest.asl.json and query.asl.json in-process with the real handlers on the embedded
stack."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.handlers import function_names, load_handler, placeholder_for
from voiceassist_local.pipelines import PIPELINES

from tests.stubs.query_stack import query_runner
from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.models import JOB_TRANSITIONS, IndexingJob, JobState, SearchMode, SearchQuery
from voiceassist.ports import JobStore

Ingest = Callable[..., IndexingJob]


class LifecycleRecordingJobStore:
    """A JobStore that records every state change written through it, and each one the lifecycle forbids."""

    def __init__(self, inner: JobStore) -> None:
        self.inner = inner
        self.moves: list[tuple[str, JobState, JobState]] = []
        self.forbidden: list[tuple[str, JobState, JobState]] = []

    def save(self, job: IndexingJob, *, expected_state: JobState) -> None:
        self.inner.save(job, expected_state=expected_state)  # the store's compare-and-set: it was expected_state
        if job.state is not expected_state:
            self.moves.append((job.job_id, expected_state, job.state))
            if job.state not in JOB_TRANSITIONS[expected_state]:
                self.forbidden.append((job.job_id, expected_state, job.state))

    def states_of(self, job_id: str) -> list[JobState]:
        """The states a job went through after its creation, in order."""
        return [to for moved, _, to in self.moves if moved == job_id]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def ingest_deps(local_deps: Dependencies) -> Iterator[Dependencies]:
    """The embedded stack with ingest.asl.json on a runner of the real ingest_* handlers (Retry waits scaled to
    zero); every job state change is checked against the lifecycle when the test ends."""
    recorder = LifecycleRecordingJobStore(local_deps.jobs)
    local_deps.jobs = recorder  # before anything builds the ingestion context
    tasks = {placeholder_for(name): load_handler(name) for name in function_names() if name.startswith("ingest_")}
    local_deps.pipelines = LocalPipelineRunner(  # closed by local_deps
        {"ingest": PIPELINES["ingest"]}, tasks, retry_interval_scale=0)
    yield local_deps
    assert recorder.forbidden == [], "job state changes the lifecycle forbids"


@pytest.fixture
def ingest(ingest_deps: Dependencies) -> Ingest:
    """Upload a document as the API does, wait for its execution, and return the job as it ended."""

    def upload(filename: str, data: bytes, **metadata: Any) -> IndexingJob:
        registration = service.accept_upload(ingest_deps, filename=filename, data=data,
                                             metadata=service.metadata_for(filename, metadata))
        runner: LocalPipelineRunner = ingest_deps.pipelines
        runner.join(timeout=120)
        return ingest_deps.jobs.get(registration.job.job_id)

    return upload


@pytest.fixture
def keyword_search(ingest_deps: Dependencies) -> Callable[[str], list[tuple[str, int]]]:
    """(doc_key, version) of every chunk a BM25 search finds, best first: what a reader can see."""

    def search(text: str) -> list[tuple[str, int]]:
        hits = ingest_deps.index.search(SearchQuery(text=text, mode=SearchMode.BM25, top_k=50))
        return [(hit.chunk.doc_key, hit.chunk.version) for hit in hits]

    return search


@pytest.fixture(scope="module")
def runner() -> Iterator[LocalPipelineRunner]:
    """query.asl.json on the real query handlers (zero-wait retries), shared by a module's tests."""
    with query_runner() as pipeline_runner:
        yield pipeline_runner

