"""A read-write lock: any number of readers at once, or one writer; a waiting writer holds back new readers.

The embedded index's searches only read its in-memory copy and the database (each thread through its own
connection), so they need not wait for one another; writes change both and wait for every search to end.
Writers come first once waiting, so a stream of searches never starves an ingestion. The write side is
re-entrant for its thread (a write may call another write). A reader must not ask to write: it would wait for
itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ReadWriteLock:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._readers = 0
        self._writer: int | None = None  # the writing thread's ident
        self._depth = 0  # the writer's nested writes
        self._writers_waiting = 0

    @contextmanager
    def read(self) -> Iterator[None]:
        """Shared access; inside the thread's own write, the write's exclusive access serves."""
        me = threading.get_ident()
        with self._changed:
            nested = self._writer == me
            while not nested and (self._writer is not None or self._writers_waiting):
                self._changed.wait()
            if not nested:
                self._readers += 1
        try:
            yield
        finally:
            if not nested:
                with self._changed:
                    self._readers -= 1
                    if not self._readers:
                        self._changed.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        """Exclusive access, once every reader has left."""
        me = threading.get_ident()
        with self._changed:
            if self._writer != me:
                self._writers_waiting += 1
                try:
                    while self._writer is not None or self._readers:
                        self._changed.wait()
                finally:
                    self._writers_waiting -= 1
                self._writer = me
            self._depth += 1
        try:
            yield
        finally:
            with self._changed:
                self._depth -= 1
                if not self._depth:
                    self._writer = None
                    self._changed.notify_all()
