from __future__ import annotations

import pytest

from voiceassist.errors import InvalidTransition
from voiceassist.models import MAX_JOB_ATTEMPTS, IndexingJob, JobState, QueryRequest


def new_job() -> IndexingJob:
    return IndexingJob(doc_id="doc_1", doc_key="guide", version=1)


def test_job_lifecycle_happy_path_sets_timestamps() -> None:
    job = new_job().transition(JobState.RUNNING)
    assert job.started_at is not None and job.finished_at is None
    done = job.transition(JobState.COMPLETED)
    assert done.state is JobState.COMPLETED and done.finished_at is not None


@pytest.mark.parametrize(("start", "to"), [
    (JobState.PENDING, JobState.COMPLETED),
    (JobState.COMPLETED, JobState.RUNNING),
    (JobState.SUPERSEDED, JobState.PENDING),
    (JobState.RUNNING, JobState.PENDING),
])
def test_job_refuses_invalid_transitions(start: JobState, to: JobState) -> None:
    job = new_job().model_copy(update={"state": start})
    with pytest.raises(InvalidTransition):
        job.transition(to)


def test_job_failure_keeps_reason_and_retry_clears_it() -> None:
    failed = new_job().transition(JobState.RUNNING).transition(JobState.FAILED, reason="encrypted PDF")
    assert failed.reason == "encrypted PDF"
    retried = failed.retry()
    assert retried.state is JobState.PENDING and retried.attempts == 2 and retried.reason is None


def test_job_retry_stops_after_max_attempts() -> None:
    job = new_job()
    for _ in range(MAX_JOB_ATTEMPTS - 1):
        job = job.transition(JobState.RUNNING).transition(JobState.FAILED, reason="boom").retry()
    job = job.transition(JobState.RUNNING).transition(JobState.FAILED, reason="boom")
    with pytest.raises(InvalidTransition, match="limit is 3"):
        job.retry()


def test_job_retry_only_from_failed() -> None:
    with pytest.raises(InvalidTransition):
        new_job().retry()


def test_query_request_rejects_blank_and_strips() -> None:
    with pytest.raises(ValueError):
        QueryRequest(query="   ")
    assert QueryRequest(query="  dose of metformin? ").query == "dose of metformin?"
