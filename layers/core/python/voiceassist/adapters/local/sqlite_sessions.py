"""SessionStore on the shared SQLite file: a session row plus one row per message (never one blob).

An expired session reads as missing, as on DynamoDB before its TTL sweeper runs. With a FieldCipher (the
composition root always gives one) the clinical context is encrypted before it reaches the file or its WAL.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from voiceassist.adapters.aws.dynamodb_tables import as_utc, check_limit, timestamp_key
from voiceassist.adapters.aws.envelope_cipher import open_field, seal_field
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.errors import Conflict, NotFound, quoted_id
from voiceassist.models import Message, Session, utc_now

if TYPE_CHECKING:
    from voiceassist.ports import FieldCipher

_CONTEXT = "clinical_context"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (user_id, created_at);
CREATE TABLE IF NOT EXISTS session_messages (
    session_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, created_at, message_id)
)
"""


class SqliteSessionStore:
    def __init__(self, database: SqliteDatabase | str | Path, *, clock: Callable[[], datetime] = utc_now,
                 cipher: FieldCipher | None = None) -> None:
        self._db = open_database(database)
        self._clock = clock
        self._cipher = cipher  # a FieldCipher; None stores the context as given (tests of other concerns)

    def create(self, session: Session) -> None:
        self._db.ensure_schema(_SCHEMA)
        try:
            with self._db.write() as connection:
                connection.execute(
                    "INSERT INTO sessions (session_id, user_id, created_at, body) VALUES (?, ?, ?, ?)",
                    (session.session_id, session.user_id, timestamp_key(session.created_at),
                     json.dumps(seal_field(self._cipher, session.model_dump(mode="json"), _CONTEXT,
                                           session.session_id))),
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"session {session.session_id!r} already exists") from exc

    def get(self, session_id: str) -> Session:
        self._db.ensure_schema(_SCHEMA)
        row = self._db.query_one("SELECT body FROM sessions WHERE session_id = ?", (session_id,))
        session = Session.model_validate(
            open_field(self._cipher, json.loads(row[0]), _CONTEXT, session_id)) if row else None
        if session is None or self._expired(session):
            raise NotFound(f"session {quoted_id(session_id)} does not exist or has expired")
        return session

    def delete(self, session_id: str) -> None:
        self._db.ensure_schema(_SCHEMA)
        with self._db.write() as connection:
            connection.execute("DELETE FROM session_messages WHERE session_id = ?", (session_id,))
            connection.execute("DELETE FROM sessions WHERE session_id = ?", (session_id,))

    def add_message(self, message: Message) -> None:
        """Raises NotFound unless the session exists and has not expired."""
        self.get(message.session_id)
        try:
            with self._db.write() as connection:
                connection.execute(
                    "INSERT INTO session_messages (session_id, created_at, message_id, body)"
                    " VALUES (?, ?, ?, ?)",
                    (message.session_id, timestamp_key(message.created_at), message.message_id,
                     message.model_dump_json()),
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"message {message.message_id!r} is already stored") from exc

    def messages(self, session_id: str, *, limit: int = 20) -> list[Message]:
        check_limit(limit)
        self.get(session_id)
        rows = self._db.query(
            "SELECT body FROM session_messages WHERE session_id = ?"
            " ORDER BY created_at DESC, message_id DESC LIMIT ?",
            (session_id, limit),
        )
        return [Message.model_validate_json(body) for (body,) in reversed(rows)]

    def _expired(self, session: Session) -> bool:
        return session.expires_at is not None and as_utc(session.expires_at) <= as_utc(self._clock())
