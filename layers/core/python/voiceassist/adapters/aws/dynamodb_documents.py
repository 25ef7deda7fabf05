"""DocumentStore on DynamoDB: one item per document version (key design in dynamodb_tables)."""

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
    merge_newest_first,
    timestamp_key,
    to_item,
)
from voiceassist.errors import Conflict, NotFound, quoted_id
from voiceassist.models import DocumentStatus, KnowledgeDocument


def _to_item(document: KnowledgeDocument) -> dict[str, Any]:
    item = to_item(document.model_dump(mode="json"))
    item["updated_at"] = timestamp_key(document.updated_at)  # the by_status sort key must sort as time
    item["created_at"] = timestamp_key(document.created_at)
    return item


def _from_item(item: dict[str, Any]) -> KnowledgeDocument:
    return KnowledgeDocument.model_validate(from_item(item))


def _newest_first(document: KnowledgeDocument) -> tuple[str, str]:
    return timestamp_key(document.updated_at), document.doc_id


class DynamoDbDocumentStore:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)

    def put(self, document: KnowledgeDocument, *, expected_status: DocumentStatus | None = None) -> None:
        if expected_status is None:
            self._table.put(_to_item(document))
            return
        try:
            self._table.put(_to_item(document), condition="#status = :expected", names={"#status": "status"},
                            values={":expected": expected_status.value})
        except ClientError as exc:
            if error_code(exc) == CONDITION_FAILED:
                raise Conflict(f"document {document.doc_id!r} is no longer {expected_status.value}: another "
                               "writer changed it") from exc
            raise

    def get(self, doc_id: str) -> KnowledgeDocument:
        item = self._table.get({"doc_id": doc_id})
        if item is None:
            raise NotFound(f"document {quoted_id(doc_id)} does not exist")
        return _from_item(item)

    def versions(self, doc_key: str) -> builtins.list[KnowledgeDocument]:
        items = self._table.query(
            index="by_doc_key", key_condition="doc_key = :doc_key", names={}, values={":doc_key": doc_key}
        )
        return [_from_item(item) for item in items]

    def list(self, *, status: DocumentStatus | None = None, limit: int = 100
             ) -> builtins.list[KnowledgeDocument]:
        """Newest first; without a status, the newest of each status merged (a query per status, no scan)."""
        check_limit(limit)
        statuses = [status] if status else builtins.list(DocumentStatus)
        return merge_newest_first((self._by_status(each, limit) for each in statuses), _newest_first, limit)

    def delete(self, doc_id: str) -> None:
        self._table.delete({"doc_id": doc_id})

    def _by_status(self, status: DocumentStatus, limit: int) -> builtins.list[KnowledgeDocument]:
        items = self._table.query(
            index="by_status",
            key_condition="#status = :status",  # `status` is a DynamoDB reserved word
            names={"#status": "status"},
            values={":status": status.value},
            newest_first=True,
            limit=limit,
        )
        return [_from_item(item) for item in items]
