"""JobStore contract: the same calls give the same results on SQLite and on DynamoDB."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.adapters.local.sqlite_jobs import SqliteJobStore
from voiceassist.errors import Conflict, InvalidInput, NotFound
from voiceassist.models import IndexingJob, JobState

if TYPE_CHECKING:
    from tests.contract.conftest import Stores

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def make_job(job_id: str, *, doc_id: str = "doc-1", state: JobState = JobState.PENDING,
             at: datetime = T0) -> IndexingJob:
    return IndexingJob(job_id=job_id, doc_id=doc_id, doc_key="guidelines/sepsis.pdf", version=1, state=state,
                       created_at=at, updated_at=at)


def test_jobs_get_missing_raises_not_found(stores: Stores) -> None:
    with pytest.raises(NotFound):
        stores.jobs.get("job_missing")


def test_jobs_create_then_get_returns_the_same_job(stores: Stores) -> None:
    job = make_job("job_1").model_copy(update={"reason": "überprüft: 結核 ✓", "chunks_total": 12})

    stores.jobs.create(job)

    assert stores.jobs.get("job_1") == job


def test_jobs_duplicate_create_conflicts_and_keeps_the_first(stores: Stores) -> None:
    stores.jobs.create(make_job("job_1", doc_id="doc-first"))

    with pytest.raises(Conflict):
        stores.jobs.create(make_job("job_1", doc_id="doc-second"))

    assert stores.jobs.get("job_1").doc_id == "doc-first"


def test_jobs_save_with_the_current_state_persists_the_transition(stores: Stores) -> None:
    job = make_job("job_1")
    stores.jobs.create(job)

    running = job.transition(JobState.RUNNING)
    stores.jobs.save(running, expected_state=JobState.PENDING)

    stored = stores.jobs.get("job_1")
    assert stored.state is JobState.RUNNING
    assert stored.started_at == running.started_at


def test_jobs_save_with_a_stale_state_conflicts_and_changes_nothing(stores: Stores) -> None:
    job = make_job("job_1")
    stores.jobs.create(job)
    stores.jobs.save(job.transition(JobState.RUNNING), expected_state=JobState.PENDING)

    # A replayed step still believes the job is PENDING and tries to fail it.
    with pytest.raises(Conflict, match="RUNNING"):
        stores.jobs.save(job.transition(JobState.FAILED, reason="late replay"),
                         expected_state=JobState.PENDING)

    assert stores.jobs.get("job_1").state is JobState.RUNNING


def test_jobs_save_of_a_missing_job_raises_not_found(stores: Stores) -> None:
    with pytest.raises(NotFound):
        stores.jobs.save(make_job("job_ghost"), expected_state=JobState.PENDING)


def test_jobs_list_by_state_returns_only_that_state_newest_first(stores: Stores) -> None:
    for minute, (job_id, state) in enumerate(
        [("job_a", JobState.FAILED), ("job_b", JobState.PENDING), ("job_c", JobState.FAILED),
         ("job_d", JobState.FAILED)]
    ):
        stores.jobs.create(make_job(job_id, state=state, at=T0 + timedelta(minutes=minute)))

    assert [j.job_id for j in stores.jobs.list(state=JobState.FAILED)] == ["job_d", "job_c", "job_a"]
    assert [j.job_id for j in stores.jobs.list(state=JobState.FAILED, limit=2)] == ["job_d", "job_c"]
    assert stores.jobs.list(state=JobState.COMPLETED) == []


def test_jobs_list_without_state_merges_every_state_newest_first(stores: Stores) -> None:
    states = [JobState.PENDING, JobState.COMPLETED, JobState.FAILED, JobState.RUNNING, JobState.PENDING]
    for minute, state in enumerate(states):
        stores.jobs.create(make_job(f"job_{minute}", state=state, at=T0 + timedelta(minutes=minute)))

    assert [j.job_id for j in stores.jobs.list()] == ["job_4", "job_3", "job_2", "job_1", "job_0"]
    assert [j.job_id for j in stores.jobs.list(limit=3)] == ["job_4", "job_3", "job_2"]


def test_jobs_list_orders_by_time_not_by_text_of_the_timestamp(stores: Stores) -> None:
    # 09:00:00 and 09:00:00.5: a timestamp written without its zero microseconds would sort after.
    stores.jobs.create(make_job("job_whole_second", at=T0))
    stores.jobs.create(make_job("job_half_second", at=T0 + timedelta(microseconds=500_000)))

    assert [j.job_id for j in stores.jobs.list()] == ["job_half_second", "job_whole_second"]
    assert [j.job_id for j in stores.jobs.list(state=JobState.PENDING, limit=1)] == ["job_half_second"]


def test_jobs_list_follows_updates_to_updated_at(stores: Stores) -> None:
    first, second = make_job("job_1", at=T0), make_job("job_2", at=T0 + timedelta(minutes=1))
    stores.jobs.create(first)
    stores.jobs.create(second)

    moved = first.model_copy(update={"state": JobState.RUNNING, "updated_at": T0 + timedelta(minutes=5)})
    stores.jobs.save(moved, expected_state=JobState.PENDING)

    assert [j.job_id for j in stores.jobs.list()] == ["job_1", "job_2"]
    assert [j.job_id for j in stores.jobs.list(state=JobState.PENDING)] == ["job_2"]


def test_jobs_list_rejects_a_limit_below_one(stores: Stores) -> None:
    with pytest.raises(InvalidInput):
        stores.jobs.list(limit=0)


def test_jobs_for_document_returns_its_jobs_newest_first(stores: Stores) -> None:
    stores.jobs.create(make_job("job_old", doc_id="doc-x", at=T0))
    stores.jobs.create(make_job("job_other", doc_id="doc-y", at=T0 + timedelta(minutes=1)))
    stores.jobs.create(make_job("job_new", doc_id="doc-x", at=T0 + timedelta(minutes=2)))

    assert [j.job_id for j in stores.jobs.for_document("doc-x")] == ["job_new", "job_old"]
    assert stores.jobs.for_document("doc-none") == []


# ---- SQLite under threads: the local server and the in-process pipeline write at the same time ------


def _run_threads(count: int, work: Callable[[int], object]) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def run(index: int) -> None:
        barrier.wait()
        try:
            work(index)
        except BaseException as exc:  # every failure, "database is locked" included, goes to the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_sqlite_jobs_concurrent_writers_never_hit_database_locked(tmp_path: Path) -> None:
    jobs = SqliteJobStore(SqliteDatabase(tmp_path / "voiceassist.sqlite3"))
    per_thread = 25

    def write(thread: int) -> None:
        for n in range(per_thread):
            job = make_job(f"job_{thread}_{n}", doc_id=f"doc-{thread}")
            jobs.create(job)
            jobs.save(job.transition(JobState.RUNNING), expected_state=JobState.PENDING)
            jobs.list(state=JobState.RUNNING, limit=5)

    errors = _run_threads(6, write)

    assert errors == []
    assert len(jobs.list(state=JobState.RUNNING, limit=1000)) == 6 * per_thread


def test_sqlite_jobs_racing_saves_of_one_job_let_exactly_one_win(tmp_path: Path) -> None:
    database_path = tmp_path / "voiceassist.sqlite3"
    job = make_job("job_contended")
    SqliteJobStore(database_path).create(job)
    # Separate SqliteDatabase objects, as separate processes (server, pipeline worker) would have.
    contenders = [SqliteJobStore(SqliteDatabase(database_path)) for _ in range(6)]

    errors = _run_threads(
        6, lambda i: contenders[i].save(job.transition(JobState.RUNNING, reason=f"worker {i}"),
                                        expected_state=JobState.PENDING)
    )

    assert len(errors) == 5
    assert all(isinstance(error, Conflict) for error in errors)
    assert contenders[0].get("job_contended").state is JobState.RUNNING
