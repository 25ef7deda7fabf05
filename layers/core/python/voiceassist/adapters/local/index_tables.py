"""The embedded SearchIndex's SQLite tables (adapters/local/hybrid_index.py): the schema, opening the file,
the embedding model it records, and the row writes and SQL that indexing, deletion and search share.

Every function here takes the connection it works on; the index holds the lock and the transaction.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.adapters.local.bm25 import DecodedPostings, weigh_postings
from voiceassist.adapters.local.fts5_tokens import CountedTerms, Fts5Tokenizer
from voiceassist.adapters.local.rows import LOADED_ROW_COLUMNS
from voiceassist.constants.models import MODEL_ID
from voiceassist.errors import InvalidInput
from voiceassist.models import Chunk
from voiceassist.ports import Vectors
from voiceassist.query.search import opening_cosine

SCHEMA = """
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id TEXT NOT NULL UNIQUE,
    doc_key TEXT NOT NULL,
    version INTEGER NOT NULL,
    searchable INTEGER NOT NULL DEFAULT 0,
    source_type TEXT NOT NULL,
    specialty TEXT,
    year INTEGER
);
-- A chunk's payload, apart from its row above: activating a batch rewrites only the small rows (a flag
-- beside a ~3.5 KB payload dirtied a page per chunk: 50,000 activations 1.19 -> 0.14 CPU s). The vector
-- comes first, so loading the vectors never reads the JSON's overflow pages.
CREATE TABLE IF NOT EXISTS chunk_bodies (chunk_rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL,
                                         chunk_json TEXT NOT NULL);
