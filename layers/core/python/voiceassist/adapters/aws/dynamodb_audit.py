"""AuditLog on DynamoDB: append-only items (key design in dynamodb_tables)."""

from __future__ import annotations

import builtins
from typing import Any

from botocore.exceptions import ClientError

from voiceassist.adapters.aws.dynamodb_tables import (
    CONDITION_FAILED,
    DynamoTable,
    check_limit,
    error_code,
    from_item,
    timestamp_key,
    to_item,
)
from voiceassist.errors import Conflict, NotFound
from voiceassist.models import AuditRecord


def _from_item(item: dict[str, Any]) -> AuditRecord:
    return AuditRecord.model_validate(from_item(item))


def _newest_first(record: AuditRecord) -> tuple[str, str]:
    return timestamp_key(record.created_at), record.audit_id


class DynamoDbAuditLog:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)

    def append(self, record: AuditRecord) -> None:
        item = to_item(record.model_dump(mode="json"))
        item["created_at"] = timestamp_key(record.created_at)  # the by_user sort key must sort as time
        try:
            self._table.put(item, condition="attribute_not_exists(audit_id)")
        except ClientError as exc:
            if error_code(exc) == CONDITION_FAILED:
                raise Conflict(f"audit record {record.audit_id!r} already exists (the log is append-only)"
                               ) from exc
            raise

    def get(self, audit_id: str) -> AuditRecord:
        item = self._table.get({"audit_id": audit_id})
        if item is None:
            raise NotFound(f"audit record {audit_id!r} does not exist")
        return _from_item(item)

    def list(self, *, user_id: str | None = None, limit: int = 100) -> builtins.list[AuditRecord]:
        """Newest first. For one user it is a GSI query; across users it scans the whole table (an
        operator's occasional view: the key design has no time-ordered index over all users)."""
        check_limit(limit)
        if user_id is None:
            items = self._table.scan()
        else:
            items = self._table.query(
                index="by_user",
                key_condition="user_id = :user_id",
                names={},
                values={":user_id": user_id},
                newest_first=True,
                limit=limit,
            )
        return sorted((_from_item(item) for item in items), key=_newest_first, reverse=True)[:limit]
