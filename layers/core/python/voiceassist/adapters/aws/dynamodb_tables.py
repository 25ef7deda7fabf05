"""Storage key design: the DynamoDB tables (infra creates exactly these), the sortable formats both
storage backends share, and the small DynamoDB client wrapper the DynamoDB adapters use.

The SQLite adapters mirror this design (same sort keys, same timestamp format), which is what lets one
contract suite expect the same order from both. Importing this module does not import boto3 (the SQLite
adapters import it for the formats); a DynamoTable imports boto3 when it first talks to DynamoDB.
"""

from __future__ import annotations

import heapq
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, TypeVar

from voiceassist.constants.tables import (  # noqa: F401 - re-exported for the adapters
    AUDIT,
    BILLING,
    DOCUMENTS,
    JOBS,
    MESSAGE_SK_PREFIX,
    SESSION_META_SK,
    SESSION_PK_PREFIX,
    SESSIONS,
    STATE,
    TABLE_DESIGNS,
    IndexDesign,
    KeyAttribute,
    TableDesign,
)
from voiceassist.errors import DependencyError, InvalidInput

T = TypeVar("T")

def create_tables(client: Any, names: Mapping[str, str]) -> None:
    """Create the tables named in `names` (logical name -> table name), on-demand, with their GSIs and TTL.

    For tests and local runs (moto, DynamoDB Local); deployed tables come from infra, built from the same
    TABLE_DESIGNS.
    """
    unknown = sorted(set(names) - set(TABLE_DESIGNS))
    if unknown:
        raise InvalidInput(f"unknown table(s) {unknown}; expected some of {sorted(TABLE_DESIGNS)}")
    for logical, table_name in names.items():
        design = TABLE_DESIGNS[logical]
        client.create_table(TableName=table_name, BillingMode="PAY_PER_REQUEST", **_table_arguments(design))
        client.get_waiter("table_exists").wait(TableName=table_name)
        if design.ttl_attribute:
            client.update_time_to_live(
                TableName=table_name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": design.ttl_attribute},
            )


def _key_schema(partition_key: KeyAttribute, sort_key: KeyAttribute | None) -> list[dict[str, str]]:
    schema = [{"AttributeName": partition_key.name, "KeyType": "HASH"}]
    if sort_key:
        schema.append({"AttributeName": sort_key.name, "KeyType": "RANGE"})
    return schema


def _table_arguments(design: TableDesign) -> dict[str, Any]:
    attributes = {design.partition_key, *([design.sort_key] if design.sort_key else [])}
    for index in design.indexes:
        attributes.update(a for a in (index.partition_key, index.sort_key) if a)
    arguments: dict[str, Any] = {
        "KeySchema": _key_schema(design.partition_key, design.sort_key),
        "AttributeDefinitions": [
            {"AttributeName": a.name, "AttributeType": a.type}
            for a in sorted(attributes, key=lambda a: a.name)
        ],
    }
    if design.indexes:
        arguments["GlobalSecondaryIndexes"] = [
            {
                "IndexName": index.name,
                "KeySchema": _key_schema(index.partition_key, index.sort_key),
                "Projection": {"ProjectionType": "ALL"},
            }
            for index in design.indexes
        ]
    return arguments


# ---- formats both backends share ---------------------------------------------------------------------


