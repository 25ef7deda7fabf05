"""admin.billing.Metering, the billing of model calls outside the answer path: a cloud model is kept out at a
limit and when the month's spend cannot be read (fail closed); an in-boundary model is never kept out; a ledger
that cannot record costs the caller nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.clock import clear_of_month_end
from voiceassist.adapters.local.sqlite_billing import SqliteBillingLedger
from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.admin.billing import CostGate, Metering
from voiceassist.admin.config import CostLimits
from voiceassist.admin.ledger import month_of
from voiceassist.errors import StoreUnavailable
from voiceassist.models import ChatCompletion, TokenUsage, utc_now

USER = "clinician-1"
COMPLETION = ChatCompletion(text="A summary.", model="gpt-4o-mini",
                            usage=TokenUsage(prompt_tokens=100, completion_tokens=20, cost_usd=0.000027))


class Model:
    def __init__(self, name: str, *, in_boundary: bool) -> None:
        self.name, self.in_boundary = name, in_boundary


class DownLedger:
    def spend(self, *_: object, **__: object) -> object:
        raise StoreUnavailable("the billing table is unavailable")

    def record(self, *_: object) -> None:
        raise StoreUnavailable("the billing table is unavailable")


class Alerts:
    def publish(self, subject: str, message: str) -> None: ...


@pytest.fixture
def ledger(tmp_path: Path) -> SqliteBillingLedger:
    return SqliteBillingLedger(SqliteDatabase(tmp_path / "voiceassist.sqlite3"))


def test_metering_keeps_the_cloud_model_out_at_the_limit_never_the_in_boundary_one(
        ledger: SqliteBillingLedger, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_of_month_end(monkeypatch)
    metering = Metering(CostGate(ledger, Alerts(), CostLimits(per_user_monthly_limit_usd=0.00002)), USER)
    cloud, local = Model("gpt-4o-mini", in_boundary=False), Model("llama-3.1-8b", in_boundary=True)
    assert metering.refusal(cloud) is None

    metering.record(cloud, COMPLETION)

    refusal = metering.refusal(cloud)
    assert refusal is not None and "Your monthly cloud-model budget ($0.00) is used up" in refusal
    assert metering.refusal(local) is None
    spend = ledger.spend(month_of(utc_now()), user_id=USER)
    assert (spend.calls, spend.prompt_tokens, spend.cost_usd) == (1, 100, pytest.approx(0.000027))


def test_metering_with_the_ledger_down_keeps_the_cloud_model_out_and_records_without_raising() -> None:
    metering = Metering(CostGate(DownLedger(), Alerts(), CostLimits(monthly_limit_usd=10)),  # type: ignore[arg-type]
                        USER)

    refusal = metering.refusal(Model("gpt-4o-mini", in_boundary=False))

    assert refusal is not None and "could not be checked" in refusal
    metering.record(Model("gpt-4o-mini", in_boundary=False), COMPLETION)  # logged, not raised

