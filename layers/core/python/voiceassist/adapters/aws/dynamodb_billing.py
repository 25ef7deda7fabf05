"""BillingLedger on DynamoDB (the billing table): a month is one partition, `month#YYYY-MM`.

Each model call is one TransactWriteItems: the event (`event#<time>#<id>`, put only if new, so a retried step
never counts twice) and ADDs to three running totals, `total`, `user#<id>` and `day#<YYYY-MM-DD>#user#<id>`,
so the cost gate reads a month's spend with one GetItem. An alert is `alert#<scope>#<threshold>`, put only if
absent: the first caller to cross a threshold raises it, exactly once per month.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError

from voiceassist.adapters.aws.dynamodb_tables import (
    CONDITION_FAILED,
    DynamoTable,
    error_code,
    from_item,
    timestamp_key,
    to_item,
)
from voiceassist.admin.ledger import BillingEvent, CostAlert, Spend

TOTAL_SK = "total"


def _pk(month: str) -> str:
    return f"month#{month}"


def _spend(item: dict[str, Any] | None) -> Spend:
    if not item:
        return Spend()
    values = from_item(item)
    return Spend(calls=int(values.get("calls", 0)), prompt_tokens=int(values.get("prompt_tokens", 0)),
                 completion_tokens=int(values.get("completion_tokens", 0)),
                 cost_usd=round(float(values.get("cost_usd", 0)), 8))


class DynamoDbBillingLedger:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)

    def record(self, event: BillingEvent) -> None:
        pk = _pk(event.month)
        put = {"Put": {"TableName": self._table.name, "ConditionExpression": "attribute_not_exists(sk)",
                       "Item": self._table.serialize(to_item({
                           "pk": pk, "sk": f"event#{timestamp_key(event.at)}#{event.event_id}",
                           **event.model_dump(mode="json")}))}}
        adds = self._table.serialize({":calls": 1, ":prompt": event.prompt_tokens,
                                      ":completion": event.completion_tokens,
                                      ":cost": Decimal(str(event.cost_usd))})
        updates = [{"Update": {
            "TableName": self._table.name, "Key": self._table.serialize({"pk": pk, "sk": sk}),
            "UpdateExpression": "ADD calls :calls, prompt_tokens :prompt, completion_tokens :completion, "
                                "cost_usd :cost",
            "ExpressionAttributeValues": adds}}
            for sk in (TOTAL_SK, f"user#{event.user_id}", f"day#{event.day}#user#{event.user_id}")]
        try:
            self._table.client().transact_write_items(TransactItems=[put, *updates])
        except ClientError as exc:
            reasons = exc.response.get("CancellationReasons") or []
            if error_code(exc) == "TransactionCanceledException" and reasons and \
                    reasons[0].get("Code") == "ConditionalCheckFailed":
                return  # recorded before (a retried step): counted once
            raise

    def spend(self, month: str, *, user_id: str | None = None) -> Spend:
        sk = TOTAL_SK if user_id is None else f"user#{user_id}"
        return _spend(self._table.get({"pk": _pk(month), "sk": sk}))

    def users(self, month: str) -> dict[str, Spend]:
        return {item["sk"].removeprefix("user#"): _spend(item) for item in self._query(month, "user#")}

    def days(self, month: str, *, user_id: str) -> dict[str, Spend]:
        suffix = f"#user#{user_id}"
        return {item["sk"].removeprefix("day#").removesuffix(suffix): _spend(item)
                for item in self._query(month, "day#") if item["sk"].endswith(suffix)}

    def claim_alert(self, alert: CostAlert) -> bool:
        item = {"pk": _pk(alert.month), "sk": f"alert#{alert.scope}#{alert.threshold}",
                "at_key": timestamp_key(alert.at), **alert.model_dump(mode="json")}
        try:
            self._table.put(to_item(item), condition="attribute_not_exists(sk)")
        except ClientError as exc:
            if error_code(exc) == CONDITION_FAILED:
                return False
            raise
        return True

    def alerts(self, month: str) -> list[CostAlert]:
        items = sorted(self._query(month, "alert#"), key=lambda i: (i["at_key"], i["scope"], i["threshold"]))
        return [CostAlert.model_validate({k: v for k, v in from_item(i).items() if k not in ("pk", "sk", "at_key")})
                for i in items]

    def _query(self, month: str, prefix: str) -> list[dict[str, Any]]:
        return list(self._table.query(key_condition="#pk = :pk AND begins_with(#sk, :prefix)",
                                      names={"#pk": "pk", "#sk": "sk"},
                                      values={":pk": _pk(month), ":prefix": prefix}, consistent=True))
