"""AuditLog on the shared SQLite file: append-only rows, newest first."""

from __future__ import annotations

import builtins
import sqlite3
from pathlib import Path

from voiceassist.adapters.aws.dynamodb_tables import check_limit, timestamp_key
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.errors import Conflict, NotFound
from voiceassist.models import AuditRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit (
    audit_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_by_user ON audit (user_id, created_at);
CREATE INDEX IF NOT EXISTS audit_by_time ON audit (created_at)
"""


class SqliteAuditLog:
    def __init__(self, database: SqliteDatabase | str | Path) -> None:
        self._db = open_database(database)

    def append(self, record: AuditRecord) -> None:
        self._db.ensure_schema(_SCHEMA)
        try:
            with self._db.write() as connection:
                connection.execute(
                    "INSERT INTO audit (audit_id, user_id, created_at, body) VALUES (?, ?, ?, ?)",
                    (record.audit_id, record.user_id, timestamp_key(record.created_at),
                     record.model_dump_json()),
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"audit record {record.audit_id!r} already exists (the log is append-only)"
                           ) from exc

    def get(self, audit_id: str) -> AuditRecord:
        records = self._select("WHERE audit_id = ?", (audit_id,))
        if not records:
            raise NotFound(f"audit record {audit_id!r} does not exist")
        return records[0]

    def list(self, *, user_id: str | None = None, limit: int = 100) -> builtins.list[AuditRecord]:
        """Newest first."""
        check_limit(limit)
        where, parameters = ("WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        return self._select(f"{where} ORDER BY created_at DESC, audit_id DESC LIMIT ?", (*parameters, limit))

    def _select(self, clause: str, parameters: tuple[object, ...]) -> builtins.list[AuditRecord]:
        self._db.ensure_schema(_SCHEMA)
        rows = self._db.query(f"SELECT body FROM audit {clause}", parameters)
        return [AuditRecord.model_validate_json(body) for (body,) in rows]
