"""A clock running in the middle of the month, for tests that bill several model calls and then read "this
month's" spend: a run that crossed midnight UTC at a month's end would otherwise record the calls in one month and
read another.

`voiceassist.models.utc_now` stamps billing events and picks the month a cost limit is read for; other modules hold
that function itself (imported by name, pydantic default factories), so the clock it reads is shifted instead: the
`datetime` of its module, whose `now` runs from the 15th of this month at noon UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo

import pytest

import voiceassist.models as models


def run_mid_month(monkeypatch: pytest.MonkeyPatch) -> timedelta:
    """Shift `utc_now` to the 15th of this month, noon UTC; returns the shift."""
    real = datetime.now(UTC)
    shift = real.replace(day=15, hour=12, minute=0, second=0, microsecond=0) - real

    class MidMonth(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> datetime:  # type: ignore[override]
            return datetime.now(tz) + shift

    monkeypatch.setattr(models, "datetime", MidMonth)
    assert models.utc_now().day == 15
    return shift
