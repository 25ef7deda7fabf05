"""The embedded index's in-memory copy of its chunk rows: unit vectors, filter fields, BM25 postings.

Row positions follow SQLite rowid order (AUTOINCREMENT only grows, and rows are only ever appended).
Equal scores are never ordered by position: rowids number chunks in the order they entered the index, which
differs between two data folders of the same documents (bulk ingestion writes 16 at once), and a tie at a
sub-query's cut once changed the reranker's training candidates (docs/decisions/0025, session 18). A tie is
broken by the row's document key, then its rowid (a document's chunks are written together, by ordinal, each
version after the one before): LoadedRows.stable_order, query.search.chunk_order_key's order. Deleted rows
stay in the buffers as never-searchable until the owner reloads (`dead` counts them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voiceassist.adapters.local.blas_threads import one_blas_thread
from voiceassist.adapters.local.bm25 import (
    DecodedPostings,
    Phrase,
    TermPostings,
    TermScores,
    best_positions,
    decode_postings,
    fts5_bm25,
)
from voiceassist.models import SearchFilters, SourceType
from voiceassist.query.search import cosine_to_score

SOURCE_TYPE_CODES = {source_type.value: code for code, source_type in enumerate(SourceType)}
_NO_YEAR = np.iinfo(np.int32).min  # below any year_min, as SQL's NULL >= year_min is never true
# Dense search over at least this many allowed rows takes its candidates from a smaller copy of the vectors
# (their first PROJECTED_DIMENSIONS principal directions), then scores them exactly (LoadedRows.dense).
APPROXIMATE_FROM = 20_000
PROJECTED_DIMENSIONS = 128
CANDIDATES_PER_HIT = 10  # the exact rescoring reads depth x this many rows (at least 1,000)
# The projected estimates are computed for the candidates' SHORTLIST_PER_CANDIDATE x as many rows nearest
# by the Hamming distance of their sign bits (each row's vector minus the rows' mean, packed: 48 bytes at
# 384 dimensions), not for every row: at 50,000 (the peers' scale set) recall@100 of exact 0.998 -> 0.997,
# CPU p50 -13 %, p95 -9 to -12 %; on real SciFact + NFCorpus rows the recall needs a shortlist of ~22-27 x
# sqrt(rows), under 6,000 up to ~50,000 (docs/decisions/0032, session-13 addendum).
SHORTLIST_PER_CANDIDATE = 6
_BASIS_SAMPLE = 4096
# The BM25 parts kept between searches (bm25.TermScores) hold at most this many postings per row: at 50,000
# rows 1.6 M (~19 MB), the common words of a few hundred questions. A memory bound: the scores do not depend on it.
KEPT_POSTINGS_PER_ROW = 32

# The columns LoadedRows.append expects, in order (chunks AS c, chunk_terms AS t, chunk_bodies AS b).
LOADED_ROW_COLUMNS = "c.rowid, b.vector, c.doc_key, c.searchable, c.source_type, c.specialty, c.year, t.postings"


class LoadedRows:
    """Every stored chunk row (searchable or not) as row-aligned numpy buffers that grow by doubling."""

    def __init__(self, dimension: int, capacity: int = 1024) -> None:
        self.size = 0
        self.dead = 0
        self.data_version = -1  # PRAGMA data_version these rows reflect (set by the owner)
        self.rowids = np.zeros(capacity, dtype=np.int64)
        self.matrix = np.zeros((capacity, dimension), dtype=np.float32)
        self.present = np.zeros(capacity, dtype=bool)  # False once deleted
        self.searchable = np.zeros(capacity, dtype=bool)
        self.source_type = np.zeros(capacity, dtype=np.int16)
        self.year = np.zeros(capacity, dtype=np.int32)
        self.doc_key = np.zeros(capacity, dtype=np.int32)
        self.specialty = np.zeros(capacity, dtype=np.int32)
        self.lengths = np.zeros(capacity, dtype=np.int64)
        self.postings = TermPostings()
        self.term_scores = TermScores()  # cleared by every change to the rows, their flags or their postings
        self.codes: dict[str | None, int] = {None: 0}  # doc_key and specialty strings -> small integers
        self._named: list[str | None] = []  # code -> its string (codes number the dict's keys in order)
        self.basis: np.ndarray | None = None  # (dimension, PROJECTED_DIMENSIONS), orthonormal columns
        self.basis_fitted_on = 0
        self.projected = np.zeros((0, PROJECTED_DIMENSIONS), dtype=np.float32)  # matrix @ basis, once fitted
        # The estimates read `coded`, projected coded in int8 (a quarter of the bytes to gather): each direction's
        # coordinate in steps of its largest magnitude at the fit / 127 (`steps`), folded into the query's.
        self.coded = np.zeros((0, PROJECTED_DIMENSIONS), dtype=np.int8)
        self.steps = np.ones(PROJECTED_DIMENSIONS, dtype=np.float32)
        self.centre = np.zeros(dimension, dtype=np.float32)  # the rows' mean at the basis' fit
        self.signs = np.zeros((0, 0), dtype=np.uint64)  # (words, capacity): sign_words(matrix - centre).T

    @property
    def last_rowid(self) -> int:
        return int(self.rowids[self.size - 1]) if self.size else 0

    @property
    def settled(self) -> bool:
        """False while rows appended by writes wait to be merged into the postings (LoadedRows.settle)."""
        return self.postings.settled

    def settle(self) -> None:
        """Merge the postings appended since the last merge, as the writes that appended them deferred."""
        self.postings.settle()

    def append(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Rows of LOADED_ROW_COLUMNS with rowids above last_rowid, in rowid order."""
        if not rows:
            return
        rowids, vectors, doc_keys, searchable, source_types, specialties, years, postings = zip(*rows, strict=True)
        matrix = np.frombuffer(b"".join(vectors), dtype=np.float32).reshape(len(rows), -1)
        self.append_columns(rowids, matrix, doc_keys, searchable, source_types, specialties, years,
                            decode_postings(postings))

    def append_columns(self, rowids: Sequence[int], matrix: np.ndarray, doc_keys: Sequence[str],
                       searchable: Sequence[int] | np.ndarray, source_types: Sequence[str],
                       specialties: Sequence[str | None], years: Sequence[int | None], postings: DecodedPostings,
                       *, settle: bool = True) -> None:
        """Rows given column by column (LOADED_ROW_COLUMNS' order; `matrix` the unit vectors), rowids above
        last_rowid, ascending. Without `settle`, their postings are merged at the next settle(): a bulk
        build's batches are merged once rather than once each (the merges grow with the rows held)."""
        if not rowids:
            return
        self.term_scores.clear()
        start, needed = self.size, self.size + len(rowids)
        if needed > len(self.rowids):
            self._grow(max(needed, 2 * len(self.rowids)))
        self.rowids[start:needed] = rowids
        self.matrix[start:needed] = matrix
        self.searchable[start:needed] = np.asarray(searchable, dtype=bool)
        self.source_type[start:needed] = [SOURCE_TYPE_CODES[value] for value in source_types]
        self.year[start:needed] = [_NO_YEAR if year is None else year for year in years]
        codes = self.codes  # code() inlined: a method call per row cost 0.4 of a 50,000-row load's ~2 CPU s
        self.doc_key[start:needed] = [codes.setdefault(value, len(codes)) for value in doc_keys]
        self.specialty[start:needed] = [codes.setdefault(value, len(codes)) for value in specialties]
        self.present[start:needed] = True
        self.lengths[start:needed] = postings.lengths
        self.postings.add(postings.terms, postings.rows + start, postings.frequencies, settle=settle)
        self.size = needed
        if self.basis is not None:
            self.projected[start:needed] = project(self.matrix[start:needed], self.basis)
            self.coded[start:needed] = code_int8(self.projected[start:needed], self.steps)
            self.signs[:, start:needed] = sign_words(self.matrix[start:needed] - self.centre).T

    def code(self, value: str | None) -> int:
        return self.codes.setdefault(value, len(self.codes))

    def tie_keys(self, positions: np.ndarray) -> list[tuple[str, int]]:
        """Each position's (document key, rowid): what orders equal scores (the module's docstring)."""
        if len(self._named) != len(self.codes):
            self._named = list(self.codes)
        named = self._named
        return [(named[code] or "", rowid) for code, rowid in
                zip(self.doc_key[positions].tolist(), self.rowids[positions].tolist(), strict=True)]

    def stable_order(self, positions: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Indices into `positions` (their `scores` aligned), best score first, equal scores by tie_keys (looked
        up for the tied positions only, which are ordered again among themselves)."""
        order = np.argsort(-scores, kind="stable")
        ranked = scores[order]
        equal = ranked[1:] == ranked[:-1]
        if not equal.any():
            return order
        tied = np.zeros(order.size, dtype=bool)
        tied[1:] |= equal
        tied[:-1] |= equal
        indices = order[tied]  # each group of equal scores holds consecutive places of `order`
        keys = self.tie_keys(positions[indices])
        order[tied] = indices[sorted(range(len(keys)), key=lambda i: (-scores[indices[i]], keys[i]))]
        return order

    def rowid_tie_keys(self, rowids: list[int]) -> dict[int, tuple[str, int]]:
        """query.search.top_n's tie_keys for rowids of loaded rows."""
        positions = self.positions(rowids)
        return {key[1]: key for key in self.tie_keys(positions)}

    def positions(self, rowids: Sequence[int] | np.ndarray) -> np.ndarray:
        """Buffer positions of the given SQLite rowids (those not loaded are skipped)."""
        wanted = np.asarray(rowids, dtype=np.int64)
        if self.size == 0 or wanted.size == 0:
            return np.empty(0, dtype=np.intp)
        live = self.rowids[: self.size]
        found = np.clip(np.searchsorted(live, wanted), 0, self.size - 1)
        return found[live[found] == wanted]

    def remove(self, rowids: Sequence[int] | np.ndarray) -> None:
        positions = self.positions(rowids)
        positions = positions[self.present[positions]]
        self.term_scores.clear()
        self.present[positions] = False
        self.searchable[positions] = False
        self.dead += len(positions)

    def set_searchable(self, rows: Sequence[tuple[int, int]]) -> None:
        """Rows of (rowid, searchable) as just committed."""
        flags = dict(rows)
        self.term_scores.clear()
        positions = self.positions(list(flags))
        self.searchable[positions] = [bool(flags[int(rowid)]) for rowid in self.rowids[positions]]

    def match_stored(self, rowids: np.ndarray, searchable: np.ndarray) -> None:
        """Take every stored row's searchable flag (rowids ascending) and forget loaded rows no longer
        stored: what another connection's activations and deletions changed."""
        loaded = self.rowids[: self.size]
        still_stored = np.isin(loaded, rowids)
        self.remove(loaded[~still_stored & self.present[: self.size]])
        positions = self.positions(rowids)
        self.term_scores.clear()
        stored_at = np.searchsorted(rowids, self.rowids[positions])
        self.searchable[positions] = searchable[stored_at]

    def mask(self, filters: SearchFilters) -> np.ndarray:
        """Rows a search may return: searchable and passing every filter."""
        n = self.size
        keep = self.searchable[:n].copy()
        if filters.source_types:
            keep &= np.isin(self.source_type[:n], [SOURCE_TYPE_CODES[s.value] for s in filters.source_types])
        if filters.specialties:
            codes = [self.codes[s.casefold()] for s in filters.specialties if s.casefold() in self.codes]
            keep &= np.isin(self.specialty[:n], codes)
        if filters.doc_keys:
            keep &= np.isin(self.doc_key[:n], [self.codes[k] for k in filters.doc_keys if k in self.codes])
        if filters.year_min is not None:
            keep &= self.year[:n] >= filters.year_min
        return keep

    def bm25(self, phrases: Sequence[Phrase], filters: SearchFilters, depth: int) -> dict[int, float]:
        """FTS5's bm25 (higher is better) of the `depth` best allowed rows matching any phrase."""
        searchable = self.searchable[: self.size]
        scores = fts5_bm25(self.postings, phrases, searchable, self.lengths[: self.size], self.term_scores,
                           limit=KEPT_POSTINGS_PER_ROW * self.size)
        best = best_positions(scores, self.mask(filters), depth, order=self.stable_order)
        return {int(self.rowids[i]): float(scores[i]) for i in best}

    def dense(self, vector: np.ndarray, filters: SearchFilters, depth: int) -> dict[int, float]:
        """The `depth` best allowed rows by cosine, scored as OpenSearch's cosinesimil (each score exact).

        Up to APPROXIMATE_FROM allowed rows, every one is scored exactly. Above it, the candidates are the
        depth x CANDIDATES_PER_HIT rows best by the cosine's part in the vectors' principal directions
        (a third of the bytes to read), and only they are scored exactly: at 50,000 chunks 4.5 -> 2.4 CPU
        ms, 99.8 % of the exact top 100 kept (docs/benchmarks.md, "Peers"); those estimates only for the rows
        nearest by their sign bits (nearest_signs), SHORTLIST_PER_CANDIDATE x the candidates, from their
        coordinates coded in int8 (`coded`: the same candidates as float32's on the bench's 200 scale queries
        and 400 real SciFact + NFCorpus ones, docs/decisions/0032, session 16)."""
        keep = self.mask(filters)
        allowed_count = int(np.count_nonzero(keep))  # the positions only where they are scanned (below)
        if allowed_count == 0:
            return {}
        candidates = max(1000, depth * CANDIDATES_PER_HIT)
        if allowed_count >= APPROXIMATE_FROM and allowed_count > candidates:
            _, basis = self._projection()
            query_signs = sign_words((vector - self.centre)[None])[0]
            shortlist_size = candidates * SHORTLIST_PER_CANDIDATE
            shortlist = nearest_signs(self.signs[:, : self.size], query_signs, keep, shortlist_size)
            estimate = estimates(gather_rows(self.coded, shortlist), np.einsum("j,jk->k", vector, basis) * self.steps)
            allowed = shortlist[top_positions(estimate, candidates)]
            scores = matrix_vector(gather_rows(self.matrix, allowed), vector)
        # When most rows are allowed, scoring all of them and then selecting is cheaper than gathering the
        # allowed rows first: the gather copies the matrix, the matrix-vector product only reads it.
        elif (allowed := np.flatnonzero(keep)).size == self.size:
            scores = matrix_vector(self.matrix[: self.size], vector)
        elif allowed.size > self.size // 4:
            scores = matrix_vector(self.matrix[: self.size], vector)[allowed]
        else:
            scores = matrix_vector(self.matrix[allowed], vector)
        best = top_positions(scores, depth)  # with every row tied at the cut: the cut is made here
        if best.size > depth:
            best = best[self.stable_order(allowed[best], scores[best])[:depth]]
        return {int(self.rowids[allowed[i]]): cosine_to_score(float(scores[i])) for i in best}

    def _projection(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows' coordinates in the basis, fitted (again) once the rows have doubled since the last fit:
        the principal directions of an even sample of the rows. Any orthonormal basis keeps the scores
        exact (only the candidates come from it); the principal one keeps the most of each cosine."""
        if self.basis is None or self.size >= 2 * self.basis_fitted_on:
            sample = self.matrix[: self.size][:: max(1, self.size // _BASIS_SAMPLE)]
            # The eigenvectors of the sample's second moments (an SVD of the sample itself cost 8x the CPU),
            # on one BLAS thread: a second one costs 30x the CPU on a busy machine (blas_threads).
            with one_blas_thread():
                _, directions = np.linalg.eigh(sample.T @ sample)
            self.basis = np.ascontiguousarray(directions[:, ::-1][:, :PROJECTED_DIMENSIONS], dtype=np.float32)
            self.projected = np.zeros((len(self.rowids), self.basis.shape[1]), dtype=np.float32)
            self.projected[: self.size] = project(self.matrix[: self.size], self.basis)
            largest = np.abs(self.projected[: self.size]).max(axis=0)
            self.steps = np.where(largest > 0, largest / 127, 1).astype(np.float32)
            self.coded = np.zeros(self.projected.shape, dtype=np.int8)
            self.coded[: self.size] = code_int8(self.projected[: self.size], self.steps)
            self.centre = self.matrix[: self.size].mean(axis=0, dtype=np.float64).astype(np.float32)
            words = sign_words(self.matrix[:1]).shape[1]
            self.signs = np.zeros((words, len(self.rowids)), dtype=np.uint64)
            self.signs[:, : self.size] = sign_words(self.matrix[: self.size] - self.centre).T
            self.basis_fitted_on = self.size
        return self.projected, self.basis

    def _grow(self, capacity: int) -> None:
        for name in ("rowids", "matrix", "present", "searchable", "source_type", "year", "doc_key",
                     "specialty", "lengths", *(("projected", "coded") if self.basis is not None else ())):
            old = getattr(self, name)
            new = np.zeros((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: self.size] = old[: self.size]
            setattr(self, name, new)
        if self.basis is not None:
            signs = np.zeros((len(self.signs), capacity), dtype=np.uint64)
            signs[:, : self.size] = self.signs[:, : self.size]
            self.signs = signs


def project(rows: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """rows @ basis: BLAS on one thread for many rows (50,000: 0.04-0.06 CPU s against 0.05-0.11 with a
    second thread waited for), einsum's own loop for a few (an update's row: see matrix_vector)."""
    if len(rows) < 256:
        return np.einsum("ij,jk->ik", rows, basis)
    with one_blas_thread():
        return rows @ basis


def estimates(coded: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The candidates' estimates: int8-coded projected rows times the projected query in the codes' steps
    (float32), in einsum's loop, which widens the codes a block at a time in cache. Gathering 6,000 coded rows
    and this product cost 0.5-0.6 CPU ms against 0.85-1.4 for the float32 rows' gather and OpenBLAS's sgemv
    (the bench's 50k scale vectors, load ~27), the same recall (docs/decisions/0032, session 16). Only the
    candidates come from it; every returned score is matrix_vector's exact cosine."""
    return np.einsum("ij,j->i", coded, query)


def code_int8(projected: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Each coordinate in its direction's steps, rounded; a row appended after the fit and beyond its
    direction's largest magnitude then is clipped at +-127 (only its estimate is coarser: scores stay exact)."""
    return np.clip(np.rint(projected / steps), -127, 127).astype(np.int8)


def sign_words(rows: np.ndarray) -> np.ndarray:
    """Each row's sign bits (1 where positive) packed into 64-bit words, zero-padded: (rows, words)."""
    bits = np.packbits(rows > 0, axis=-1).reshape(len(rows), -1)
    padded = np.zeros((len(rows), -(-bits.shape[1] // 8) * 8), dtype=np.uint8)
    padded[:, : bits.shape[1]] = bits
    return padded.view(np.uint64)


def nearest_signs(signs: np.ndarray, query: np.ndarray, keep: np.ndarray, count: int) -> np.ndarray:
    """Ascending positions of the allowed rows nearest the query by the Hamming distance of their sign words
    (`signs` word-major, (words, rows)): every allowed row at a distance up to the least that reaches `count`
    rows, so ties at that distance are all in. The words' contiguous rows make each xor + popcount one pass
    (50,000 rows x 6 words: ~0.5 CPU ms against 1.5-1.8 for every row's 128-dimension estimate); the distances'
    partition gives the threshold, one comparison the positions (no argpartition)."""
    distance = np.zeros(signs.shape[1], dtype=np.uint16)
    word = np.empty(signs.shape[1], dtype=np.uint64)
    bits = np.empty(signs.shape[1], dtype=np.uint8)
    for row, value in zip(signs, query, strict=True):
        np.bitwise_xor(row, value, out=word)
        np.add(distance, np.bitwise_count(word, out=bits), out=distance)
    beyond = 64 * len(signs) + 1  # no row is this far: what a row not allowed gets
    if not keep.all():
        distance[~keep] = beyond
    # The count-th least distance, by a partition of a copy (0.06 CPU ms at 50,000 rows against 0.13 for the
    # histogram's bincount, which widens every distance to 64 bits, and its cumulative sum).
    reached = int(np.partition(distance, count - 1)[count - 1]) if count < distance.size else beyond
    return np.flatnonzero(distance <= min(reached, beyond - 1))


def top_positions(scores: np.ndarray, count: int) -> np.ndarray:
    """Positions of the `count` highest scores, in no order (all of them when there are fewer), and of every
    score equal to the lowest of them: argpartition picks among a tie at the cut by the scores' positions
    (the rows' insertion order), so the caller cuts a tie itself (LoadedRows.stable_order)."""
    if scores.size <= count:
        return np.arange(scores.size)
    best = np.argpartition(scores, scores.size - count)[scores.size - count :]
    lowest = scores[best].min()
    if np.count_nonzero(scores == lowest) > np.count_nonzero(scores[best] == lowest):
        return np.flatnonzero(scores >= lowest)
    return best


def gather_rows(matrix: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """matrix[positions] for a C-contiguous 2-D matrix, the same bytes: each row taken as one opaque item, so
    numpy copies a row at a time rather than element by element (6,000 int8 rows of 128 bytes: 0.13 against
    0.26 CPU ms; 1,000 float32 rows of 384: 0.18 against 0.25; docs/decisions/0032, session 18)."""
    rows = matrix.view(np.dtype((np.void, matrix.shape[1] * matrix.itemsize))).reshape(-1)
    return rows[positions].view(matrix.dtype).reshape(len(positions), matrix.shape[1])


def matrix_vector(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """matrix @ vector on this thread, without BLAS. numpy's `@` hands a matrix-vector product to OpenBLAS,
    which splits it over a thread per core; the other thread then spins, waiting for more work, long after
    the product is done: on the query path that was 15-20 ms of CPU per question on a second core, more than
    the product itself (bench/query.py --profile, "native" thread). einsum's own loop costs the same CPU
    (10,000 x 384: about 1 ms) and leaves the other core to the rest of the pipeline."""
    return np.einsum("ij,j->i", matrix, vector)
