"""Concurrent callers served in turns, as databases batch their log writes (group commit).

A caller queues its request. If nobody is running a batch, it takes queued requests (`take`, which removes them
from the queue) and runs them as one batch (`run`, which must mark each request finished); otherwise it waits
until either another caller's batch has run its request or it is its turn. No timer and no thread of its own: a
lone call runs at once, and a busy runner gathers the calls that arrive while it works. Used by the embedded
index's writes (adapters/local/group_commit.py) and the coalescing embedder (adapters/onnx/embedding.py).

While `gathering` is set (bulk ingestion), a runner first waits for more requests before it takes a batch: callers
that arrive one by one, each its own batch otherwise, are run together (a bounded wait: it changes how requests are
grouped, never what each one's outcome is).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar


class Pending(Protocol):
    finished: bool


Request = TypeVar("Request", bound=Pending)


@dataclass(frozen=True)
class Gathering:
    """A runner waits before taking a batch until `full` requests are queued, `everyone()` says no other caller
    can come (checked every `poll` seconds), none arrived for `settle` seconds, or `limit` seconds passed."""

    settle: float
    limit: float
    full: int
    everyone: Callable[[], bool] | None = None
    poll: float = 0.05


class TakeTurns(Generic[Request]):
    """`submit(request)` returns once `request` is finished, run in this caller's batch or in another's."""

    def __init__(self, run: Callable[[list[Request]], None],
                 take: Callable[[list[Request]], list[Request]]) -> None:
        self._run = run
        self._take = take
        self._queue: list[Request] = []
        self._busy = False
        self._changed = threading.Condition()
        self.gathering: Gathering | None = None

    def submit(self, request: Request) -> None:
        with self._changed:
            self._queue.append(request)
            if self.gathering is not None:
                self._changed.notify_all()  # a gathering runner counts the arrivals
        while True:
            with self._changed:
                while self._busy and not request.finished:
                    self._changed.wait()
                if request.finished:
                    return
                self._busy = True
                self._gather()
                batch = self._take(self._queue)
            try:
                self._run(batch)
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    def _gather(self) -> None:
        """Wait (holding the turn, the condition released while waiting) for more requests, as `gathering` says."""
        gathering = self.gathering
        if gathering is None:
            return
        now = time.monotonic()
        deadline, last_arrival, seen = now + gathering.limit, now, len(self._queue)
        while len(self._queue) < gathering.full and not (gathering.everyone is not None and gathering.everyone()):
            now = time.monotonic()
            if len(self._queue) > seen:
                seen, last_arrival = len(self._queue), now
            quiet_until = last_arrival + gathering.settle
            if now >= min(deadline, quiet_until):
                return
            wait = min(deadline, quiet_until) - now
            self._changed.wait(wait if gathering.everyone is None else min(wait, gathering.poll))

    @property
    def queued(self) -> int:
        """Requests waiting for the batch under way to finish.

        Read without the lock (a list's length is one atomic read): a gathering runner asks another TakeTurns
        while it holds its own lock (the index's `everyone()` adds both of its queues), and two runners asking
        each other under their locks would wait for each other forever."""
        return len(self._queue)
