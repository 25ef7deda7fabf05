"""KeyValueState on DynamoDB: a numeric `version` for compare-and-set, `ttl` (epoch seconds) for expiry.

An item past its `ttl` reads as absent (version 0) even before the TTL sweeper deletes it, and a writer
expecting version 0 may replace it; a writer holding a version from before the expiry gets a Conflict.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from voiceassist.adapters.aws.dynamodb_tables import (
    CONDITION_FAILED,
    DynamoTable,
    epoch_seconds,
    error_code,
    from_item,
    to_item,
)
from voiceassist.errors import Conflict
from voiceassist.models import utc_now

# `ttl` is a DynamoDB reserved word, hence the #ttl placeholder.
_ABSENT_OR_EXPIRED = "attribute_not_exists(pk) OR #ttl <= :now"
_LIVE_AT_VERSION = "version = :expected AND (attribute_not_exists(#ttl) OR #ttl > :now)"


class DynamoDbKeyValueState:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None,
                 clock: Callable[[], datetime] = utc_now) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)
        self._clock = clock

    def get(self, key: str) -> tuple[dict[str, Any] | None, int]:
        item = self._table.get({"pk": key})
        if item is None or ("ttl" in item and int(item["ttl"]) <= epoch_seconds(self._clock())):
            return None, 0
        value: dict[str, Any] = from_item(item["value"])
        return value, int(item["version"])

    def put(self, key: str, value: dict[str, Any], *, expected_version: int, ttl_seconds: int | None = None
            ) -> int:
        now = epoch_seconds(self._clock())
        item: dict[str, Any] = {"pk": key, "value": to_item(value), "version": expected_version + 1}
        if ttl_seconds is not None:
            item["ttl"] = now + ttl_seconds
        values: dict[str, Any] = {":now": now}
        if expected_version:
            values[":expected"] = expected_version
        try:
            self._table.put(
                item,
                condition=_LIVE_AT_VERSION if expected_version else _ABSENT_OR_EXPIRED,
                names={"#ttl": "ttl"},
                values=values,
            )
        except ClientError as exc:
            if error_code(exc) == CONDITION_FAILED:
                raise Conflict(f"state {key!r} is no longer at version {expected_version}") from exc
            raise
        return expected_version + 1
