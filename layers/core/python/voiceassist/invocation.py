"""The running Lambda invocation's deadline, for optional work that must not outlast it (the rolling summary's
model call, conversation/memory.py).

A handler that runs such work calls `begin(context)` first; `seconds_left()` is then the time the Lambda context
had left, less what has passed since. None: no deadline is known (the local runtime, or a handler that did not
call `begin`); the caller decides what that means (on AWS the summary then skips its model call).
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

_deadline: ContextVar[float | None] = ContextVar("invocation_deadline", default=None)


def begin(context: Any) -> None:
    """Start the invocation's clock from its Lambda context (anything without `get_remaining_time_in_millis`:
    no deadline)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    _deadline.set(time.monotonic() + remaining() / 1000 if callable(remaining) else None)


def seconds_left() -> float | None:
    """Seconds until the invocation's deadline (0 once it has passed); None when no deadline is known."""
    deadline = _deadline.get()
    return None if deadline is None else max(0.0, deadline - time.monotonic())
