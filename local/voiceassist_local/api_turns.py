"""Concurrent requests and the API handler, in one process.

Powertools keeps the event it is resolving on a class attribute (`BaseRouter.current_event`, with
`lambda_context`): a Lambda sandbox serves one request at a time. The local server's threads share it, so
API calls take turns (`api_turn`); without that a request can be validated against another's body.

A question holds its turn only while Powertools works on it: while the query pipeline runs (seconds), the
local runner steps out of the turn (`outside_api_turn`), and back in it puts its own event back in place,
so health checks and reads are not queued behind questions.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

API_LOCK = threading.Lock()
_turn = threading.local()


@contextmanager
def api_turn() -> Iterator[None]:
    with API_LOCK:
        _turn.holding = True
        try:
            yield
        finally:
            _turn.holding = False


@contextmanager
def outside_api_turn() -> Iterator[None]:
    """Give the turn away for the block if this thread holds it; take it back, with this request's event."""
    if not getattr(_turn, "holding", False):
        yield
        return
    from aws_lambda_powertools.event_handler.api_gateway import BaseRouter

    saved = (BaseRouter.current_event, BaseRouter.lambda_context)
    _turn.holding = False
    API_LOCK.release()
    try:
        yield
    finally:
        API_LOCK.acquire()
        _turn.holding = True
        BaseRouter.current_event, BaseRouter.lambda_context = saved
