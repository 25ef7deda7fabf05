"""The embedded SearchIndex: one SQLite file, FTS5's BM25 and exact cosine, computed in memory.

SQLite is the store and the source of truth (its tables: adapters/local/index_tables.py): chunk rows (filter
columns and the searchable flag), each chunk's payload apart (unit vector as a float32 BLOB, JSON) and each
row's BM25 postings (its FTS5 tokens and their counts
per column, from FTS5's own tokenizer, run once when the chunk is indexed: adapters/local/fts5_tokens.py).
The postings are the only inverted index; there is no FTS5 table of the chunks (docs/decisions/0032).
Indexing, activation and deletion are each one transaction, so activation is atomic. Concurrent index() and
activate() calls (bulk ingestion's executions) are written together, one transaction per group
(adapters/local/group_commit.py; within gathering_writes, bulk ingestion's, they wait a moment for each
other); activate_many activates a batch in one UPDATE. A batch's rows are written by rowid (AUTOINCREMENT
numbers them in order above the largest before).

Searches run on an in-memory copy of the rows (adapters/local/rows.py), loaded on the first search (an
index written from empty by this object keeps it from its writes instead: nothing to read back): cosine
is one matrix-vector product, BM25 is FTS5's bm25() computed from the postings (adapters/local/bm25.py),
equal to what FTS5 returns but at a cost that grows with the query terms' postings, not with every match
scored. A query word FTS5 would split into several tokens is matched as FTS5 matches a phrase
(adapters/local/phrases.py). The copy follows this object's own writes in place; at each search `PRAGMA
data_version` tells whether another connection (the CLI ingesting while the local server serves) committed,
and the copy then takes the new rows and every row's searchable flag. Fusion is voiceassist.query.search, the
same maths as OpenSearch's search pipeline; filters apply inside both sub-queries, before each takes its top
`candidates`.

Searches share a read lock and each reads through a read-only connection of its own (pooled: WAL readers),
so they run side by side (numpy's products release the GIL); writes take the write lock
(adapters/local/read_write_lock.py). 8 clients on 5,000 chunks, same run, load 27-33 on 2 cores: hybrid
12-18 -> 37-87 q/s, BM25 22-26 -> 103-183 q/s (docs/benchmarks.md, "Peers"). A search scores cosine and BM25
one after the other on the caller's thread: a helper thread per search saved at most the BM25 part's time
idle, and cost a core hand-off under load.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from voiceassist.adapters.local import index_tables as tables
from voiceassist.adapters.local.fts5_tokens import Fts5Tokenizer
from voiceassist.adapters.local.group_commit import GroupCommit
from voiceassist.adapters.local.parsed_chunks import ParsedChunks
from voiceassist.adapters.local.phrases import query_phrases
from voiceassist.adapters.local.read_write_lock import ReadWriteLock
from voiceassist.adapters.local.rows import LoadedRows
from voiceassist.errors import InvalidInput, NotFound, quoted_id
from voiceassist.models import Chunk, FusionMethod, SearchHit, SearchMode, SearchQuery
from voiceassist.ports import Vectors
from voiceassist.query.search import fuse_min_max, fuse_rrf, query_terms, top_n

_RELOAD_AFTER_DEAD_ROWS = 1000  # and a quarter of the rows: deleted rows cost memory and scan time


class LocalHybridIndex:
    """ports.SearchIndex on one SQLite file (or in memory when `path` is None)."""

    def __init__(self, path: Path | None = None, dimension: int = 384, *, model_id: str | None = None) -> None:
        """`model_id` is the embedder's: recorded on first use, and an index built with another model's
        vectors is refused (cosine between two models' vectors means nothing)."""
        self.dimension = dimension
        self._db = tables.open_database(path)
        self._lock = ReadWriteLock()
        # Searches read side by side, each through a pooled connection; an in-memory database has one
        # connection, so there they take turns (a write lock).
        self._readers = tables.ReaderConnections(path)
        self._read = self._lock.read if path is not None else self._lock.write
        self._tokenizer = Fts5Tokenizer()
        self._rows: LoadedRows | None = None
        self._parsed = ParsedChunks()  # the searches' chunks, parsed once (parsed_chunks.py)
        self._known_terms: dict[str, int] = {}  # term -> term_id, as committed (tables.store_postings)
        self._indexing: GroupCommit[tuple[list[Chunk], np.ndarray, np.ndarray | None]] = GroupCommit(
            self._write_chunks, max_items=64)
        self._activating: GroupCommit[tuple[str, int]] = GroupCommit(self.activate_many, max_items=1000)
        if model_id is not None:
            tables.check_model(self._db, model_id, path)
        self._add_missing_postings()

    def close(self) -> None:
        """Close the database; the index is unusable afterwards."""
        with self._lock.write():
            self._tokenizer.close()
            self._readers.close()
            self._db.close()

    # ------------------------------------------------------------------------------------------ writes

    def index(self, chunks: Sequence[Chunk], vectors: Vectors, opening: Vectors | None = None) -> None:
        """Add (or replace, by chunk_id) chunks; they stay hidden until their version is activated. `opening`:
        their document version's opening vector (one row), kept once per version (index_tables).

        Concurrent calls are written together (adapters/local/group_commit.py): one transaction for all."""
        if not chunks:
            return
        unit_opening = None
        if opening is not None:  # checked here: a refused call must not fail the others written with it
            tables.one_version(chunks)
            unit_opening = self._unit_rows(np.asarray(opening, dtype=np.float32).reshape(1, -1), expected_rows=1)[0]
        self._indexing.submit((list(chunks), self._unit_rows(vectors, expected_rows=len(chunks)), unit_opening))

    @contextmanager
    def gathering_writes(self, writers: Callable[[], int], *, settle: float = 2.0, limit: float = 10.0
                         ) -> Iterator[None]:
        """Bulk ingestion: within the block, index() and activate() calls wait to be written with others, one
        transaction per group (group_commit.gathered): until every one of the `writers()` callers that may
        still call (the executions under way) waits in either, none came for `settle` seconds, or `limit`."""
        def everyone() -> bool:
            return self._indexing.queued + self._activating.queued >= writers()

        with self._indexing.gathered(settle=settle, limit=limit, everyone=everyone), \
                self._activating.gathered(settle=settle, limit=limit, everyone=everyone):
            yield

    def activate(self, doc_key: str, version: int) -> None:
        """Make `version` the doc_key's searchable one (unless superseded); concurrent calls share a transaction."""
        self._activating.submit((doc_key, version))

    def activate_many(self, versions: Sequence[tuple[str, int]]) -> None:
        """activate() for every (doc_key, version), in one transaction and one UPDATE: every document of the
        batch becomes searchable at the same commit, or none does. A doc_key given twice gets its last version,
        as two activations in a row would leave it."""
        if not versions:
            return
        latest = dict(versions)
        with self._lock.write():
            with self._transaction() as db:
                flags = db.execute(tables.ACTIVATE, (json.dumps(list(latest.items())),)).fetchall()
            if self._rows is not None:
                self._rows.set_searchable(flags)

    def _write_chunks(self, batches: Sequence[tuple[list[Chunk], np.ndarray, np.ndarray | None]]) -> None:
        """index() of every batch in one transaction; a chunk_id given twice keeps its last chunk."""
        chunks = [c for batch, _, _ in batches for c in batch]
        matrix = np.concatenate([m for _, m, _ in batches]) if len(batches) > 1 else batches[0][1]
        last = {c.chunk_id: position for position, c in enumerate(chunks)}
        if len(last) < len(chunks):
            chunks, matrix = [chunks[p] for p in last.values()], matrix[list(last.values())]
        term_counts = self._tokenizer.count_terms([(c.text, c.metadata.title) for c in chunks])
        with self._lock.write():
            with self._transaction() as db:
                # An index empty until this write starts its copy from the writes: the first search then
                # has nothing to read back (50,000 chunks: ~1.2 CPU s of its load).
                copy_from_empty = None if self._rows is not None or db.execute(
                    "SELECT 1 FROM chunks LIMIT 1").fetchone() is not None else LoadedRows(self.dimension)
                if copy_from_empty is not None:
                    copy_from_empty.data_version = db.execute("PRAGMA data_version").fetchone()[0]
                replaced = tables.delete_rows(db, "chunk_id IN (SELECT value FROM json_each(?))",
                                             (json.dumps(list(last)),))
                written = tables.insert_chunks(db, chunks, matrix, term_counts, self._known_terms)
                for batch, _, opening in batches:
                    if opening is not None:
                        tables.store_opening(db, batch, opening)
            # After the commit (a rolled-back write leaves the copy as it was, or none): the rows as written,
            # not searchable yet; their postings are merged at the next search (LoadedRows.settle).
            if self._rows is None:
                self._rows = copy_from_empty
            self._parsed.forget(replaced)
            if self._rows is not None:
                self._rows.remove(replaced)
                self._rows.append_columns(written.rowids, written.matrix, written.doc_keys,
                                          np.zeros(len(written.rowids), dtype=bool), written.source_types,
                                          written.specialties, written.years, written.postings, settle=False)

    def retire(self, doc_key: str, version: int) -> None:
        with self._lock.write():
            with self._transaction() as db:
                db.execute("INSERT OR IGNORE INTO superseded_versions (doc_key, version) VALUES (?, ?)",
                           (doc_key, version))
                db.execute("UPDATE chunks SET searchable = 0 WHERE doc_key = ? AND version = ?", (doc_key, version))
                flags = db.execute("SELECT rowid, searchable FROM chunks WHERE doc_key = ?",
                                   (doc_key,)).fetchall()
            if self._rows is not None:
                self._rows.set_searchable(flags)

    def superseded_count(self, doc_key: str) -> int:
        """The chunks kept, flagged superseded, for audit."""
        with self._reading() as db:
            return int(db.execute(
                f"SELECT COUNT(*) FROM chunks WHERE doc_key = ? AND NOT {tables.NOT_SUPERSEDED}", (doc_key,)
            ).fetchone()[0])

    def delete_document(self, doc_key: str, version: int | None = None) -> None:
        where, params = ("doc_key = ?", (doc_key,)) if version is None else (
            "doc_key = ? AND version = ?", (doc_key, version))
        with self._lock.write():
            # Nothing to delete (the Index step's guard before a first indexing): no write transaction.
            if not self._db.execute(f"SELECT EXISTS (SELECT 1 FROM chunks WHERE {where}) OR EXISTS"
                                    f" (SELECT 1 FROM superseded_versions WHERE {where})", params * 2).fetchone()[0]:
                return
            with self._transaction() as db:
                removed = tables.delete_rows(db, where, params)
                tables.delete_openings(db, doc_key, version)
                db.execute(f"DELETE FROM superseded_versions WHERE {where}", params)
            if self._rows is not None:
                self._rows.remove(removed)
            self._parsed.forget(removed)

    # ------------------------------------------------------------------------------------------ reads

    def count(self, doc_key: str | None = None, *, searchable_only: bool = True) -> int:
        clauses = ["doc_key = ?"] if doc_key is not None else []
        if searchable_only:
            clauses.append("searchable = 1")
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._reading() as db:
            return int(db.execute(f"SELECT COUNT(*) FROM chunks{where}",
                                  () if doc_key is None else (doc_key,)).fetchone()[0])

    def chunk(self, chunk_id: str) -> Chunk:
        with self._reading() as db:
            row = db.execute("SELECT b.chunk_json FROM chunks AS c JOIN chunk_bodies AS b ON b.chunk_rowid = c.rowid"
                             " WHERE c.chunk_id = ?", (chunk_id,)).fetchone()
        if row is None:
            raise NotFound(f"chunk {quoted_id(chunk_id)} is not in the index")
        return Chunk.model_validate_json(row[0])

    def search(self, query: SearchQuery) -> list[SearchHit]:
        vector = None if query.mode is SearchMode.BM25 else self._query_vector(query)
        depth = query.top_k if query.mode is not SearchMode.HYBRID else query.candidates
        words = [] if query.mode is SearchMode.DENSE else self._tokenizer.word_tokens(query_terms(query.text))
        rows = self._catch_up()
        with self._reading() as db:
            rows = self._rows or rows  # as writes since the catch-up left it
            with self._snapshot(db):
                bm25 = {} if query.mode is SearchMode.DENSE else rows.bm25(
                    query_phrases(db, rows, self._tokenizer, words), query.filters, depth)
                dense = {} if vector is None else rows.dense(vector, query.filters, depth)
                # Equal scores by document, not by rowid (insertion order): adapters/local/rows.py
                ties = rows.rowid_tie_keys
                if query.mode is SearchMode.BM25:
                    ranked = top_n(bm25, query.top_k, ties)
                elif query.mode is SearchMode.DENSE:
                    ranked = top_n(dense, query.top_k, ties)
                elif query.fusion is FusionMethod.RRF:
                    rankings = [[key for key, _ in top_n(scores, depth, ties)] for scores in (bm25, dense)]
                    ranked = top_n(fuse_rrf(rankings, rank_constant=query.rrf_k), query.top_k, ties)
                else:
                    weights = [query.bm25_weight, 1.0 - query.bm25_weight]
                    ranked = top_n(fuse_min_max([bm25, dense], weights), query.top_k, ties)
                chunks = self._chunks(db, [rowid for rowid, _ in ranked])
                hits = [(rowid, score, chunks[rowid]) for rowid, score in ranked if rowid in chunks]
                openings: list[float | None] = [None] * len(hits) if vector is None else tables.opening_cosines(
                    db, [chunk for _, _, chunk in hits], vector)
        # A chunk another process deleted after the copy caught up is gone from the snapshot: not a hit. A
        # validated Chunk is taken as it is (pydantic's revalidate_instances="never"), so building a hit checks
        # its floats only, in pydantic-core: 100 hits 0.22 CPU ms against model_construct's Python loop 0.30.
        return [SearchHit(chunk=chunk, score=score, bm25_score=bm25.get(rowid), vector_score=dense.get(rowid),
                          opening_cosine=cosine) for (rowid, score, chunk), cosine in zip(hits, openings, strict=True)]

    def _chunks(self, db: sqlite3.Connection, rowids: list[int]) -> dict[int, Chunk]:
        """The chunks of those rowids that exist in the snapshot: the ones parsed before as they were (a rowid's
        payload never changes), the others parsed from their stored JSON and kept."""
        kept = self._parsed.known(rowids)
        rows = db.execute(tables.CHUNKS_BY_ROWID, (json.dumps(rowids), json.dumps(list(kept)))).fetchall()
        parsed = {rowid: Chunk.model_validate_json(payload) for rowid, payload in rows if payload is not None}
        self._parsed.keep(parsed)
        return {rowid: chunk for rowid, payload in rows
                if (chunk := kept.get(rowid) if payload is None else parsed[rowid]) is not None}

    # ------------------------------------------------------------------------------------------ the copy

    def _catch_up(self) -> LoadedRows:
        """The copy, up to date with other connections' commits: checked under the read lock (one PRAGMA),
        caught up under the write lock, only when something changed."""
        with self._read():
            rows = self._rows
            if rows is not None and rows.settled \
                    and rows.data_version == self._db.execute("PRAGMA data_version").fetchone()[0] \
                    and rows.dead <= max(_RELOAD_AFTER_DEAD_ROWS, rows.size // 4):
                return rows
        with self._lock.write(), self._snapshot(self._db):
            rows = self._current_rows()
            rows.settle()
            return rows

    def _current_rows(self) -> LoadedRows:
        """The in-memory rows, caught up with the database (call inside a snapshot or a transaction)."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        rows = self._rows
        if rows is None or rows.dead > max(_RELOAD_AFTER_DEAD_ROWS, rows.size // 4):
            rows = LoadedRows(self.dimension)
            rows.append(self._db.execute(tables.LOAD_ROWS + " ORDER BY c.rowid").fetchall())
        elif version != rows.data_version:
            stored = np.asarray(self._db.execute("SELECT rowid, searchable FROM chunks").fetchall(),
                                dtype=np.int64).reshape(-1, 2)
            stored = stored[np.argsort(stored[:, 0])]
            rows.match_stored(stored[:, 0], stored[:, 1].astype(bool))
            rows.append(self._db.execute(tables.LOAD_ROWS + " WHERE c.rowid > ? ORDER BY c.rowid",
                                         (rows.last_rowid,)).fetchall())
        rows.data_version = version
        self._rows = rows
        return rows

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The read lock and a connection to read through (pooled; an in-memory index's own)."""
        with self._read(), self._readers.connection(self._db) as db:
            yield db

    @contextmanager
    def _snapshot(self, db: sqlite3.Connection) -> Iterator[None]:
        """One read transaction on `db`: the copy's catch-up, or the scoring and the chunk fetch, see one state."""
        db.execute("BEGIN")
        try:
            yield
        finally:
            db.execute("COMMIT")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; callers update the copy after commit.

        A loaded copy first catches up with other connections' commits, so rows this write adds are
        appended after every row stored before them (positions stay in rowid order).
        """
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if self._rows is not None:
                self._current_rows()
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            self._known_terms.clear()  # ids this transaction gave its new terms are undone
            raise
        self._db.execute("COMMIT")

    # ------------------------------------------------------------------------------------------ helpers

    def _add_missing_postings(self) -> None:
        """Tokenize chunks stored before postings were kept (an index file from an earlier release)."""
        if tables.postings_missing(self._db):
            with self._lock.write(), self._transaction() as db:
                tables.add_missing_postings(db, self._tokenizer, self._known_terms)

    def _query_vector(self, query: SearchQuery) -> np.ndarray:
        if query.vector is None:
            raise InvalidInput(f"a {query.mode.value} search needs query.vector: embed the query text first")
        return self._unit_rows(np.asarray([query.vector], dtype=np.float32), expected_rows=1)[0]

    def _unit_rows(self, vectors: Vectors, *, expected_rows: int) -> np.ndarray:
        return tables.unit_rows(vectors, expected_rows=expected_rows, dimension=self.dimension)
