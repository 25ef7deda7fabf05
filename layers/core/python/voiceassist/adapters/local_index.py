"""The embedded SearchIndex: SQLite FTS5 for BM25, exact cosine over an in-memory numpy matrix.

One SQLite file holds everything (chunk rows, their vectors as float32 BLOBs, the FTS5 table), so indexing
and activation are single transactions. Only searchable chunks are in the FTS5 table: activation moves a
document's rows in and out of it, so an unfiltered BM25 query needs no join (scoring is the cost that
matters: FTS5 computes bm25() for every matching row). The vector matrix is loaded lazily on the first
dense search and then kept current in place; a commit from another process (PRAGMA data_version) makes
it reload. Fusion is the same maths as OpenSearch's search pipeline (voiceassist.search); filters and the
searchable flag apply inside both sub-queries, before each takes its top `candidates`.

One lock serialises every operation (the SQLite connection and the matrix change together); inside a
hybrid search the cosine scoring runs on a helper thread beside the FTS5 query, since both release the GIL.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.errors import InvalidInput
from voiceassist.models import (
    Chunk,
    FusionMethod,
    SearchFilters,
    SearchHit,
    SearchMode,
    SearchQuery,
    SourceType,
)
from voiceassist.ports import Vectors
from voiceassist.search import cosine_to_score, fts5_match_expression, fuse_min_max, fuse_rrf, top_n

TITLE_WEIGHT = 0.5  # BM25 weight of the title column beside the text column (OpenSearch: "title^0.5")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id TEXT NOT NULL UNIQUE,
    doc_key TEXT NOT NULL,
    version INTEGER NOT NULL,
    searchable INTEGER NOT NULL DEFAULT 0,
    source_type TEXT NOT NULL,
    specialty TEXT,
    year INTEGER,
    chunk_json TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks (doc_key, version);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(
    text, title, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""
_SOURCE_TYPE_CODES = {source_type.value: code for code, source_type in enumerate(SourceType)}
_NO_YEAR = -1


class _VectorTable:
    """Every live chunk's unit vector and filter fields, row-aligned, in growable numpy buffers."""

    def __init__(self, dimension: int, capacity: int = 1024) -> None:
        self.size = 0
        self.rowids = np.zeros(capacity, dtype=np.int64)  # ascending: SQLite AUTOINCREMENT only grows
        self.matrix = np.zeros((capacity, dimension), dtype=np.float32)
        self.searchable = np.zeros(capacity, dtype=bool)
        self.source_type = np.zeros(capacity, dtype=np.int16)
        self.year = np.zeros(capacity, dtype=np.int32)
        self.doc_key = np.zeros(capacity, dtype=np.int32)
        self.specialty = np.zeros(capacity, dtype=np.int32)
        self.codes: dict[str | None, int] = {None: 0}  # doc_key and specialty strings -> small integers
        self.dead = 0  # rows deleted since loading, still occupying the buffers

    def code(self, value: str | None) -> int:
        return self.codes.setdefault(value, len(self.codes))

    def append(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Rows of (rowid, vector bytes, doc_key, searchable, source_type, specialty, year)."""
        needed = self.size + len(rows)
        if needed > len(self.rowids):
            self._grow(max(needed, 2 * len(self.rowids)))
        for offset, (rowid, vector, doc_key, searchable, source_type, specialty, year) in enumerate(rows):
            at = self.size + offset
            self.rowids[at] = rowid
            self.matrix[at] = np.frombuffer(vector, dtype=np.float32)
            self.searchable[at] = bool(searchable)
            self.source_type[at] = _SOURCE_TYPE_CODES[source_type]
            self.year[at] = _NO_YEAR if year is None else year
            self.doc_key[at] = self.code(doc_key)
            self.specialty[at] = self.code(specialty)
        self.size = needed

    def positions(self, rowids: Sequence[int]) -> np.ndarray:
        """Buffer positions of the given SQLite rowids (those not loaded are skipped)."""
        if self.size == 0 or not rowids:
            return np.empty(0, dtype=np.intp)
        live, wanted = self.rowids[: self.size], np.asarray(rowids, dtype=np.int64)
        found = np.clip(np.searchsorted(live, wanted), 0, self.size - 1)
        return found[live[found] == wanted]

    def remove(self, rowids: Sequence[int]) -> None:
        positions = self.positions(rowids)
        self.searchable[positions] = False  # dead rows stay in the buffers, never searchable, until a reload
        self.dead += len(positions)

    def set_searchable(self, rows: Sequence[tuple[int, int]]) -> None:
        """Rows of (rowid, searchable) as just committed."""
        flags = dict(rows)
        positions = self.positions(list(flags))
        self.searchable[positions] = [bool(flags[int(rowid)]) for rowid in self.rowids[positions]]

    def mask(self, filters: SearchFilters) -> np.ndarray:
        """Rows a search may return: searchable and passing every filter (the dense pre-filter)."""
        n = self.size
        keep = self.searchable[:n].copy()
        if filters.source_types:
            keep &= np.isin(self.source_type[:n], [_SOURCE_TYPE_CODES[s.value] for s in filters.source_types])
        if filters.specialties:
            codes = [self.codes[s.casefold()] for s in filters.specialties if s.casefold() in self.codes]
            keep &= np.isin(self.specialty[:n], codes)
        if filters.doc_keys:
            keep &= np.isin(self.doc_key[:n], [self.codes[k] for k in filters.doc_keys if k in self.codes])
        if filters.year_min is not None:
            keep &= self.year[:n] >= filters.year_min
        return keep

    def _grow(self, capacity: int) -> None:
        for name in ("rowids", "matrix", "searchable", "source_type", "year", "doc_key", "specialty"):
            old = getattr(self, name)
            new = np.zeros((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: self.size] = old[: self.size]
            setattr(self, name, new)


class LocalHybridIndex:
    """ports.SearchIndex on one SQLite file (or in memory when `path` is None)."""

    def __init__(self, path: Path | None = None, dimension: int = 384) -> None:
        self.dimension = dimension
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            ":memory:" if path is None else str(path), check_same_thread=False, isolation_level=None
        )
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.RLock()
        self._helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="local-index-cosine")
        self._vectors: _VectorTable | None = None
        self._data_version = -1

    def close(self) -> None:
        """Stop the helper thread and close the database; the index is unusable afterwards."""
        with self._lock:
            self._helper.shutdown(wait=True)
            self._db.close()

    # ------------------------------------------------------------------------------------------ writes

    def index(self, chunks: Sequence[Chunk], vectors: Vectors) -> None:
        """Add (or replace, by chunk_id) chunks; they stay hidden until their version is activated."""
        if not chunks:
            return
        matrix = self._unit_rows(vectors, expected_rows=len(chunks))
        rows = [
            (c.chunk_id, c.doc_key, c.version, c.metadata.source_type.value, _casefold(c.metadata.specialty),
             c.metadata.year, c.model_dump_json(), matrix[i].tobytes())
            for i, c in enumerate(chunks)
        ]
        with self._lock:
            with self._transaction() as db:
                replaced = self._delete_rows(db, "chunk_id IN (SELECT value FROM json_each(?))",
                                             (json.dumps([c.chunk_id for c in chunks]),))
                first = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM chunks").fetchone()[0]
                db.executemany(_INSERT_CHUNK, rows)
                added = db.execute(_VECTOR_ROWS + " WHERE rowid > ? ORDER BY rowid", (first,)).fetchall()
            if self._vectors is not None:
                self._vectors.remove(replaced)
                self._vectors.append(added)

    def activate(self, doc_key: str, version: int) -> None:
        with self._lock:
            with self._transaction() as db:
                db.execute("DELETE FROM chunk_fts WHERE rowid IN (SELECT rowid FROM chunks"
                           " WHERE doc_key = ? AND searchable = 1 AND version != ?)", (doc_key, version))
                db.execute(_INSERT_FTS + " WHERE doc_key = ? AND version = ? AND searchable = 0",
                           (doc_key, version))
                db.execute("UPDATE chunks SET searchable = (version = ?) WHERE doc_key = ?",
                           (version, doc_key))
                flags = db.execute("SELECT rowid, searchable FROM chunks WHERE doc_key = ?",
                                   (doc_key,)).fetchall()
            if self._vectors is not None:
                self._vectors.set_searchable(flags)

    def delete_document(self, doc_key: str, version: int | None = None) -> None:
        where, params = ("doc_key = ?", (doc_key,)) if version is None else (
            "doc_key = ? AND version = ?", (doc_key, version))
        with self._lock:
            with self._transaction() as db:
                removed = self._delete_rows(db, where, params)
            if self._vectors is not None:
                self._vectors.remove(removed)

    # ------------------------------------------------------------------------------------------ reads

    def count(self, doc_key: str | None = None, *, searchable_only: bool = True) -> int:
        clauses = ["doc_key = ?"] if doc_key is not None else []
        if searchable_only:
            clauses.append("searchable = 1")
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._lock:
            return int(self._db.execute(f"SELECT COUNT(*) FROM chunks{where}",
                                        () if doc_key is None else (doc_key,)).fetchone()[0])

    def search(self, query: SearchQuery) -> list[SearchHit]:
        vector = None if query.mode is SearchMode.BM25 else self._query_vector(query)
        depth = query.top_k if query.mode is not SearchMode.HYBRID else query.candidates
        with self._lock:
            dense_job = None
            if vector is not None:
                dense_job = self._helper.submit(_dense, self._loaded_vectors(), vector, query.filters, depth)
            bm25 = {} if query.mode is SearchMode.DENSE else self._bm25(query.text, query.filters, depth)
            dense = {} if dense_job is None else dense_job.result()
            if query.mode is SearchMode.BM25:
                ranked = top_n(bm25, query.top_k)
            elif query.mode is SearchMode.DENSE:
                ranked = top_n(dense, query.top_k)
            elif query.fusion is FusionMethod.RRF:
                rankings = [[key for key, _ in top_n(scores, depth)] for scores in (bm25, dense)]
                ranked = top_n(fuse_rrf(rankings, rank_constant=query.rrf_k), query.top_k)
            else:
                weights = [query.bm25_weight, 1.0 - query.bm25_weight]
                ranked = top_n(fuse_min_max([bm25, dense], weights), query.top_k)
            chunks = self._chunks([rowid for rowid, _ in ranked])
        return [SearchHit(chunk=chunks[rowid], score=score, bm25_score=bm25.get(rowid),
                          vector_score=dense.get(rowid)) for rowid, score in ranked]

    def _bm25(self, text: str, filters: SearchFilters, depth: int) -> dict[int, float]:
        expression = fts5_match_expression(text)
        if expression is None:
            return {}
        where, params = _filter_sql(filters)
        join = f" JOIN chunks AS c ON c.rowid = f.rowid AND {where}" if where else ""
        rows = self._db.execute(
            f"SELECT f.rowid, -bm25(chunk_fts, 1.0, {TITLE_WEIGHT}) AS score FROM chunk_fts AS f{join}"
            " WHERE chunk_fts MATCH ? ORDER BY score DESC, f.rowid LIMIT ?", (*params, expression, depth)
        ).fetchall()
        return {rowid: score for rowid, score in rows}

    def _chunks(self, rowids: list[int]) -> dict[int, Chunk]:
        rows = self._db.execute("SELECT rowid, chunk_json FROM chunks WHERE rowid IN (SELECT value FROM"
                                " json_each(?))", (json.dumps(rowids),)).fetchall()
        return {rowid: Chunk.model_validate_json(payload) for rowid, payload in rows}

    # ------------------------------------------------------------------------------------------ helpers

    def _query_vector(self, query: SearchQuery) -> np.ndarray:
        if query.vector is None:
            raise InvalidInput(f"a {query.mode.value} search needs query.vector: embed the query text first")
        return self._unit_rows(np.asarray([query.vector], dtype=np.float32), expected_rows=1)[0]

    def _unit_rows(self, vectors: Vectors, *, expected_rows: int) -> np.ndarray:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape != (expected_rows, self.dimension):
            raise InvalidInput(
                f"expected vectors of shape ({expected_rows}, {self.dimension}), got {matrix.shape}"
            )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if np.any(norms == 0) or not np.all(np.isfinite(norms)):
            raise InvalidInput("vectors must be finite and non-zero: their cosine similarity is undefined")
        return np.ascontiguousarray(matrix / norms)

    def _loaded_vectors(self) -> _VectorTable:
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        table = self._vectors
        if table is None or version != self._data_version or table.dead > max(1000, table.size // 4):
            table = _VectorTable(self.dimension)
            table.append(self._db.execute(_VECTOR_ROWS + " ORDER BY rowid").fetchall())
            self._vectors, self._data_version = table, version
        return table

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; callers update the matrix after commit."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    @staticmethod
    def _delete_rows(db: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> list[int]:
        """Delete matching chunks from both tables; returns their rowids."""
        rowids = [rowid for (rowid,) in db.execute(f"SELECT rowid FROM chunks WHERE {where}", params)]
        if rowids:
            marker = (json.dumps(rowids),)
            db.execute("DELETE FROM chunk_fts WHERE rowid IN (SELECT value FROM json_each(?))", marker)
            db.execute("DELETE FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))", marker)
        return rowids


_VECTOR_ROWS = "SELECT rowid, vector, doc_key, searchable, source_type, specialty, year FROM chunks"
_INSERT_CHUNK = (
    "INSERT INTO chunks (chunk_id, doc_key, version, source_type, specialty, year, chunk_json, vector)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_FTS = (
    "INSERT INTO chunk_fts (rowid, text, title)"
    " SELECT rowid, json_extract(chunk_json, '$.text'), json_extract(chunk_json, '$.metadata.title')"
    " FROM chunks"
)


def _dense(table: _VectorTable, vector: np.ndarray, filters: SearchFilters, depth: int) -> dict[int, float]:
    """Exact cosine over the searchable rows passing the filters; the `depth` best, as OpenSearch scores."""
    allowed = np.flatnonzero(table.mask(filters))
    if allowed.size == 0:
        return {}
    # When most rows are allowed, scoring all of them and then selecting is cheaper than gathering the
    # allowed rows first: the gather copies the matrix, the matrix-vector product only reads it.
    if allowed.size > table.size // 4:
        scores = (table.matrix[: table.size] @ vector)[allowed]
    else:
        scores = table.matrix[allowed] @ vector
    best = np.argpartition(-scores, depth - 1)[:depth] if scores.size > depth else np.arange(scores.size)
    return {int(table.rowids[allowed[i]]): cosine_to_score(float(scores[i])) for i in best}


def _filter_sql(filters: SearchFilters) -> tuple[str, list[Any]]:
    """The BM25 pre-filter (searchability is FTS5 membership): _VectorTable.mask's conditions, as SQL."""
    clauses: list[str] = []
    params: list[Any] = []
    for column, values in (("c.source_type", [s.value for s in filters.source_types]),
                           ("c.specialty", [s.casefold() for s in filters.specialties]),
                           ("c.doc_key", list(filters.doc_keys))):
        if values:
            clauses.append(f"{column} IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(values))
    if filters.year_min is not None:
        clauses.append("c.year >= ?")
        params.append(filters.year_min)
    return " AND ".join(clauses), params


def _casefold(value: str | None) -> str | None:
    return None if value is None else value.casefold()