-- Covers the catch-up's scan of every row's flag (SELECT rowid, searchable) as well as per-document lookups.
CREATE INDEX IF NOT EXISTS chunks_by_document_and_flag ON chunks (doc_key, version, searchable);
CREATE TABLE IF NOT EXISTS terms (term_id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS chunk_terms (chunk_rowid INTEGER PRIMARY KEY, postings BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Each document version's opening vector (ingest/stages.opening_text; unit float32), stored once per version,
-- read only for a search's hits (the question's cosine with it: SearchHit.opening_cosine). A version indexed
-- before openings were computed has no row.
CREATE TABLE IF NOT EXISTS document_openings (doc_key TEXT NOT NULL, version INTEGER NOT NULL,
                                              vector BLOB NOT NULL, PRIMARY KEY (doc_key, version));
-- Superseded versions: their chunks stay (for audit), flagged here, and activation never shows them.
CREATE TABLE IF NOT EXISTS superseded_versions (doc_key TEXT NOT NULL, version INTEGER NOT NULL,
                                                PRIMARY KEY (doc_key, version));
"""
NOT_SUPERSEDED = ("NOT EXISTS (SELECT 1 FROM superseded_versions AS s"
                  " WHERE s.doc_key = chunks.doc_key AND s.version = chunks.version)")
PAGE_SIZE = 16384  # for a new index file; an existing one keeps its own
# Indexes built before the embedding model was recorded hold the published fp32 model's vectors.
_UNRECORDED_MODEL_ID = MODEL_ID

LOAD_ROWS = (f"SELECT {LOADED_ROW_COLUMNS} FROM chunks AS c JOIN chunk_terms AS t ON t.chunk_rowid = c.rowid"
             " JOIN chunk_bodies AS b ON b.chunk_rowid = c.rowid")
INSERT_CHUNK = "INSERT INTO chunks (chunk_id, doc_key, version, source_type, specialty, year) VALUES (?, ?, ?, ?, ?, ?)"
INSERT_BODY = "INSERT INTO chunk_bodies (chunk_rowid, vector, chunk_json) VALUES (?, ?, ?)"
# The chunks of the given rowids (?1, a JSON array) that exist: (rowid, chunk JSON), the JSON NULL for a rowid in
# ?2 (a JSON array: chunks the caller parsed before, adapters/local/parsed_chunks.py), whose payload is not read.
CHUNKS_BY_ROWID = ("SELECT c.rowid, CASE WHEN c.rowid IN (SELECT value FROM json_each(?2)) THEN NULL"
                   " ELSE (SELECT b.chunk_json FROM chunk_bodies AS b WHERE b.chunk_rowid = c.rowid) END"
                   " FROM chunks AS c WHERE c.rowid IN (SELECT value FROM json_each(?1))")
INSERT_OPENING = "INSERT OR REPLACE INTO document_openings (doc_key, version, vector) VALUES (?, ?, ?)"
# The opening vectors of the given [doc_key, version] pairs (a JSON array): (doc_key, version, vector).
OPENINGS_OF = ("SELECT o.doc_key, o.version, o.vector FROM json_each(?) AS j JOIN document_openings AS o"
               " ON o.doc_key = j.value ->> 0 AND o.version = j.value ->> 1")
# Activation of a batch ([[doc_key, version], ...] as JSON, one version per doc_key): every chunk of those
# documents gets its flag in one statement.
ACTIVATE = (
    f"UPDATE chunks SET searchable = (chunks.version = a.version AND {NOT_SUPERSEDED})"
    " FROM (SELECT value ->> 0 AS doc_key, value ->> 1 AS version FROM json_each(?)) AS a"
    " WHERE chunks.doc_key = a.doc_key RETURNING chunks.rowid, chunks.searchable"
)


def open_database(path: Path | None) -> sqlite3.Connection:
    """The index file (in memory when `path` is None), its tables created; autocommit, WAL."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(":memory:" if path is None else str(path), check_same_thread=False, isolation_level=None)
    if db.execute("PRAGMA page_count").fetchone()[0] == 0:
        # A new file (the size cannot change once it has pages, nor in WAL mode): a chunk's payload (~3.5 KB)
        # took a 4 KB page of its own; 16 KB pages hold four. The 50,000-chunk bench build's statements on
        # the file 1.97 -> 1.62 CPU s, the file 284 -> 245 MB (docs/decisions/0032, session 14).
        db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.executescript(SCHEMA)
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_fts'").fetchone() is not None:
        # An index file from before the postings were the only inverted index (docs/decisions/0032): its
        # FTS5 table repeated every chunk's tokens and text; the postings and the chunk rows hold all of it.
        db.execute("DROP TABLE chunk_fts")
    _move_payloads_out(db)
    return db


def _move_payloads_out(db: sqlite3.Connection) -> None:
    """An index file from before chunk_bodies kept each chunk's JSON and vector in its `chunks` row: moved
    to chunk_bodies, in one transaction (a concurrent opener finds the move done once it has the lock)."""
    def old_layout() -> bool:
        return any(column[1] == "chunk_json" for column in db.execute("PRAGMA table_info(chunks)"))

    if not old_layout():
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        if old_layout():
            db.execute("INSERT OR REPLACE INTO chunk_bodies (chunk_rowid, vector, chunk_json)"
                       " SELECT rowid, vector, chunk_json FROM chunks")
            db.execute("ALTER TABLE chunks DROP COLUMN chunk_json")
            db.execute("ALTER TABLE chunks DROP COLUMN vector")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# Readers map the file into memory (up to this size; the rest, and the WAL's pages, are read as before): a
# search's 100 chunk payloads are read from the OS page cache in place rather than copied page by page by a
# read call each. The 50,000-chunk bench file's fetch of 100 chunks, 0.50 -> 0.25 CPU ms p50 (docs/decisions/0032,
# session 15). Only readers map it: the writer keeps writing through write calls, so no stray pointer write can
# reach the file. The mapping is virtual memory; touched pages are the page cache's, shared and reclaimable.
READER_MMAP_BYTES = 1 << 30


class ReaderConnections:
    """Read-only connections to the index file, one per search under way (WAL lets them read while a writer
    writes), kept for the next searches: a connection per thread would pile up under a server that starts a
    thread per request. Without a file (an in-memory index) every search reads through the index's own."""

    KEEP_IDLE = 8

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    @contextmanager
    def connection(self, shared: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        if self._path is None:
            yield shared
            return
        with self._lock:
            db = self._idle.pop() if self._idle else None
        if db is None:
            db = sqlite3.connect(str(self._path), check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA query_only = 1")
            db.execute(f"PRAGMA mmap_size = {READER_MMAP_BYTES}")
        try:
            yield db
        finally:
            with self._lock:
                kept = len(self._idle) < self.KEEP_IDLE
                if kept:
                    self._idle.append(db)
            if not kept:
                db.close()

    def close(self) -> None:
        with self._lock:
            for db in self._idle:
                db.close()
            self._idle.clear()


def check_model(db: sqlite3.Connection, model_id: str, path: Path | None) -> None:
    """Record `model_id` on first use; refuse an index built with another model's vectors."""
    stored = db.execute("SELECT value FROM index_meta WHERE key = 'embedding_model'").fetchone()
    if stored is None:
        has_chunks = db.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None
        recorded = _UNRECORDED_MODEL_ID if has_chunks else model_id
        db.execute("INSERT INTO index_meta VALUES ('embedding_model', ?)", (recorded,))
        stored = (recorded,)
    if stored[0] != model_id:
        raise InvalidInput(
            f"invalid configuration: the index {path} holds vectors of {stored[0]}, but the embedder is "
            f"{model_id}; set VOICEASSIST_EMBEDDING_PRECISION to match the index, or ingest the documents "
            "again into an empty data folder (VOICEASSIST_DATA_DIR: the document records go too, or an "
            "unchanged document is not indexed again)")


_KNOWN_TERMS_LIMIT = 1_000_000  # ~100 MB of Python strings at most; a 50,000-chunk corpus has ~150,000 terms


def store_postings(db: sqlite3.Connection, rowids: Sequence[int], counted: CountedTerms,
                   known: dict[str, int]) -> np.ndarray:
    """Each row's BM25 postings, its new terms numbered in `terms`; returns each token's term id.

    `known` caches term ids (term -> id; a term's id never changes, as terms are never deleted): only the
    batch's tokens missing from it are looked up, and it learns them. The caller empties it when the
    transaction rolls back (the ids given inside it are undone). A 50,000-chunk build's lookups 1.4 -> 0.3 CPU s.
    """
    if len(known) > _KNOWN_TERMS_LIMIT:
        known.clear()
    missing = json.dumps([token for token in counted.tokens if token not in known])
    db.execute("INSERT OR IGNORE INTO terms (term) SELECT value FROM json_each(?)", (missing,))
    known.update(db.execute("SELECT t.term, t.term_id FROM json_each(?) AS j JOIN terms AS t ON t.term = j.value",
                            (missing,)).fetchall())
    term_ids = np.fromiter(map(known.__getitem__, counted.tokens), dtype=np.int64, count=len(counted.tokens))
    db.executemany("INSERT INTO chunk_terms (chunk_rowid, postings) VALUES (?, ?)",
                   zip(rowids, counted.postings(term_ids, len(rowids)), strict=True))
    return term_ids


@dataclass(frozen=True)
class WrittenRows:
    """What insert_chunks stored, in the columns of LOAD_ROWS (rows.LOADED_ROW_COLUMNS), so the index's
    in-memory copy takes the rows from here rather than reading them back. Every row is stored not
    searchable (activation sets the flag)."""

    rowids: list[int]
    matrix: np.ndarray  # the unit vectors, as stored
    doc_keys: list[str]
    source_types: list[str]
    specialties: list[str | None]  # casefolded, as stored
    years: list[int | None]
    postings: DecodedPostings  # as the stored postings decode


def insert_chunks(db: sqlite3.Connection, chunks: Sequence[Chunk], matrix: np.ndarray, counted: CountedTerms,
                  known: dict[str, int]) -> WrittenRows:
    """Write the chunks' rows (unit vectors `matrix`) and postings (AUTOINCREMENT: the batch's rows, in its
    order, are the rows above the largest rowid before them)."""
    first = int(db.execute("SELECT COALESCE(MAX(rowid), 0) FROM chunks").fetchone()[0])
    columns = [(c.chunk_id, c.doc_key, c.version, c.metadata.source_type.value, casefold(c.metadata.specialty),
                c.metadata.year) for c in chunks]
    db.executemany(INSERT_CHUNK, columns)
    rowids = [rowid for (rowid,) in db.execute("SELECT rowid FROM chunks WHERE rowid > ? ORDER BY rowid", (first,))]
    db.executemany(INSERT_BODY, [(rowid, matrix[i].tobytes(), c.model_dump_json())
                                 for i, (rowid, c) in enumerate(zip(rowids, chunks, strict=True))])
    term_ids = store_postings(db, rowids, counted, known)
    postings = weigh_postings(counted.rows, term_ids[counted.terms], counted.text, counted.title, len(rowids))
    return WrittenRows(rowids, matrix, [row[1] for row in columns], [row[3] for row in columns],
                       [row[4] for row in columns], [row[5] for row in columns], postings)


def postings_missing(db: sqlite3.Connection) -> bool:
    chunk_count, postings_count = db.execute(
        "SELECT (SELECT COUNT(*) FROM chunks), (SELECT COUNT(*) FROM chunk_terms)").fetchone()
    return bool(chunk_count != postings_count)


def add_missing_postings(db: sqlite3.Connection, tokenizer: Fts5Tokenizer, known: dict[str, int]) -> None:
    """Postings for the chunks stored without them (an index file from before postings were kept)."""
    missing = db.execute("SELECT chunk_rowid, json_extract(chunk_json, '$.text'),"
                         " json_extract(chunk_json, '$.metadata.title') FROM chunk_bodies WHERE chunk_rowid NOT IN"
                         " (SELECT chunk_rowid FROM chunk_terms)").fetchall()
    for start in range(0, len(missing), 256):
        batch = missing[start : start + 256]
        term_counts = tokenizer.count_terms([(text, title) for _, text, title in batch])
        store_postings(db, [rowid for rowid, _, _ in batch], term_counts, known)


def unit_rows(vectors: Vectors, *, expected_rows: int, dimension: int) -> np.ndarray:
    """`vectors` as unit float32 rows, refused unless (expected_rows, dimension), finite and non-zero."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape != (expected_rows, dimension):
        raise InvalidInput(f"expected vectors of shape ({expected_rows}, {dimension}), got {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise InvalidInput("vectors must be finite and non-zero: their cosine similarity is undefined")
    return np.ascontiguousarray(matrix / norms)


def delete_rows(db: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> list[int]:
    """Delete matching chunks from every table; returns their rowids."""
    rowids = [rowid for (rowid,) in db.execute(f"SELECT rowid FROM chunks WHERE {where}", params)]
    if rowids:
        marker = (json.dumps(rowids),)
        db.execute("DELETE FROM chunk_terms WHERE chunk_rowid IN (SELECT value FROM json_each(?))", marker)
        db.execute("DELETE FROM chunk_bodies WHERE chunk_rowid IN (SELECT value FROM json_each(?))", marker)
        db.execute("DELETE FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))", marker)
    return rowids


def one_version(chunks: Sequence[Chunk]) -> tuple[str, int]:
    """The one document version of chunks given with an opening vector; refused if they are of several."""
    versions = {(c.doc_key, c.version) for c in chunks}
    if len(versions) != 1:
        raise InvalidInput(f"an opening vector is one document version's; these chunks are of {len(versions)}")
    return next(iter(versions))


def delete_openings(db: sqlite3.Connection, doc_key: str, version: int | None) -> None:
    """A document's opening vectors (of one version, or all)."""
    if version is None:
        db.execute("DELETE FROM document_openings WHERE doc_key = ?", (doc_key,))
    else:
        db.execute("DELETE FROM document_openings WHERE doc_key = ? AND version = ?", (doc_key, version))


def opening_cosines(db: sqlite3.Connection, chunks: Sequence[Chunk], vector: np.ndarray) -> list[float | None]:
    """Each chunk's document opening's cosine with the query's `vector` (None: no opening stored for its
    version), as query.search.opening_cosine computes it for OpenSearch's hits too."""
    versions = sorted({(c.doc_key, c.version) for c in chunks})
    cosines = {(doc_key, version): opening_cosine(np.frombuffer(blob, dtype=np.float32), vector)
               for doc_key, version, blob in db.execute(OPENINGS_OF, (json.dumps(versions),))}
    return [cosines.get((c.doc_key, c.version)) for c in chunks]


def store_opening(db: sqlite3.Connection, chunks: Sequence[Chunk], opening: np.ndarray) -> None:
    """The opening vector (unit float32) of the one document version the chunks belong to (one_version)."""
    doc_key, version = one_version(chunks)
    db.execute(INSERT_OPENING, (doc_key, version, np.ascontiguousarray(opening, dtype=np.float32).tobytes()))


def casefold(value: str | None) -> str | None:
    return None if value is None else value.casefold()
