"""RateLimiter on DynamoDB (the state table): one item per key and fixed window, counted by one conditional
UpdateItem (ADD), so concurrent Lambdas never count past the limit; `ttl` removes old windows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from voiceassist.adapters.aws.dynamodb_tables import CONDITION_FAILED, DynamoTable, epoch_seconds, error_code
from voiceassist.models import utc_now
from voiceassist.ports import RateDecision


class DynamoDbRateLimiter:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None,
                 clock: Callable[[], datetime] = utc_now) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)
        self._clock = clock

    def acquire(self, key: str, *, limit: int, window_seconds: int = 60) -> RateDecision:
        now = epoch_seconds(self._clock())
        window_end = now - now % window_seconds + window_seconds
        try:
            response = self._table.client().update_item(
                TableName=self._table.name,
                Key=self._table.serialize({"pk": f"rate:{key}#{window_end}"}),
                UpdateExpression="ADD hits :one SET #ttl = :ttl",
                ConditionExpression="attribute_not_exists(hits) OR hits < :limit",
                ExpressionAttributeNames={"#ttl": "ttl"},
                ExpressionAttributeValues=self._table.serialize({":one": 1, ":limit": limit, ":ttl": window_end}),
                ReturnValues="UPDATED_NEW",
            )
        except ClientError as exc:
            if error_code(exc) == CONDITION_FAILED:
                return RateDecision(allowed=False, remaining=0, retry_after=max(window_end - now, 1))
            raise
        hits = int(self._table.deserialize(response["Attributes"])["hits"])
        return RateDecision(allowed=True, remaining=limit - hits, retry_after=0)
