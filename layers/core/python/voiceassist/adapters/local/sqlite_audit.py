"""AuditLog on the shared SQLite file: append-only rows, newest first, a hash chain per user_id partition.

A record and its partition's head are written in one transaction holding the write lock, so two writers
never link to the same predecessor. Triggers refuse UPDATE and DELETE on the records: the log only grows
(someone with the file can still drop them; `voiceassist audit verify` then shows what changed).

The heads live in the same file as the records they protect, so deleting the last records and rewriting the
heads would verify clean. After each append, the partition's (sequence, hash) is also written to an anchor
file beside the database (`<database>.audit-anchor.json`, replaced atomically under a file lock, a sequence
never going back), which verify compares: truncation and a rebuilt chain are found unless the anchor file is
rewritten too. A file that is missing while the log has records is itself a break (it is written again at the
next append, from the heads as they are then).
"""

from __future__ import annotations

import builtins
import fcntl
import json
import sqlite3
from pathlib import Path

from voiceassist.adapters.aws.dynamodb_tables import check_limit, timestamp_key
from voiceassist.adapters.local.atomic_file import write_atomically
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.audit_chain import chained
from voiceassist.errors import Conflict, NotFound, quoted_id
from voiceassist.models import AuditRecord, StoredAuditRow

ANCHOR_SUFFIX = ".audit-anchor.json"

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
    def __init__(self, database: SqliteDatabase | str | Path, *, anchor: Path | None = None) -> None:
        self._db = open_database(database)
        self._triggers_ready = False
        self.anchor_path = anchor or self._db.path.with_name(self._db.path.name + ANCHOR_SUFFIX)

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
        self._anchor(linked.user_id, int(linked.sequence or 0), str(linked.record_hash))

    def _anchor(self, partition: str, sequence: int, record_hash: str) -> None:
        """After the commit (an anchor ahead of the table would read as truncation): the highest link wins."""
        with open(self.anchor_path.with_name(self.anchor_path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            anchors = self.anchors()
            if anchors is None:  # first append with an anchor: every partition as its head says now
                heads = self._db.query("SELECT partition, sequence, hash FROM audit_heads")
                anchors = {str(p): (int(n), str(h)) for p, n, h in heads}
            if anchors.get(partition, (0, ""))[0] >= sequence:
                return
            anchors[partition] = (sequence, record_hash)
            # No fsync: the table's own commits are not flushed to disk either (WAL, synchronous NORMAL), and an
            # anchor that outlived a power loss the records did not would read as a truncation; an anchor behind
            # the chain is allowed. The fsync was a question's slowest step on a shared disk (p50 4 ms, p90 16).
            write_atomically(self.anchor_path, json.dumps({p: list(v) for p, v in sorted(anchors.items())}).encode(),
                             flush_to_disk=False)

    def anchors(self) -> dict[str, tuple[int, str]] | None:
        try:
            stored = json.loads(self.anchor_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None if not self._has_records() else {}
        except ValueError:
            return {}  # unreadable: every partition then reads as unanchored (a break)
        return {str(p): (int(v[0]), str(v[1])) for p, v in stored.items()
                if isinstance(v, list) and len(v) == 2}

    def _has_records(self) -> bool:
        self._ensure()
        return self._db.query_one("SELECT 1 FROM audit LIMIT 1") is not None

    def stored_chain(self, partition: str) -> tuple[builtins.list[StoredAuditRow], tuple[int, str] | None]:
        self._ensure()
        rows = self._db.query("SELECT audit_id, user_id, created_at, body FROM audit WHERE user_id = ? "
                              "ORDER BY rowid", (partition,))
        head = self._db.query_one("SELECT sequence, hash FROM audit_heads WHERE partition = ?", (partition,))
        stored = [StoredAuditRow(key=str(key), body=_text(body), columns={"user_id": str(user), "created_at": str(at)})
                  for key, user, at, body in rows]
        return stored, _head(head)

    def get(self, audit_id: str) -> AuditRecord:
        records = self._select("WHERE audit_id = ?", (audit_id,))
        if not records:
            raise NotFound(f"audit record {quoted_id(audit_id)} does not exist")
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


def _text(body: object) -> str:
    """A body as text: bytes written into the column (a BLOB) are decoded, with their damage left visible."""
    return body.decode("utf-8", errors="replace") if isinstance(body, bytes) else str(body)


def _head(row: tuple[object, ...] | None) -> tuple[int, str] | None:
    if row is None:
        return None
    try:
        return int(str(row[0])), str(row[1])
    except ValueError:
        return -1, str(row[1])  # an edited head is a break (verify), not a crash
