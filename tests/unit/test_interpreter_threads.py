"""moto's interpreter threads come from a pool: executions, Map iterations and Task time-outs behave as before."""

from __future__ import annotations

import contextvars
import threading
import time

from voiceassist_local.interpreter_threads import PooledThread

MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="fresh")


def test_interpreter_threads_run_the_target_on_another_thread_and_join() -> None:
    ran: list[tuple[str, int]] = []
    thread = PooledThread(target=lambda a, b: ran.append((threading.current_thread().name, a + b)), args=(2, 3),
                          daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert ran and ran[0][1] == 5 and ran[0][0] != threading.current_thread().name


def test_interpreter_threads_join_stops_waiting_at_the_time_out_and_the_work_finishes_later() -> None:
    release = threading.Event()
    thread = PooledThread(target=release.wait, args=(10,))
    thread.start()
    started = time.monotonic()
    thread.join(timeout=0.05)
    assert thread.is_alive() and time.monotonic() - started < 5  # the waiter gave up, as with a daemon thread
    release.set()
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_interpreter_threads_each_target_gets_a_fresh_context() -> None:
    seen: list[str] = []

    def mark_and_read() -> None:
        seen.append(MARK.get())
        MARK.set("set by an earlier task")

    for _ in range(3):
        thread = PooledThread(target=mark_and_read)
        thread.start()
        thread.join(timeout=10)
    assert seen == ["fresh", "fresh", "fresh"]


def test_interpreter_threads_a_waiting_parent_never_starves_its_child() -> None:
    # Given nested work, each level waiting for the next (an execution, its Map iteration, the iteration's Task)
    depth = 40
    done = threading.Event()

    def level(n: int) -> None:
        if n == depth:
            done.set()
            return
        child = PooledThread(target=level, args=(n + 1,))
        child.start()
        child.join(timeout=30)

    root = PooledThread(target=level, args=(0,))
    root.start()
    root.join(timeout=30)
    assert done.is_set()
