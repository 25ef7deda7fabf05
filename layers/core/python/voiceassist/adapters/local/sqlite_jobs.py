"""JobStore on the shared SQLite file; save() is a compare-and-set on the stored state."""

from __future__ import annotations

import builtins
import sqlite3
from pathlib import Path

from voiceassist.adapters.aws.dynamodb_tables import check_limit, timestamp_key
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.errors import Conflict, NotFound, quoted_id
from voiceassist.models import IndexingJob, JobState

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, updated_at);
CREATE INDEX IF NOT EXISTS jobs_by_doc ON jobs (doc_id, created_at)
"""


def _row(job: IndexingJob) -> tuple[str, str, str, str, str, str]:
    return (
        job.job_id,
        job.doc_id,
        job.state.value,
        timestamp_key(job.created_at),
        timestamp_key(job.updated_at),
        job.model_dump_json(),
    )


class SqliteJobStore:
    def __init__(self, database: SqliteDatabase | str | Path) -> None:
        self._db = open_database(database)

    def create(self, job: IndexingJob) -> None:
        self._db.ensure_schema(_SCHEMA)
        try:
            with self._db.write() as connection:
                connection.execute(
                    "INSERT INTO jobs (job_id, doc_id, state, created_at, updated_at, body)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    _row(job),
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"job {job.job_id!r} already exists") from exc

    def get(self, job_id: str) -> IndexingJob:
        jobs = self._select("WHERE job_id = ?", (job_id,))
        if not jobs:
            raise NotFound(f"job {quoted_id(job_id)} does not exist")
        return jobs[0]

    def save(self, job: IndexingJob, *, expected_state: JobState) -> None:
        self._db.ensure_schema(_SCHEMA)
        with self._db.write() as connection:
            stored = connection.execute("SELECT state FROM jobs WHERE job_id = ?", (job.job_id,)).fetchone()
            if stored is None:
                raise NotFound(f"job {quoted_id(job.job_id)} does not exist")
            if stored[0] != expected_state.value:
                raise Conflict(
                    f"job {job.job_id!r} is {stored[0]}, not {expected_state.value}: another writer moved it"
                )
            job_id, doc_id, state, created_at, updated_at, body = _row(job)
            connection.execute(
                "UPDATE jobs SET doc_id = ?, state = ?, created_at = ?, updated_at = ?, body = ?"
                " WHERE job_id = ?",
                (doc_id, state, created_at, updated_at, body, job_id),
            )

    def list(self, *, state: JobState | None = None, limit: int = 100) -> builtins.list[IndexingJob]:
        check_limit(limit)
        where, parameters = ("WHERE state = ?", (state.value,)) if state else ("", ())
        return self._select(f"{where} ORDER BY updated_at DESC, job_id DESC LIMIT ?", (*parameters, limit))

    def for_document(self, doc_id: str) -> builtins.list[IndexingJob]:
        """Every job of one document version, newest first."""
        return self._select("WHERE doc_id = ? ORDER BY created_at DESC, job_id DESC", (doc_id,))

    def _select(self, clause: str, parameters: tuple[object, ...]) -> builtins.list[IndexingJob]:
        self._db.ensure_schema(_SCHEMA)
        rows = self._db.query(f"SELECT body FROM jobs {clause}", parameters)
        return [IndexingJob.model_validate_json(body) for (body,) in rows]
