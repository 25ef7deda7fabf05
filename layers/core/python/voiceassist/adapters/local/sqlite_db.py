"""One SQLite database file shared by every embedded store, safe across threads and processes.

A connection serves one thread at a time: each read or transaction borrows one from a small pool and
gives it back. A pool rather than a connection per thread, because the local HTTP server starts a thread
per request, and SQLite keeps the file descriptors of connections closed by dead threads open for as long
as any other connection to the file lives. WAL lets readers run beside the one writer; busy_timeout makes
a writer wait for the lock instead of failing with "database is locked"; transactions take the write lock
up front (BEGIN IMMEDIATE), because a transaction that upgrades from read to write cannot wait for the
lock and fails at once.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from voiceassist.errors import StoreUnavailable

DEFAULT_BUSY_TIMEOUT_MS = 10_000
DEFAULT_IDLE_CONNECTIONS = 4


class SqliteDatabase:
    """A database file, a pool of its connections, and the schemas already ensured on it."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
                 idle_connections: int = DEFAULT_IDLE_CONNECTIONS) -> None:
        self.path = Path(path)
        self._busy_timeout_ms = busy_timeout_ms
        self._idle_limit = idle_connections
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()  # guards the pool
        self._schema_lock = threading.Lock()
        self._ensured: set[str] = set()

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """Borrow a connection (autocommit: a statement outside write() is its own transaction)."""
        with self._lock:
            connection = self._idle.pop() if self._idle else None
        try:
            if connection is None:
                connection = self._open()
            try:
                yield connection
            finally:
                self._give_back(connection)
        except sqlite3.OperationalError as exc:  # locked, read-only, full, gone: the store is down, not a bug
            raise StoreUnavailable(f"the local store {self.path.name} is unavailable; try again") from exc

    def query(self, sql: str, parameters: Sequence[object] = ()) -> list[Any]:
        """Every row of one read."""
        with self.connection() as connection:
            return connection.execute(sql, parameters).fetchall()

    def query_one(self, sql: str, parameters: Sequence[object] = ()) -> Any | None:
        """The first row of one read, or None."""
        with self.connection() as connection:
            return connection.execute(sql, parameters).fetchone()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A transaction holding the write lock from its first statement; rolled back on any error."""
        with self.connection() as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def ensure_schema(self, ddl: str) -> None:
        """Run idempotent DDL (CREATE ... IF NOT EXISTS, separated by ';') once per database object."""
        if ddl in self._ensured:
            return
        with self._schema_lock:
            if ddl not in self._ensured:
                with self.write() as connection:
                    for statement in filter(str.strip, ddl.split(";")):
                        connection.execute(statement)
                self._ensured.add(ddl)

    def close(self) -> None:
        """Close the idle connections; borrowed ones close when given back. A later call reconnects."""
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def _give_back(self, connection: sqlite3.Connection) -> None:
        if connection.in_transaction:  # a caller left one open: never lend a connection mid-transaction
            connection.execute("ROLLBACK")
        with self._lock:
            if len(self._idle) < self._idle_limit:
                self._idle.append(connection)
                return
        connection.close()

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            self.path,
            timeout=self._busy_timeout_ms / 1000,
            isolation_level=None,
            check_same_thread=False,  # one thread at a time, but not always the same thread
        )
        connection.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")  # with WAL: never corrupt; fewer fsyncs
        return connection


def open_database(database: SqliteDatabase | str | Path) -> SqliteDatabase:
    """Stores accept a shared SqliteDatabase or a path (then they own a SqliteDatabase of their own)."""
    return database if isinstance(database, SqliteDatabase) else SqliteDatabase(database)