def as_utc(moment: datetime) -> datetime:
    """A naive datetime is taken to be UTC (the models default to aware UTC times)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def timestamp_key(moment: datetime) -> str:
    """Fixed-width ISO-8601 UTC (always microseconds), so that string order is time order."""
    return as_utc(moment).isoformat(timespec="microseconds")


def epoch_seconds(moment: datetime) -> int:
    return int(as_utc(moment).timestamp())


def check_limit(limit: int) -> int:
    if limit < 1:
        raise InvalidInput(f"limit must be at least 1 (got {limit})")
    return limit


# ---- DynamoDB helpers (boto3 is imported on first use only) -------------------------------------------


def to_item(data: Mapping[str, Any]) -> dict[str, Any]:
    """JSON-shaped data as a DynamoDB item: every float becomes a Decimal (boto3 refuses floats)."""
    item: dict[str, Any] = json.loads(json.dumps(data), parse_float=Decimal)
    return item


def from_item(value: Any) -> Any:
    """The inverse of to_item: Decimals back to int (integral, no fraction digits) or float."""
    if isinstance(value, Decimal):
        is_integral = value == value.to_integral_value() and value.as_tuple().exponent >= 0  # type: ignore[operator]
        return int(value) if is_integral else float(value)
    if isinstance(value, dict):
        return {k: from_item(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_item(v) for v in value]
    return value


def merge_newest_first(groups: Iterable[Iterable[T]], key: Callable[[T], Any], limit: int) -> list[T]:
    """The `limit` newest of several groups, each already fetched newest first from its own GSI partition."""
    ordered = [sorted(group, key=key, reverse=True) for group in groups]  # ties: same order as SQLite's
    return list(itertools.islice(heapq.merge(*ordered, key=key, reverse=True), limit))


CONDITION_FAILED = "ConditionalCheckFailedException"


def error_code(exc: Exception) -> str:
    """The AWS error code of a botocore ClientError ("" for anything else)."""
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def _paged(call: Callable[..., dict[str, Any]], *, limit: int | None = None, **kwargs: Any
           ) -> Iterator[dict[str, Any]]:
    """Items of a Query or Scan across pages, stopping after `limit` items."""
    returned = 0
    while True:
        if limit is not None:
            kwargs["Limit"] = limit - returned
        response = call(**kwargs)
        for item in response.get("Items", []):
            returned += 1
            yield item
        if "LastEvaluatedKey" not in response or (limit is not None and returned >= limit):
            return
        kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]


class DynamoTable:
    """One table through the low-level DynamoDB client: an injected one, or one created on first use.

    Items in and out are plain dicts (numbers as Decimal, see to_item/from_item); the attribute-value
    wire format stays in here. boto3 is imported on first use, so importing an adapter stays cheap.
    """

    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None) -> None:
        self.name = table_name
        self._client = client
        self._region_name = region_name
        self._lock = threading.Lock()
        self._serializer: Any = None
        self._deserializer: Any = None
        self._mapped: Any = None

    def client(self) -> Any:
        """The client; an outage (throttled, down, unreachable) raises StoreUnavailable (dynamodb_outages)."""
        with self._lock:
            if self._client is None:
                import boto3

                self._client = boto3.client("dynamodb", region_name=self._region_name)
            if self._mapped is None:
                from voiceassist.adapters.aws.dynamodb_outages import OutagesAsStoreUnavailable

                self._mapped = OutagesAsStoreUnavailable(self._client, self.name)
            if self._serializer is None:
                from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

                self._serializer, self._deserializer = TypeSerializer(), TypeDeserializer()
            return self._mapped

    def serialize(self, item: Mapping[str, Any]) -> dict[str, Any]:
        self.client()
        return {name: self._serializer.serialize(value) for name, value in item.items()}

    def deserialize(self, item: Mapping[str, Any]) -> dict[str, Any]:
        self.client()
        return {name: self._deserializer.deserialize(value) for name, value in item.items()}

    def get(self, key: Mapping[str, Any]) -> dict[str, Any] | None:
        response = self.client().get_item(TableName=self.name, Key=self.serialize(key), ConsistentRead=True)
        return self.deserialize(response["Item"]) if "Item" in response else None

    def put(self, item: Mapping[str, Any], *, condition: str | None = None,
            names: Mapping[str, str] | None = None, values: Mapping[str, Any] | None = None,
            return_old_on_failure: bool = False) -> None:
        """PutItem; a failed condition raises the client's ConditionalCheckFailedException."""
        arguments: dict[str, Any] = {"TableName": self.name, "Item": self.serialize(item)}
        if condition:
            arguments["ConditionExpression"] = condition
        if names:
            arguments["ExpressionAttributeNames"] = dict(names)
        if values:
            arguments["ExpressionAttributeValues"] = self.serialize(values)
        if return_old_on_failure:
            arguments["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        self.client().put_item(**arguments)

    def delete(self, key: Mapping[str, Any]) -> None:
        self.client().delete_item(TableName=self.name, Key=self.serialize(key))

    def query(self, *, key_condition: str, names: Mapping[str, str], values: Mapping[str, Any],
              index: str | None = None, newest_first: bool = False, limit: int | None = None,
              consistent: bool = False, projection: str | None = None) -> Iterator[dict[str, Any]]:
        """Items matching a key condition, in sort-key order (descending with newest_first), across pages."""
        arguments: dict[str, Any] = {
            "TableName": self.name,
            "KeyConditionExpression": key_condition,
            "ExpressionAttributeNames": dict(names),
            "ExpressionAttributeValues": self.serialize(values),
            "ScanIndexForward": not newest_first,
        }
        if index:
            arguments["IndexName"] = index
        if consistent:
            arguments["ConsistentRead"] = True
        if projection:
            arguments["ProjectionExpression"] = projection
        for item in _paged(self.client().query, limit=limit, **arguments):
            yield self.deserialize(item)

    def scan(self) -> Iterator[dict[str, Any]]:
        for item in _paged(self.client().scan, TableName=self.name):
            yield self.deserialize(item)

    def batch_delete(self, keys: Iterable[Mapping[str, Any]]) -> None:
        """Delete many items, 25 a request (DynamoDB's limit), retrying what DynamoDB leaves unprocessed."""
        pending = [{"DeleteRequest": {"Key": self.serialize(key)}} for key in keys]
        for start in range(0, len(pending), _BATCH_WRITE_LIMIT):
            requests: dict[str, Any] = {self.name: pending[start:start + _BATCH_WRITE_LIMIT]}
            for attempt in range(_BATCH_ATTEMPTS):
                requests = self.client().batch_write_item(RequestItems=requests).get("UnprocessedItems") or {}
                if not requests:
                    break
                time.sleep(_BATCH_BACKOFF_SECONDS * 2**attempt)  # throttled: back off before retrying
            else:
                raise DependencyError(f"DynamoDB kept refusing deletes in {self.name}")


_BATCH_WRITE_LIMIT = 25
_BATCH_ATTEMPTS = 6
_BATCH_BACKOFF_SECONDS = 0.05
