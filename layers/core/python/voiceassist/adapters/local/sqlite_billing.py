"""BillingLedger on the shared SQLite file: one row per model call; totals are sums over the month's rows (the
DynamoDB adapter keeps running totals instead: the same answers, as the contract suite checks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voiceassist.adapters.aws.dynamodb_tables import timestamp_key
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.admin.ledger import BillingEvent, CostAlert, Spend

_SCHEMA = """
CREATE TABLE IF NOT EXISTS billing_events (
    event_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    month TEXT NOT NULL,
    day TEXT NOT NULL,
    at TEXT NOT NULL,
    query_id TEXT,
    model TEXT NOT NULL,
    in_boundary INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS billing_by_month_user ON billing_events (month, user_id, day);
CREATE TABLE IF NOT EXISTS billing_alerts (
    month TEXT NOT NULL,
    scope TEXT NOT NULL,
    threshold REAL NOT NULL,
    body TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (month, scope, threshold)
);
"""
_SUMS = "COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cost_usd), 0)"


def _spend(row: Any) -> Spend:
    return Spend(calls=int(row[0]), prompt_tokens=int(row[1]), completion_tokens=int(row[2]),
                 cost_usd=round(float(row[3]), 8))


class SqliteBillingLedger:
    def __init__(self, database: SqliteDatabase | str | Path) -> None:
        self._db = open_database(database)

    def record(self, event: BillingEvent) -> None:
        self._db.ensure_schema(_SCHEMA)
        with self._db.write() as connection:
            connection.execute(
                "INSERT OR IGNORE INTO billing_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (event.event_id, event.user_id, event.month, event.day, timestamp_key(event.at), event.query_id,
                 event.model, int(event.in_boundary), event.prompt_tokens, event.completion_tokens, event.cost_usd))

    def spend(self, month: str, *, user_id: str | None = None) -> Spend:
        self._db.ensure_schema(_SCHEMA)
        if user_id is None:
            row = self._db.query_one(f"SELECT {_SUMS} FROM billing_events WHERE month = ?", (month,))
        else:
            row = self._db.query_one(f"SELECT {_SUMS} FROM billing_events WHERE month = ? AND user_id = ?",
                                     (month, user_id))
        return _spend(row)

    def users(self, month: str) -> dict[str, Spend]:
        self._db.ensure_schema(_SCHEMA)
        rows = self._db.query(f"SELECT user_id, {_SUMS} FROM billing_events WHERE month = ? GROUP BY user_id "
                              "ORDER BY user_id", (month,))
        return {row[0]: _spend(row[1:]) for row in rows}

    def days(self, month: str, *, user_id: str) -> dict[str, Spend]:
        self._db.ensure_schema(_SCHEMA)
        rows = self._db.query(f"SELECT day, {_SUMS} FROM billing_events WHERE month = ? AND user_id = ? "
                              "GROUP BY day ORDER BY day", (month, user_id))
        return {row[0]: _spend(row[1:]) for row in rows}

    def claim_alert(self, alert: CostAlert) -> bool:
        self._db.ensure_schema(_SCHEMA)
        with self._db.write() as connection:
            cursor = connection.execute(
                "INSERT OR IGNORE INTO billing_alerts VALUES (?, ?, ?, ?, ?)",
                (alert.month, alert.scope, alert.threshold, alert.model_dump_json(), timestamp_key(alert.at)))
            return bool(cursor.rowcount)

    def alerts(self, month: str) -> list[CostAlert]:
        self._db.ensure_schema(_SCHEMA)
        rows = self._db.query("SELECT body FROM billing_alerts WHERE month = ? ORDER BY at, scope, threshold",
                              (month,))
        return [CostAlert.model_validate_json(row[0]) for row in rows]
