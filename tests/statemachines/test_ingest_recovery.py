"""Crash recovery and lifecycle races: a job whose worker died is re-driven (at start-up, by reconciliation or by
retry), a re-upload of a stuck PENDING version is indexed, and a document deleted during its ingestion stays
deleted and unsearchable (Finalize commits on the status it read)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from datetime import timedelta

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.errors import InvalidTransition
from voiceassist.ingest import recovery, registration
from voiceassist.ingest import stages as ingestion
from voiceassist.models import MAX_JOB_ATTEMPTS, MAX_JOB_REQUEUES, DocumentStatus, IndexingJob, JobState, utc_now

Search = Callable[[str], list[tuple[str, int]]]
TEXT = b"Quartan fever responds to zorbafen 37 mg twice daily for nine days in adults without renal failure."
# A title of its own: "Zorbafen" alone, the title derived from the file name, reads as a surname to the PHI screen
# of the metadata (a rare capitalised word), which would redact it and re-key the document (ingest/screening.py).
METADATA = {"title": "Dosing of zorbafen"}


def dead_worker() -> str:
    finished = subprocess.run(["true"], check=True)  # noqa: S607 - a process that has exited
    del finished
    process = subprocess.Popen(["true"])  # noqa: S607
    process.wait()
    return f"{recovery.HOST}/{process.pid}/deadbeef"


def left_behind(deps: Dependencies, *, state: JobState, worker: str, silent_for: float = 0.0) -> IndexingJob:
    """An upload registered by a worker that stopped while its job was `state` (no execution moves it)."""
    registration = service.accept_upload(deps, filename="zorbafen.txt", data=TEXT,
                                         metadata=service.metadata_for("zorbafen.txt", METADATA), start_pipeline=False)
    job = registration.job
    if state is JobState.RUNNING:
        job = job.transition(JobState.RUNNING)
    stale = job.model_copy(update={"worker": worker, "updated_at": utc_now() - timedelta(seconds=silent_for)})
    deps.jobs.save(stale, expected_state=registration.job.state)
    return stale


def finish(deps: Dependencies) -> None:
    runner: LocalPipelineRunner = deps.pipelines
    runner.join(timeout=120)


@pytest.mark.parametrize(("state", "action", "attempts", "requeues"),
                         [(JobState.PENDING, "requeued", 1, 1), (JobState.RUNNING, "redriven", 2, 0)])
def test_reconciliation_redrives_a_job_whose_worker_died(ingest_deps: Dependencies, keyword_search: Search,
                                                         state: JobState, action: str, attempts: int,
                                                         requeues: int) -> None:
    """A job that never ran (PENDING) is put back without spending an attempt; a RUNNING one spends one."""
    stuck = left_behind(ingest_deps, state=state, worker=dead_worker())

    recovered = service.reconcile_jobs(ingest_deps)
    finish(ingest_deps)

    assert [(r.job_id, r.action) for r in recovered] == [(stuck.job_id, action)]
    job = ingest_deps.jobs.get(stuck.job_id)
    assert (job.state, job.attempts, job.requeues) == (JobState.COMPLETED, attempts, requeues)
    assert ingest_deps.documents.get(stuck.doc_id).status is DocumentStatus.ACTIVE
    assert ("zorbafen", 1) in keyword_search("zorbafen quartan")


def test_reconciliation_leaves_a_live_job_alone_until_its_lease_runs_out(ingest_deps: Dependencies) -> None:
    elsewhere = "another-host/4242/cafe"
    fresh = left_behind(ingest_deps, state=JobState.RUNNING, worker=elsewhere)
    assert service.reconcile_jobs(ingest_deps) == []
    assert ingest_deps.jobs.get(fresh.job_id).state is JobState.RUNNING

    silent = fresh.model_copy(update={"updated_at": utc_now() - timedelta(seconds=10_000)})
    ingest_deps.jobs.save(silent, expected_state=JobState.RUNNING)
    assert [r.action for r in service.reconcile_jobs(ingest_deps)] == ["redriven"]
    finish(ingest_deps)
    assert ingest_deps.jobs.get(fresh.job_id).state is JobState.COMPLETED


def test_a_stuck_job_out_of_attempts_ends_failed_with_the_reason(ingest_deps: Dependencies) -> None:
    stuck = left_behind(ingest_deps, state=JobState.RUNNING, worker=dead_worker())
    ingest_deps.jobs.save(stuck.model_copy(update={"attempts": 3}), expected_state=JobState.RUNNING)

    assert [r.action for r in service.reconcile_jobs(ingest_deps)] == ["failed"]
    job = ingest_deps.jobs.get(stuck.job_id)
    assert job.state is JobState.FAILED and job.reason is not None and job.reason.startswith("interrupted")


def test_a_job_that_never_ran_is_not_failed_by_crashes_that_outnumber_its_attempts(ingest_deps: Dependencies) -> None:
    """Three kills of a server while a document waited in its queue: the document is indexed all the same."""
    waiting = left_behind(ingest_deps, state=JobState.PENDING, worker=dead_worker())
    ingest_deps.jobs.save(waiting.model_copy(update={"attempts": MAX_JOB_ATTEMPTS, "requeues": 2}),
                          expected_state=JobState.PENDING)

    assert [r.action for r in service.reconcile_jobs(ingest_deps)] == ["requeued"]
    finish(ingest_deps)
    job = ingest_deps.jobs.get(waiting.job_id)
    assert (job.state, job.attempts, job.requeues) == (JobState.COMPLETED, MAX_JOB_ATTEMPTS, 3)


def test_a_job_put_back_too_often_without_running_ends_failed_with_the_reason(ingest_deps: Dependencies) -> None:
    waiting = left_behind(ingest_deps, state=JobState.PENDING, worker=dead_worker())
    ingest_deps.jobs.save(waiting.model_copy(update={"requeues": MAX_JOB_REQUEUES}), expected_state=JobState.PENDING)

    recovered = service.reconcile_jobs(ingest_deps)
    assert [r.action for r in recovered] == ["failed"]
    assert f"put back {MAX_JOB_REQUEUES} times without running" in recovered[0].reason
    assert ingest_deps.jobs.get(waiting.job_id).state is JobState.FAILED


def test_a_job_whose_trigger_died_before_its_document_is_left_to_the_triggers_retry(
        ingest_deps: Dependencies, keyword_search: Search) -> None:
    """A trigger killed between writing the job and its document (registration writes the job first): a re-drive
    has no upload to read and left the job FAILED for good (the kill -9 folder-drop test lost a file so); the
    reconciler leaves it, and the trigger's retry writes the document, takes the job over and indexes it."""
    execution = "local-ingest-killed-mid-trigger"
    metadata = service.metadata_for("zorbafen.txt", METADATA)
    ingest_deps.blobs.put("incoming/zorbafen.txt", TEXT)
    orphan = IndexingJob(job_id=registration.registration_job_id(execution), doc_id="doc_zorbafen_v1",
                         doc_key=metadata.doc_key, version=1, worker=dead_worker(), execution_id=execution)
    ingest_deps.jobs.create(orphan)

    assert service.reconcile_jobs(ingest_deps) == []
    assert ingest_deps.jobs.get(orphan.job_id).state is JobState.PENDING

    retried = registration.register(ingest_deps.ingestion, blob_key="incoming/zorbafen.txt", metadata=metadata,
                                    filename="zorbafen.txt", execution_id=execution)
    assert (retried.job.job_id, retried.job.worker) == (orphan.job_id, recovery.WORKER)  # taken over: not stuck
    assert ingest_deps.documents.get(retried.job.doc_id).status is DocumentStatus.PENDING


