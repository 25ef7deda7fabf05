"""A clock kept clear of a month's end, for tests that bill several model calls and then read "this month's" spend:
a run that crossed midnight UTC at a month's end would otherwise record the calls in one month and read another.

`voiceassist.models.utc_now` stamps billing events and picks the month a cost limit is read for; other modules hold
that function itself (imported by name, pydantic default factories), so the clock it reads is shifted instead: the
`datetime` of its module, set back two hours when the month ends within two hours, else as it is. (A shift of days
would expire the sessions the tests' fixtures opened on the real clock.)
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo

import pytest

import voiceassist.models as models

MARGIN = timedelta(hours=2)


def clear_of_month_end(monkeypatch: pytest.MonkeyPatch) -> timedelta:
    """Keep `utc_now` at least two hours before the month's end for the rest of the test; returns the shift."""
    real = datetime.now(UTC)
    shift = -MARGIN if (real + MARGIN).month != real.month else timedelta(0)

    class ClearOfMonthEnd(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> datetime:  # type: ignore[override]
            return datetime.now(tz) + shift

    monkeypatch.setattr(models, "datetime", ClearOfMonthEnd)
    return shift
