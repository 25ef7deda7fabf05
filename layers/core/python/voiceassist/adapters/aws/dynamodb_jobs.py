"""JobStore on DynamoDB: save() is a conditional write on the stored `state` (keys: dynamodb_tables)."""

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
from voiceassist.models import IndexingJob, JobState


def _to_item(job: IndexingJob) -> dict[str, Any]:
    item = to_item(job.model_dump(mode="json"))
    item["created_at"] = timestamp_key(job.created_at)  # GSI sort keys must sort as time
    item["updated_at"] = timestamp_key(job.updated_at)
    return item


def _from_item(item: dict[str, Any]) -> IndexingJob:
    return IndexingJob.model_validate(from_item(item))


def _newest_first(job: IndexingJob) -> tuple[str, str]:
    return timestamp_key(job.updated_at), job.job_id


class DynamoDbJobStore:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)

    def create(self, job: IndexingJob) -> None:
        try:
            self._table.put(_to_item(job), condition="attribute_not_exists(job_id)")
        except ClientError as exc:
            if error_code(exc) == CONDITION_FAILED:
                raise Conflict(f"job {job.job_id!r} already exists") from exc
            raise

    def get(self, job_id: str) -> IndexingJob:
        item = self._table.get({"job_id": job_id})
        if item is None:
            raise NotFound(f"job {quoted_id(job_id)} does not exist")
        return _from_item(item)

    def save(self, job: IndexingJob, *, expected_state: JobState) -> None:
        try:
            self._table.put(
                _to_item(job),
                condition="#state = :expected",
                names={"#state": "state"},
                values={":expected": expected_state.value},
                return_old_on_failure=True,  # tells a missing job from one another writer moved
            )
        except ClientError as exc:
            if error_code(exc) != CONDITION_FAILED:
                raise
            if "Item" not in exc.response:
                raise NotFound(f"job {quoted_id(job.job_id)} does not exist") from exc
            stored_state = self._table.deserialize(exc.response["Item"])["state"]
            raise Conflict(
                f"job {job.job_id!r} is {stored_state}, not {expected_state.value}: another writer moved it"
            ) from exc

    def list(self, *, state: JobState | None = None, limit: int = 100) -> builtins.list[IndexingJob]:
        """Newest first; without a state, the newest of each state merged (a query per state, no scan)."""
        check_limit(limit)
        states = [state] if state else builtins.list(JobState)
        return merge_newest_first((self._by_state(each, limit) for each in states), _newest_first, limit)

    def for_document(self, doc_id: str) -> builtins.list[IndexingJob]:
        """Every job of one document version, newest first."""
        items = self._table.query(
            index="by_doc", key_condition="doc_id = :doc_id", names={}, values={":doc_id": doc_id}
        )
        jobs = (_from_item(item) for item in items)
        return sorted(jobs, key=lambda job: (timestamp_key(job.created_at), job.job_id), reverse=True)

    def _by_state(self, state: JobState, limit: int) -> builtins.list[IndexingJob]:
        items = self._table.query(
            index="by_state",
            key_condition="#state = :state",  # `state` is a DynamoDB reserved word
            names={"#state": "state"},
            values={":state": state.value},
            newest_first=True,
            limit=limit,
        )
        return [_from_item(item) for item in items]
