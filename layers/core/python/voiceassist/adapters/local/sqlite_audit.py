"""AuditLog on the shared SQLite file: append-only rows, newest first, a hash chain per user_id partition.

A record and its partition's head are written in one transaction holding the write lock, so two writers
never link to the same predecessor. Triggers refuse UPDATE and DELETE on the records: the log only grows
(someone with the file can still drop them; `voiceassist audit verify` then shows what changed).
"""

from __future__ import annotations

import builtins
import sqlite3
from pathlib import Path

from voiceassist.adapters.aws.dynamodb_tables import check_limit, timestamp_key
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.audit_chain import chained
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
CREATE INDEX IF NOT EXISTS audit_by_time ON audit (created_at);
CREATE TABLE IF NOT EXISTS audit_heads (
    partition TEXT PRIMARY KEY,
    sequence INTEGER NOT NULL,
    hash TEXT NOT NULL
)
"""
_TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit "
    "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit "
    "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END",
)


class SqliteAuditLog:
    def __init__(self, database: SqliteDatabase | str | Path) -> None:
        self._db = open_database(database)
        self._triggers_ready = False

    def _ensure(self) -> None:
        self._db.ensure_schema(_SCHEMA)
        if not self._triggers_ready:
            with self._db.write() as connection:
                for trigger in _TRIGGERS:
                    connection.execute(trigger)
            self._triggers_ready = True

    def append(self, record: AuditRecord) -> None:
        self._ensure()
        try:
            with self._db.write() as connection:
                row = connection.execute("SELECT sequence, hash FROM audit_heads WHERE partition = ?",
                                         (record.user_id,)).fetchone()
                linked = chained(record, (int(row[0]), str(row[1])) if row else None)
                connection.execute(
                    "INSERT INTO audit (audit_id, user_id, created_at, body) VALUES (?, ?, ?, ?)",
                    (linked.audit_id, linked.user_id, timestamp_key(linked.created_at), linked.model_dump_json()),
                )
                connection.execute("INSERT OR REPLACE INTO audit_heads (partition, sequence, hash) VALUES (?, ?, ?)",
                                   (linked.user_id, linked.sequence, linked.record_hash))
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

    def partitions(self) -> builtins.list[str]:
        self._ensure()
        rows = self._db.query("SELECT partition FROM audit_heads UNION SELECT DISTINCT user_id FROM audit")
        return sorted(str(partition) for (partition,) in rows)

    def chain(self, partition: str) -> tuple[builtins.list[AuditRecord], tuple[int, str] | None]:
        self._ensure()
        records = self._select("WHERE user_id = ?", (partition,))
        head = self._db.query_one("SELECT sequence, hash FROM audit_heads WHERE partition = ?", (partition,))
        ordered = sorted(records, key=lambda r: (r.sequence is None, r.sequence or 0, r.created_at))
        return ordered, (int(head[0]), str(head[1])) if head else None

    def _select(self, clause: str, parameters: tuple[object, ...]) -> builtins.list[AuditRecord]:
        self._db.ensure_schema(_SCHEMA)
        rows = self._db.query(f"SELECT body FROM audit {clause}", parameters)
        return [AuditRecord.model_validate_json(body) for (body,) in rows]
