"""RateLimiter contract: the same fixed-window counting on SQLite and on DynamoDB (moto)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from voiceassist.adapters.aws.dynamodb_rate_limits import DynamoDbRateLimiter
from voiceassist.adapters.aws.dynamodb_tables import STATE
from voiceassist.adapters.local.sqlite_rate_limits import SqliteRateLimiter
from voiceassist.ports import RateDecision, RateLimiter

if TYPE_CHECKING:
    from tests.contract.conftest import FakeClock


@pytest.fixture(params=["sqlite", "dynamodb"])
def limiter(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> RateLimiter:
    if request.param == "sqlite":
        return SqliteRateLimiter(tmp_path / "voiceassist.sqlite3", clock=clock)
    client: Any = request.getfixturevalue("dynamodb_client")
    return DynamoDbRateLimiter(request.getfixturevalue("table_names")[STATE], client=client, clock=clock)


def test_rate_limit_allows_up_to_the_limit_then_refuses_with_the_seconds_to_wait(limiter: RateLimiter,
                                                                                 clock: FakeClock) -> None:
    clock.advance(seconds=30)  # half-way through the minute
    decisions = [limiter.acquire("clinician-1:bmi", limit=3) for _ in range(4)]

    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert [d.remaining for d in decisions[:3]] == [2, 1, 0]
    assert decisions[3] == RateDecision(allowed=False, remaining=0, retry_after=30)


def test_rate_limit_opens_again_in_the_next_window(limiter: RateLimiter, clock: FakeClock) -> None:
    for _ in range(2):
        limiter.acquire("clinician-1:bmi", limit=2)
    assert not limiter.acquire("clinician-1:bmi", limit=2).allowed

    clock.advance(seconds=60)

    assert limiter.acquire("clinician-1:bmi", limit=2) == RateDecision(allowed=True, remaining=1, retry_after=0)


def test_rate_limit_counts_each_key_on_its_own(limiter: RateLimiter) -> None:
    assert limiter.acquire("clinician-1:bmi", limit=1).allowed
    assert not limiter.acquire("clinician-1:bmi", limit=1).allowed

    assert limiter.acquire("clinician-2:bmi", limit=1).allowed
    assert limiter.acquire("clinician-1:meld", limit=1).allowed


def test_rate_limit_a_refused_call_is_not_counted(limiter: RateLimiter) -> None:
    limiter.acquire("clinician-1:bmi", limit=1)
    for _ in range(3):
        limiter.acquire("clinician-1:bmi", limit=1)

    assert limiter.acquire("clinician-1:bmi", limit=2).allowed  # one counted call so far, not four
