"""AuditLog on DynamoDB: append-only items (key design in dynamodb_tables), a hash chain per user_id.

Each partition's head is an item of the same table (audit_id "chain#<user_id>", no user_id, so the by_user
index never holds it). A record and its head are written in one transaction: the record only if its id is new,
the head only if it still names the sequence this writer linked to. A writer that lost the race re-reads the
head and links again. With an anchor (S3AuditAnchor: write-once objects in an Object Lock bucket), each
committed record is also anchored outside the table, so deleting the last records and rewriting the head is
found by verify.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from voiceassist.adapters.aws.dynamodb_tables import (
    CONDITION_FAILED,
    DynamoTable,
    check_limit,
    error_code,
    from_item,
    timestamp_key,
    to_item,
)
from voiceassist.adapters.aws.s3_audit_anchor import S3AuditAnchor
from voiceassist.audit_chain import chained
from voiceassist.errors import Conflict, NotFound, quoted_id
from voiceassist.models import AuditRecord, StoredAuditRow
from voiceassist.observability import logger

HEAD_PREFIX = "chain#"
_LINK_ATTEMPTS = 8


def _from_item(item: dict[str, Any]) -> AuditRecord:
    return AuditRecord.model_validate(from_item(item))


def _newest_first(record: AuditRecord) -> tuple[str, str]:
    return timestamp_key(record.created_at), record.audit_id


class DynamoDbAuditLog:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None,
                 anchor: S3AuditAnchor | None = None) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)
        self._anchor = anchor

    def append(self, record: AuditRecord) -> None:
        for _ in range(_LINK_ATTEMPTS):
            head = self._head(record.user_id)
            linked = chained(record, head)
            item = to_item(linked.model_dump(mode="json"))
            item["created_at"] = timestamp_key(linked.created_at)  # the by_user sort key must sort as time
            head_item = {"audit_id": HEAD_PREFIX + record.user_id, "chain_sequence": linked.sequence,
                         "chain_hash": linked.record_hash}
            head_put: dict[str, Any] = {"TableName": self._table.name, "Item": self._table.serialize(head_item)}
            if head is None:
                head_put["ConditionExpression"] = "attribute_not_exists(audit_id)"
            else:
                head_put["ConditionExpression"] = "chain_sequence = :linked"
                head_put["ExpressionAttributeValues"] = self._table.serialize({":linked": head[0]})
            try:
                self._table.client().transact_write_items(TransactItems=[
                    {"Put": {"TableName": self._table.name, "Item": self._table.serialize(item),
                             "ConditionExpression": "attribute_not_exists(audit_id)"}},
                    {"Put": head_put},
                ])
            except ClientError as exc:
                if error_code(exc) != "TransactionCanceledException":
                    raise
                reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
                if reasons and reasons[0] == CONDITION_FAILED:
                    raise Conflict(f"audit record {record.audit_id!r} already exists (the log is append-only)"
                                   ) from exc
                continue
            self._anchored(linked)
            return
        raise Conflict(f"audit partition of {record.user_id!r} is too busy to link a record; try again")

    def _anchored(self, linked: AuditRecord) -> None:
        """After the commit (an anchor ahead of the table would read as truncation). A failed anchor does not
        undo a committed record: it is logged, and verify accepts a chain one record past its anchor."""
        if self._anchor is None:
            return
        try:
            self._anchor.record(linked.user_id, int(linked.sequence or 0), str(linked.record_hash))
        except (ClientError, BotoCoreError) as exc:
            logger.warning("audit anchor not written", extra={"sequence": linked.sequence,
                                                              "error_type": type(exc).__name__})

    def _head(self, partition: str) -> tuple[int, str] | None:
        item = self._table.get({"audit_id": HEAD_PREFIX + partition})
        return (int(item["chain_sequence"]), str(item["chain_hash"])) if item else None

    def partitions(self) -> builtins.list[str]:
        return sorted({str(item["audit_id"])[len(HEAD_PREFIX):] for item in self._table.scan()
                       if str(item["audit_id"]).startswith(HEAD_PREFIX)}
                      | {str(item["user_id"]) for item in self._table.scan() if "user_id" in item})

    def chain(self, partition: str) -> tuple[builtins.list[AuditRecord], tuple[int, str] | None]:
        items = self._table.query(index="by_user", key_condition="user_id = :user_id", names={},
                                  values={":user_id": partition})
        records = sorted((_from_item(item) for item in items),
                         key=lambda r: (r.sequence is None, r.sequence or 0, r.created_at))
        return records, self._head(partition)

    def stored_chain(self, partition: str) -> tuple[builtins.list[StoredAuditRow], tuple[int, str] | None]:
        """The partition's items as stored (the by_user index), unread; the created_at attribute is both the
        index's sort key and the record's field, so an edit of it changes the record's hash."""
        items = self._table.query(index="by_user", key_condition="user_id = :user_id", names={},
                                  values={":user_id": partition})
        rows = [StoredAuditRow(key=str(item.get("audit_id")), body=from_item(item),
                               columns={"user_id": str(item.get("user_id"))}) for item in items]
        head = self._table.get({"audit_id": HEAD_PREFIX + partition})
        if head is None:
            return rows, None
        try:
            return rows, (int(head["chain_sequence"]), str(head["chain_hash"]))
        except (KeyError, TypeError, ValueError):
            return rows, (-1, "")  # an edited head is a break (verify), not a crash

    def anchors(self) -> dict[str, tuple[int, str]] | None:
        """Each partition's highest anchored (sequence, hash); None without an anchor bucket (verify then
        checks the chain against the heads beside it only, and so it does when the anchors cannot be read: a
        caller granted the table but not the anchor bucket, which is logged)."""
        if self._anchor is None:
            return None
        try:
            return self._anchor.heads()
        except (ClientError, BotoCoreError) as exc:
            logger.warning("audit anchors not read: verified against the heads only",
                           extra={"error_type": type(exc).__name__})
            return None

    def get(self, audit_id: str) -> AuditRecord:
        item = self._table.get({"audit_id": audit_id})
        if item is None:
            raise NotFound(f"audit record {quoted_id(audit_id)} does not exist")
        return _from_item(item)

    def list(self, *, user_id: str | None = None, limit: int = 100) -> builtins.list[AuditRecord]:
        """Newest first. For one user it is a GSI query; across users it scans the whole table (an
        operator's occasional view: the key design has no time-ordered index over all users)."""
        check_limit(limit)
        items: Iterator[dict[str, Any]]
        if user_id is None:
            items = (item for item in self._table.scan() if not str(item["audit_id"]).startswith(HEAD_PREFIX))
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