def test_retry_accepts_a_stuck_job_and_refuses_a_live_one(ingest_deps: Dependencies) -> None:
    live = left_behind(ingest_deps, state=JobState.RUNNING, worker="another-host/4242/cafe")
    with pytest.raises(InvalidTransition, match="alive"):
        service.retry_job(ingest_deps, live.job_id)

    stuck = live.model_copy(update={"worker": dead_worker()})
    ingest_deps.jobs.save(stuck, expected_state=JobState.RUNNING)
    retried = service.retry_job(ingest_deps, stuck.job_id)
    finish(ingest_deps)

    assert (retried.state, retried.attempts) == (JobState.PENDING, 2)
    assert ingest_deps.jobs.get(stuck.job_id).state is JobState.COMPLETED


def test_reupload_of_a_stuck_pending_version_is_indexed_not_unchanged(ingest_deps: Dependencies,
                                                                     keyword_search: Search) -> None:
    stuck = left_behind(ingest_deps, state=JobState.PENDING, worker=dead_worker())

    again = service.accept_upload(ingest_deps, filename="zorbafen.txt", data=TEXT,
                                  metadata=service.metadata_for("zorbafen.txt", METADATA))
    finish(ingest_deps)

    assert not again.unchanged and again.document.version == 2
    assert ingest_deps.jobs.get(again.job.job_id).state is JobState.COMPLETED
    assert ingest_deps.jobs.get(stuck.job_id).state is JobState.FAILED
    assert keyword_search("zorbafen quartan")[0] == ("zorbafen", 2)


