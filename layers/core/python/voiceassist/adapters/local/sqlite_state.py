"""KeyValueState on the shared SQLite file: versioned JSON values with compare-and-set and expiry.

An expired entry reads as absent (version 0), and a writer expecting version 0 may replace it, exactly as
the DynamoDB adapter behaves before the TTL sweeper has deleted the item.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from voiceassist.adapters.aws.dynamodb_tables import epoch_seconds
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.errors import Conflict
from voiceassist.models import utc_now

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    version INTEGER NOT NULL,
    expires_at_epoch INTEGER
)
"""


class SqliteKeyValueState:
    def __init__(self, database: SqliteDatabase | str | Path, *, clock: Callable[[], datetime] = utc_now
                 ) -> None:
        self._db = open_database(database)
        self._clock = clock

    def get(self, key: str) -> tuple[dict[str, Any] | None, int]:
        self._db.ensure_schema(_SCHEMA)
        row = self._db.query_one(
            "SELECT value, version, expires_at_epoch FROM kv_state WHERE key = ?", (key,)
        )
        if row is None or self._expired(row[2]):
            return None, 0
        value: dict[str, Any] = json.loads(row[0])
        return value, int(row[1])

    def put(self, key: str, value: dict[str, Any], *, expected_version: int, ttl_seconds: int | None = None
            ) -> int:
        self._db.ensure_schema(_SCHEMA)
        now = epoch_seconds(self._clock())
        with self._db.write() as connection:
            row = connection.execute(
                "SELECT version, expires_at_epoch FROM kv_state WHERE key = ?", (key,)
            ).fetchone()
            current = 0 if row is None or self._expired(row[1], now) else int(row[0])
            if current != expected_version:
                raise Conflict(f"state {key!r} is at version {current}, not {expected_version}")
            new_version = expected_version + 1
            connection.execute(
                "INSERT OR REPLACE INTO kv_state (key, value, version, expires_at_epoch) VALUES (?, ?, ?, ?)",
                (key, json.dumps(value), new_version, None if ttl_seconds is None else now + ttl_seconds),
            )
        return new_version

    def _expired(self, expires_at_epoch: int | None, now: int | None = None) -> bool:
        if expires_at_epoch is None:
            return False
        return expires_at_epoch <= (epoch_seconds(self._clock()) if now is None else now)
