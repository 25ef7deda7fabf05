"""The threads moto's interpreter starts, taken from a pool instead of started new (a local speedup).

moto runs every execution, every Map iteration and every Task with a time-out on a thread of its own, started
for it and waited on with the time-out (13 threads for an ordinary question). Starting a thread makes the
starter wait until the new thread runs, one scheduler hand-off each, which on a busy machine costs more than the
work. `PooledThread` gives those three places what they use of threading.Thread (start, join with a time-out,
is_alive) on the threads of one shared pool. Time-outs are unchanged: the waiter stops waiting, and the late
work finishes on its pool thread, as it did on its own daemon thread. Each piece of work runs in a fresh
contextvars context, as on a new thread. The pool grows when every thread is busy (a parent waiting for its
child holds one), up to MAX_THREADS: an execution and its Map and Task threads are never left waiting for a thread.
"""

from __future__ import annotations

import contextvars
import threading
import types
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

MAX_THREADS = 256  # far above what runs at once (4 executions x a Map of 3 x a Task, and abandoned late tasks)

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="asl-interpreter")
        return _pool


class PooledThread:
    """threading.Thread's start, join and is_alive, for a target run on the shared pool."""

    def __init__(self, target: Callable[..., Any] | None = None, args: tuple[Any, ...] = (),
                 kwargs: Mapping[str, Any] | None = None, *, daemon: bool | None = None,
                 name: str | None = None) -> None:
        self._target, self._args, self._kwargs = target, args, dict(kwargs or {})
        self._done = threading.Event()

    def start(self) -> None:
        _shared_pool().submit(contextvars.Context().run, self._run)

    def _run(self) -> None:
        try:
            if self._target is not None:
                self._target(*self._args, **self._kwargs)
        finally:
            self._done.set()

    def join(self, timeout: float | None = None) -> None:
        self._done.wait(timeout)

    def is_alive(self) -> bool:
        return not self._done.is_set()


def run_interpreter_threads_on_a_pool() -> None:
    """Point moto's three thread starters (an execution, a Map iteration, a Task's time-out) at PooledThread."""
    from moto.stepfunctions.parser.asl.component.program import program
    from moto.stepfunctions.parser.asl.component.state.exec import execute_state
    from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration import inline_iteration_component

    pooled = types.SimpleNamespace(Thread=PooledThread, Event=threading.Event)
    setattr(execute_state, "Thread", PooledThread)  # noqa: B010 - the module's own reference only
    for module in (program, inline_iteration_component):
        setattr(module, "threading", pooled)  # noqa: B010 - they use threading.Thread alone
