"""BillingLedger contract: SQLite and DynamoDB (moto) keep the same months, users, days and alerts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from voiceassist.adapters.aws.dynamodb_billing import DynamoDbBillingLedger
from voiceassist.adapters.aws.dynamodb_tables import BILLING
from voiceassist.adapters.local.sqlite_billing import SqliteBillingLedger
from voiceassist.admin.ledger import OVERALL, BillingEvent, CostAlert, Spend, user_scope
from voiceassist.ports import BillingLedger

MARCH_1 = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
MARCH_2 = datetime(2025, 3, 2, 23, 59, tzinfo=UTC)
APRIL_1 = datetime(2025, 4, 1, 0, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "dynamodb"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> BillingLedger:
    if request.param == "sqlite":
        return SqliteBillingLedger(tmp_path / "voiceassist.sqlite3")
    client: Any = request.getfixturevalue("dynamodb_client")
    return DynamoDbBillingLedger(request.getfixturevalue("table_names")[BILLING], client=client)


def call(user: str, at: datetime, *, cost: float = 0.000027, prompt: int = 100, completion: int = 20,
         in_boundary: bool = False, event_id: str | None = None) -> BillingEvent:
    extra = {"event_id": event_id} if event_id else {}
    return BillingEvent(user_id=user, at=at, model="llama-3.1-8b" if in_boundary else "gpt-4o-mini",
                        in_boundary=in_boundary, prompt_tokens=prompt, completion_tokens=completion,
                        cost_usd=0.0 if in_boundary else cost, **extra)


def test_billing_ledger_sums_a_month_overall_per_user_and_per_day(ledger: BillingLedger) -> None:
    for event in (call("u1", MARCH_1), call("u1", MARCH_2), call("u2", MARCH_1, in_boundary=True),
                  call("u1", APRIL_1)):
        ledger.record(event)

    assert ledger.spend("2025-03") == Spend(calls=3, prompt_tokens=300, completion_tokens=60, cost_usd=0.000054)
    assert ledger.spend("2025-03", user_id="u1") == Spend(calls=2, prompt_tokens=200, completion_tokens=40,
                                                           cost_usd=0.000054)
    assert ledger.users("2025-03") == {"u1": ledger.spend("2025-03", user_id="u1"),
                                       "u2": Spend(calls=1, prompt_tokens=100, completion_tokens=20)}
    one_call = Spend(calls=1, prompt_tokens=100, completion_tokens=20, cost_usd=0.000027)
    assert ledger.days("2025-03", user_id="u1") == {"2025-03-01": one_call, "2025-03-02": one_call}
    assert ledger.spend("2025-04").calls == 1 and ledger.spend("2025-05") == Spend()


def test_billing_ledger_counts_a_recorded_event_once(ledger: BillingLedger) -> None:
    ledger.record(call("u1", MARCH_1, event_id="bil_retried"))
    ledger.record(call("u1", MARCH_1, event_id="bil_retried"))  # a retried step records the same call again

    assert ledger.spend("2025-03").calls == 1


def test_billing_ledger_raises_each_alert_once(ledger: BillingLedger) -> None:
    at_80 = CostAlert(month="2025-03", scope=user_scope("u1"), threshold=0.8, spent_usd=4.1, limit_usd=5, at=MARCH_1)
    at_100 = CostAlert(month="2025-03", scope=OVERALL, threshold=1.0, spent_usd=100, limit_usd=100, at=MARCH_2)

    assert ledger.claim_alert(at_80) and ledger.claim_alert(at_100)
    assert not ledger.claim_alert(at_80.model_copy(update={"spent_usd": 4.5}))

    assert ledger.alerts("2025-03") == [at_80, at_100]
    assert ledger.alerts("2025-04") == []
