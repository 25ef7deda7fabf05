"""Concurrent callers served in turns, as databases batch their log writes (group commit).

A caller queues its request. If nobody is running a batch, it takes queued requests (`take`, which removes them
from the queue) and runs them as one batch (`run`, which must mark each request finished); otherwise it waits
until either another caller's batch has run its request or it is its turn. No timer and no thread of its own: a
lone call runs at once, and a busy runner gathers the calls that arrive while it works. Used by the embedded
index's writes (adapters/local/group_commit.py) and the coalescing embedder (adapters/onnx/embedding.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Pending(Protocol):
    finished: bool


Request = TypeVar("Request", bound=Pending)


class TakeTurns(Generic[Request]):
    """`submit(request)` returns once `request` is finished, run in this caller's batch or in another's."""

    def __init__(self, run: Callable[[list[Request]], None],
                 take: Callable[[list[Request]], list[Request]]) -> None:
        self._run = run
        self._take = take
        self._queue: list[Request] = []
        self._busy = False
        self._changed = threading.Condition()

    def submit(self, request: Request) -> None:
        with self._changed:
            self._queue.append(request)
        while True:
            with self._changed:
                while self._busy and not request.finished:
                    self._changed.wait()
                if request.finished:
                    return
                self._busy = True
                batch = self._take(self._queue)
            try:
                self._run(batch)
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    @property
    def queued(self) -> int:
        """Requests waiting for the batch under way to finish."""
        with self._changed:
            return len(self._queue)