def test_reupload_while_the_first_upload_is_alive_is_unchanged(ingest_deps: Dependencies) -> None:
    left_behind(ingest_deps, state=JobState.RUNNING, worker="another-host/4242/cafe")
    again = service.accept_upload(ingest_deps, filename="zorbafen.txt", data=TEXT,
                                  metadata=service.metadata_for("zorbafen.txt", METADATA), start_pipeline=False)
    assert again.unchanged and again.document.version == 1


class DeletingIndex:
    """The index, with a delete of the document landing at a chosen moment of its ingestion."""

    def __init__(self, deps: Dependencies, inner: object, *, on: str) -> None:
        self._deps, self._inner, self._on = deps, inner, on
        self.deleted: list[str] = []

    def __getattr__(self, name: str) -> object:
        attribute = getattr(self._inner, name)
        if name != self._on:
            return attribute

        def intercepted(*args: object, **kwargs: object) -> object:
            result = attribute(*args, **kwargs)
            for document in self._deps.documents.versions("zorbafen"):
                if document.status is DocumentStatus.PENDING and not self.deleted:
                    self.deleted.append(document.doc_id)
                    ingestion.delete_document(self._deps.ingestion, document.doc_id)
            return result

        return intercepted


@pytest.mark.parametrize("moment", ["index", "activate"])  # while RUNNING; between Finalize's activate and commit
def test_a_document_deleted_during_ingestion_stays_deleted_and_unsearchable(
        ingest_deps: Dependencies, keyword_search: Search, moment: str) -> None:
    index = DeletingIndex(ingest_deps, ingest_deps.index, on=moment)
    ingest_deps.index = index  # type: ignore[misc]

    registration = service.accept_upload(ingest_deps, filename="zorbafen.txt", data=TEXT,
                                         metadata=service.metadata_for("zorbafen.txt", METADATA))
    finish(ingest_deps)

    assert index.deleted == [registration.document.doc_id]
    assert ingest_deps.documents.get(registration.document.doc_id).status is DocumentStatus.DELETED
    job = ingest_deps.jobs.get(registration.job.job_id)
    assert job.state is JobState.FAILED and "deleted while it was being indexed" in (job.reason or "")
    assert keyword_search("zorbafen quartan") == []
    assert ingest_deps.index.count("zorbafen", searchable_only=False) == 0
    with pytest.raises(InvalidTransition, match="DELETED"):
        service.retry_job(ingest_deps, job.job_id)


def test_deleting_a_new_version_during_its_ingestion_keeps_the_live_one_searchable(
        ingest_deps: Dependencies, keyword_search: Search) -> None:
    first = service.accept_upload(ingest_deps, filename="zorbafen.txt", data=TEXT,
                                  metadata=service.metadata_for("zorbafen.txt", METADATA))
    finish(ingest_deps)
    ingest_deps.index = DeletingIndex(ingest_deps, ingest_deps.index, on="activate")  # type: ignore[misc]

    second = service.accept_upload(ingest_deps, filename="zorbafen.txt", data=TEXT + b" Revised.",
                                   metadata=service.metadata_for("zorbafen.txt", METADATA))
    finish(ingest_deps)

    assert ingest_deps.documents.get(second.document.doc_id).status is DocumentStatus.DELETED
    assert ingest_deps.documents.get(first.document.doc_id).status is DocumentStatus.ACTIVE
    assert set(keyword_search("zorbafen quartan")) == {("zorbafen", 1)}


def test_the_server_reconciler_redrives_a_job_stuck_while_it_runs(ingest_deps: Dependencies) -> None:
    """A `voiceassist ingest` killed beside a running server: the periodic reconciliation picks its jobs up."""
    import time

    from voiceassist_local.recovery import JobReconciler

    reconciler = JobReconciler(ingest_deps, interval_s=0.05)
    reconciler.start()
    try:
        stuck = left_behind(ingest_deps, state=JobState.RUNNING, worker=dead_worker())
        deadline = time.monotonic() + 60
        while ingest_deps.jobs.get(stuck.job_id).state is not JobState.COMPLETED and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        reconciler.stop()
    finish(ingest_deps)
    assert ingest_deps.jobs.get(stuck.job_id).state is JobState.COMPLETED
