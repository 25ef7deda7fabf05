"""DocumentStore on the shared SQLite file: one row per document version, the model as JSON."""

from __future__ import annotations

import builtins
from pathlib import Path

from voiceassist.adapters.aws.dynamodb_tables import check_limit, timestamp_key
from voiceassist.adapters.local.sqlite_db import SqliteDatabase, open_database
from voiceassist.errors import Conflict, NotFound, quoted_id
from voiceassist.models import DocumentStatus, KnowledgeDocument

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    doc_key TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_by_doc_key ON documents (doc_key, version);
CREATE INDEX IF NOT EXISTS documents_by_status ON documents (status, updated_at)
"""


class SqliteDocumentStore:
    def __init__(self, database: SqliteDatabase | str | Path) -> None:
        self._db = open_database(database)

    def put(self, document: KnowledgeDocument, *, expected_status: DocumentStatus | None = None) -> None:
        self._db.ensure_schema(_SCHEMA)
        with self._db.write() as connection:
            if expected_status is not None:
                stored = connection.execute("SELECT status FROM documents WHERE doc_id = ?",
                                            (document.doc_id,)).fetchone()
                if stored is None or stored[0] != expected_status.value:
                    raise Conflict(f"document {document.doc_id!r} is {stored[0] if stored else 'gone'}, not "
                                   f"{expected_status.value}: another writer changed it")
            connection.execute(
                "INSERT OR REPLACE INTO documents (doc_id, doc_key, version, status, updated_at, body)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    document.doc_id,
                    document.doc_key,
                    document.version,
                    document.status.value,
                    timestamp_key(document.updated_at),
                    document.model_dump_json(),
                ),
            )

    def get(self, doc_id: str) -> KnowledgeDocument:
        rows = self._select("WHERE doc_id = ?", (doc_id,))
        if not rows:
            raise NotFound(f"document {quoted_id(doc_id)} does not exist")
        return rows[0]

    def versions(self, doc_key: str) -> builtins.list[KnowledgeDocument]:
        return self._select("WHERE doc_key = ? ORDER BY version ASC", (doc_key,))

    def list(self, *, status: DocumentStatus | None = None, limit: int = 100
             ) -> builtins.list[KnowledgeDocument]:
        check_limit(limit)
        where, parameters = ("WHERE status = ?", (status.value,)) if status else ("", ())
        return self._select(f"{where} ORDER BY updated_at DESC, doc_id DESC LIMIT ?", (*parameters, limit))

    def delete(self, doc_id: str) -> None:
        self._db.ensure_schema(_SCHEMA)
        with self._db.write() as connection:
            connection.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def _select(self, clause: str, parameters: tuple[object, ...]) -> builtins.list[KnowledgeDocument]:
        self._db.ensure_schema(_SCHEMA)
        rows = self._db.query(f"SELECT body FROM documents {clause}", parameters)
        return [KnowledgeDocument.model_validate_json(body) for (body,) in rows]
