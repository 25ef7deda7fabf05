"""RateLimiter on the shared SQLite file: one row per key and fixed window, counted inside a write transaction."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from voiceassist.adapters.aws.dynamodb_tables import epoch_seconds
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.models import utc_now
from voiceassist.ports import RateDecision

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rate_limits (
    key TEXT PRIMARY KEY,
    hits INTEGER NOT NULL,
    expires_at_epoch INTEGER NOT NULL
)
"""


class SqliteRateLimiter:
    def __init__(self, database: SqliteDatabase | str | Path, *, clock: Callable[[], datetime] = utc_now
                 ) -> None:
        self._db = open_database(database)
        self._clock = clock

    def acquire(self, key: str, *, limit: int, window_seconds: int = 60) -> RateDecision:
        self._db.ensure_schema(_SCHEMA)
        now = epoch_seconds(self._clock())
        window_end = now - now % window_seconds + window_seconds
        row_key = f"{key}#{window_end}"
        with self._db.write() as connection:
            row = connection.execute("SELECT hits FROM rate_limits WHERE key = ?", (row_key,)).fetchone()
            hits = 0 if row is None else int(row[0])
            if hits >= limit:
                return RateDecision(allowed=False, remaining=0, retry_after=max(window_end - now, 1))
            if row is None:
                connection.execute("DELETE FROM rate_limits WHERE expires_at_epoch <= ?", (now,))
            connection.execute(
                "INSERT INTO rate_limits (key, hits, expires_at_epoch) VALUES (?, 1, ?) "
                "ON CONFLICT(key) DO UPDATE SET hits = hits + 1", (row_key, window_end))
        return RateDecision(allowed=True, remaining=limit - hits - 1, retry_after=0)
