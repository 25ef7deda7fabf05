"""MetricSink and MetricReader on the shared SQLite file: one row per point, aggregated when read.

One question writes its ~15 points in one transaction (the audit write beside it is another). Points older
than RETENTION_DAYS are deleted at most once an hour, by the writer that notices. Only closed-set dimension
values and the hashed user key are stored (voiceassist.telemetry.points): the table holds no text a person typed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.constants import metrics as names
from voiceassist.observability import log_failure
from voiceassist.telemetry.points import MetricAggregate, MetricPoint, aggregate

RETENTION_DAYS = 40  # the telemetry view's month, and some
PRUNE_EVERY_S = 3600

_SCHEMA = """
CREATE TABLE IF NOT EXISTS metric_points (
    at REAL NOT NULL,
    name TEXT NOT NULL,
    dimensions TEXT NOT NULL,
    value REAL NOT NULL,
    user TEXT
);
CREATE INDEX IF NOT EXISTS metric_points_by_time ON metric_points (at)
"""


class SqliteMetricStore:
    def __init__(self, database: SqliteDatabase | str | Path) -> None:
        self._db = open_database(database)
        self._pruned_at = 0.0

    def record(self, points: Sequence[MetricPoint]) -> None:
        if not points:
            return
        now = time.time()
        rows = [((p.at.timestamp() if p.at else now), p.name, json.dumps(p.dimensions, separators=(",", ":")),
                 float(p.value), p.user) for p in points]
        try:
            self._db.ensure_schema(_SCHEMA)
            with self._db.write() as connection:
                connection.executemany(
                    "INSERT INTO metric_points (at, name, dimensions, value, user) VALUES (?, ?, ?, ?, ?)", rows)
                if now - self._pruned_at > PRUNE_EVERY_S:
                    connection.execute("DELETE FROM metric_points WHERE at < ?", (now - RETENTION_DAYS * 86400,))
                    self._pruned_at = now
        except Exception as exc:  # noqa: BLE001 - a metric lost is better than an answer lost
            log_failure("metrics not recorded", exc, points=len(rows))

    def points(self, *, since: datetime, until: datetime | None = None) -> list[MetricPoint]:
        self._db.ensure_schema(_SCHEMA)
        end = (until or datetime.now(UTC)).timestamp()
        rows = self._db.query("SELECT at, name, dimensions, value, user FROM metric_points WHERE at >= ? AND at <= ?",
                              (since.timestamp(), end))
        return [MetricPoint(name=name, value=value, dimensions=json.loads(dims), user=user,
                            at=datetime.fromtimestamp(at, UTC))
                for at, name, dims, value, user in rows if name in names.DIMENSIONS]  # a name since retired: skip

    def aggregate(self, *, since: datetime, until: datetime | None = None, by_user: bool = False
                  ) -> list[MetricAggregate]:
        return aggregate(self.points(since=since, until=until), by_user=by_user)
