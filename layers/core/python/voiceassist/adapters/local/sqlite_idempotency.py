"""Powertools idempotency records on the shared SQLite file: the embedded twin of DynamoDBPersistenceLayer.

The same conditional semantics as the DynamoDB layer's put: a record may be written when none exists for
the key, when the existing one has expired, or when it is INPROGRESS and its in-progress expiry (the
invocation's time-out) has passed; otherwise the put raises IdempotencyItemAlreadyExistsError carrying the
existing record, as DynamoDB's ReturnValuesOnConditionCheckFailure does. Timestamps are Powertools' own:
expiry in epoch seconds, in-progress expiry in epoch milliseconds, both from the wall clock.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord

from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency_records (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    expiration INTEGER NOT NULL,
    in_progress_expiration INTEGER,
    data TEXT,
    validation TEXT
)
"""
_COLUMNS = "id, status, expiration, in_progress_expiration, data, validation"


class SqlitePersistenceLayer(BasePersistenceLayer):
    """A Powertools idempotency persistence layer on SQLite (local runs and tests)."""

    def __init__(self, database: SqliteDatabase | str | Path) -> None:
        super().__init__()
        self._db = open_database(database)

    def _get_record(self, idempotency_key: str) -> DataRecord:
        self._db.ensure_schema(_SCHEMA)
        row = self._db.query_one(f"SELECT {_COLUMNS} FROM idempotency_records WHERE id = ?", (idempotency_key,))
        if row is None:
            raise IdempotencyItemNotFoundError
        return _record_of(row)

    def _put_record(self, data_record: DataRecord) -> None:
        self._db.ensure_schema(_SCHEMA)
        now = time.time()
        with self._db.write() as connection:
            row = connection.execute(f"SELECT {_COLUMNS} FROM idempotency_records WHERE id = ?",
                                     (data_record.idempotency_key,)).fetchone()
            if row is not None and not _replaceable(row, now):
                existing = _record_of(row)
                self._validate_payload(data_payload=data_record, stored_data_record=existing)
                self._save_to_cache(data_record=existing)
                raise IdempotencyItemAlreadyExistsError(old_data_record=existing)
            connection.execute(
                f"INSERT OR REPLACE INTO idempotency_records ({_COLUMNS}) VALUES (?, ?, ?, ?, NULL, ?)",
                (data_record.idempotency_key, data_record.status, data_record.expiry_timestamp,
                 data_record.in_progress_expiry_timestamp,
                 data_record.payload_hash if self.payload_validation_enabled and data_record.payload_hash else None),
            )

    def _update_record(self, data_record: DataRecord) -> None:
        self._db.ensure_schema(_SCHEMA)
        assignments = "status = ?, expiration = ?, data = ?"
        values: list[Any] = [data_record.status, data_record.expiry_timestamp, data_record.response_data]
        if self.payload_validation_enabled:
            assignments += ", validation = ?"
            values.append(data_record.payload_hash)
        with self._db.write() as connection:
            connection.execute(f"UPDATE idempotency_records SET {assignments} WHERE id = ?",
                               (*values, data_record.idempotency_key))

    def _delete_record(self, data_record: DataRecord) -> None:
        self._db.ensure_schema(_SCHEMA)
        with self._db.write() as connection:
            connection.execute("DELETE FROM idempotency_records WHERE id = ?", (data_record.idempotency_key,))


def _replaceable(row: Any, now: float) -> bool:
    """DynamoDBPersistenceLayer's put condition, for an existing row: expired, or an abandoned INPROGRESS."""
    _, status, expiration, in_progress_expiration, _, _ = row
    if expiration < int(now):
        return True
    return (status == STATUS_CONSTANTS["INPROGRESS"] and in_progress_expiration is not None
            and in_progress_expiration < int(now * 1000))


def _record_of(row: Any) -> DataRecord:
    key, status, expiration, in_progress_expiration, data, validation = row
    return DataRecord(idempotency_key=key, status=status, expiry_timestamp=expiration,
                      in_progress_expiry_timestamp=in_progress_expiration, response_data=data or "",
                      payload_hash=validation or "")
