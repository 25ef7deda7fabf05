"""FTS5's bm25() computed from an in-memory inverted index: the same scores, without scoring every match.

SQLite FTS5 evaluates bm25() on every row that matches any query term; an OR query holding a common word
("cells", "increased") matches half the corpus, so keyword search cost grew with the corpus (70 ms p95 at
50k chunks). BM25 is a sum over query terms of per-(term, row) values, so it can be computed from postings
instead: for each query term, its rows and weighted frequencies, a few vectorised numpy operations, one
bincount to add the terms up. The maths is fts5_aux.c's, step for step and in the same order, so every
score is the one FTS5 returns (tests/unit/test_local_index_bm25.py compares them):

    idf(t)  = ln((N - n(t) + 0.5) / (n(t) + 0.5)), or 1e-6 when that is not positive
    f(t, d) = sum over columns of weight(column) x occurrences of t in that column of d
    score   = sum over query phrases of idf(t) x f(t, d) (k1 + 1) / (f(t, d) + k1 (1 - b + b |d| / avgdl))

with k1 = 1.2, b = 0.75, N the searchable rows, n(t) those holding t, |d| the row's tokens over all columns
and avgdl their mean over the searchable rows. A term repeated in the query counts once per repetition,
as FTS5 counts each phrase. The tokens are FTS5's own (adapters/local/fts5_tokens.py).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from voiceassist.adapters.local.fts5_tokens import POSTING

COLUMN_WEIGHTS = (1.0, 0.5)  # text, title: FTS5's bm25(fts, 1.0, 0.5); OpenSearch multi_match "title^0.5"
BM25_K1 = 1.2  # fts5_aux.c: const double k1
BM25_B = 0.75  # fts5_aux.c: const double b
MIN_IDF = 1e-6  # fts5_aux.c: an idf <= 0 (a term in at least half the rows) becomes 1e-6
# A query phrase for fts5_bm25: a term id, a multi-token phrase's (row positions, f), or None (matches nothing).
Phrase = int | tuple[np.ndarray, np.ndarray] | None


@dataclass(frozen=True)
class DecodedPostings:
    """Stored postings of consecutive rows, flattened: entry i is term `terms[i]` in row `rows[i]`."""

    rows: np.ndarray  # offset of the row within the decoded batch
    terms: np.ndarray
    frequencies: np.ndarray  # f: column-weighted occurrences
    lengths: np.ndarray  # per row: its tokens over all columns (FTS5's xColumnSize(-1))


def decode_postings(blobs: Sequence[bytes]) -> DecodedPostings:
    postings = np.frombuffer(b"".join(blobs), dtype=POSTING)
    per_row = np.fromiter((len(blob) // POSTING.itemsize for blob in blobs), dtype=np.int64, count=len(blobs))
    rows = np.repeat(np.arange(len(blobs), dtype=np.int64), per_row)
    return weigh_postings(rows, postings["term"], postings["text"], postings["title"], len(blobs))


def weigh_postings(rows: np.ndarray, terms: np.ndarray, text: np.ndarray, title: np.ndarray, row_count: int
                   ) -> DecodedPostings:
    """Postings given as columns (row, term id, occurrences in the text, in the title), as BM25 reads them:
    the stored ones decoded, or a batch's as it is written (the same values, without the bytes)."""
    text_weight, title_weight = COLUMN_WEIGHTS
    lengths = np.bincount(rows, weights=text + title, minlength=row_count)
    return DecodedPostings(rows=rows, terms=terms.astype(np.int64),
                           frequencies=text * text_weight + title * title_weight, lengths=lengths.astype(np.int64))


class TermPostings:
    """Term id -> (row positions, weighted frequencies): a column-major sparse matrix that grows cheaply.

    Each settled append becomes a small block of its own; blocks are combined when there are many of them, and
    merged into the main matrix once they hold a quarter of its postings, so an append costs amortised
    O(its postings x log) and a lookup reads at most MAX_BLOCKS + 1 slices. Removed rows are never taken
    out here: the caller masks them (they are not searchable) until it rebuilds from the database.
    """

    MAX_BLOCKS = 16

    def __init__(self) -> None:
        self._main = _Columns.empty()
        self._blocks: list[_Columns] = []
        self._unbuilt: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # added without settling

    def add(self, terms: np.ndarray, rows: np.ndarray, frequencies: np.ndarray, *, settle: bool = True) -> None:
        """Postings of rows after every row added before; a block at once (`settle`), or kept as given until
        the next settle(), which makes one block of all of them (a bulk build's batches sorted once, not once
        each; lookups meanwhile scan them: slower, the same answers)."""
        self._unbuilt.append((terms, rows, frequencies))
        if settle:
            self.settle()

    @property
    def settled(self) -> bool:
        """True when settle() has nothing to merge."""
        return not self._unbuilt and (not self._blocks or (
            len(self._blocks) <= self.MAX_BLOCKS and self._main.size > 0
            and sum(block.size for block in self._blocks) < self._merge_from()))

    def settle(self) -> None:
        if self._unbuilt:
            pieces, self._unbuilt = self._unbuilt, []
            terms, rows, frequencies = pieces[0] if len(pieces) == 1 else (
                np.concatenate(column) for column in zip(*pieces, strict=True))
            self._blocks.append(_Columns.build(terms, rows, frequencies))
        if not self._blocks:
            return
        if self._main.size == 0 and len(self._blocks) == 1:
            self._main, self._blocks = self._blocks[0], []  # a first load is the main matrix as it is built
        elif sum(block.size for block in self._blocks) >= self._merge_from():
            self._main = _Columns.combine([self._main, *self._blocks])
            self._blocks = []
        elif len(self._blocks) > self.MAX_BLOCKS:
            self._blocks = [_Columns.combine(self._blocks)]

    def _merge_from(self) -> int:
        return max(4096, self._main.size // 4)

    def column(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """Row positions holding `term` (ascending) and its weighted frequency in each."""
        parts = [part for part in (matrix.column(term) for matrix in (self._main, *self._blocks)) if part[0].size]
        parts += [(rows[found], frequencies[found]) for terms, rows, frequencies in self._unbuilt
                  if (found := terms == term).any()]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return self._main.rows[:0], self._main.frequencies[:0]
        return np.concatenate([rows for rows, _ in parts]), np.concatenate([f for _, f in parts])


class _Columns:
    """An immutable CSC matrix: starts[t]:starts[t + 1] delimits term t's rows and frequencies."""

    def __init__(self, starts: np.ndarray, rows: np.ndarray, frequencies: np.ndarray) -> None:
        self.starts, self.rows, self.frequencies = starts, rows, frequencies
        self.size = len(rows)

    @classmethod
    def empty(cls) -> _Columns:
        return cls(np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int32), np.empty(0, dtype=np.float32))

    @classmethod
    def build(cls, terms: np.ndarray, rows: np.ndarray, frequencies: np.ndarray) -> _Columns:
        starts = np.zeros(int(terms.max(initial=-1)) + 2, dtype=np.int64)
        span = int(rows.max(initial=-1)) + 1
        count = len(terms)
        if span * (len(starts) - 1) * max(count, 1) < np.iinfo(np.int64).max:
            # Ordered by (term, row): a row holds a term once, so the keys are distinct and sorting them gives
            # the order a stable sort by term gives, rows ascending. Each key carries its position in its low
            # digits (key x count + position), so sorting the keys' values gives the order: numpy's value
            # sort (SIMD) costs a third of its argsort (2M postings 0.12 -> 0.04 CPU s), the same order.
            keys = (terms.astype(np.int64) * span + rows) * count + np.arange(count, dtype=np.int64)
            keys.sort()
            order = keys % count
        elif span * (len(starts) - 1) < np.iinfo(np.int64).max:
            order = np.argsort(terms.astype(np.int64) * span + rows)  # the keys alone: distinct, as above
        else:
            order = np.argsort(terms, kind="stable")  # stable: each term's rows keep their ascending order
        np.cumsum(np.bincount(terms, minlength=len(starts) - 1), out=starts[1:])
        return cls(starts, rows[order].astype(np.int32), frequencies[order].astype(np.float32))

    def column(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        if term + 1 >= len(self.starts):
            return self.rows[:0], self.frequencies[:0]
        start, end = self.starts[term], self.starts[term + 1]
        return self.rows[start:end], self.frequencies[start:end]

    @classmethod
    def combine(cls, matrices: Sequence[_Columns]) -> _Columns:
        """One matrix holding every posting of `matrices` (in their order within each term)."""
        terms = [np.repeat(np.arange(len(m.starts) - 1, dtype=np.int64), np.diff(m.starts)) for m in matrices]
        return cls.build(np.concatenate(terms), np.concatenate([m.rows for m in matrices]),
                         np.concatenate([m.frequencies for m in matrices]))


class TermScores:
    """Each single-token phrase's BM25 part (its searchable rows and idf x the frequency part of every one),
    kept from one search to the next until the rows change, and the statistics (N, avgdl) with them.

    A question's common words ("patients", "cells", "increased") recur in most questions and hold the
    longest postings: gathering and scoring those postings was most of a 50,000-chunk keyword search's
    scoring. The kept parts are the arrays fts5_bm25 computes, the same values, so every score is unchanged.
    The owner (rows.LoadedRows) clears them whenever the rows, their flags or their lengths change; they are
    bounded by `limit` postings (the kept rows int32, the parts float64: 12 bytes each), all dropped when a
    new one would pass it. Safe to share between threads searching the same rows (a lock guards the keeping).
    """

    def __init__(self) -> None:
        self._parts: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._held = 0
        self._lock = threading.Lock()
        self.statistics: tuple[int, float] | None = None  # (N, avgdl) of the searchable rows

    def __len__(self) -> int:
        return len(self._parts)

    def clear(self) -> None:
        with self._lock:
            self._parts, self._held, self.statistics = {}, 0, None

    def get(self, term: int) -> tuple[np.ndarray, np.ndarray] | None:
        return self._parts.get(term)

    def keep(self, term: int, rows: np.ndarray, part: np.ndarray, limit: int) -> None:
        with self._lock:
            if self._held + rows.size > limit:
                self._parts, self._held = {}, 0
            if rows.size <= limit and term not in self._parts:
                self._parts[term] = rows, part
                self._held += rows.size


def fts5_bm25(postings: TermPostings, phrases: Sequence[Phrase], searchable: np.ndarray,
              lengths: np.ndarray, known: TermScores | None = None, limit: int = 0) -> np.ndarray:
    """FTS5's bm25() (negated: higher is better) of every row position for an OR query of `phrases`.

    `phrases` are the query's phrases in query order: a term id, the matches of a phrase of several tokens
    (row positions ascending and f, adapters/local/phrases.py), or None for one no row holds; `searchable`
    marks the rows of the FTS5 table, whose statistics (N, n(t), avgdl) the scores use. Rows no phrase
    matches score 0; every matching row scores above 0 (idf >= 1e-6, f >= the smallest column weight).
    `known` keeps the statistics and each single token's part for the next call, up to `limit` postings
    (TermScores: the caller clears it when `searchable`, `lengths` or the postings change).
    """
    scores = np.zeros(len(searchable), dtype=np.float64)
    if known is not None and known.statistics is not None:
        row_count, average_length = known.statistics
    else:
        row_count = int(np.count_nonzero(searchable))
        average_length = float(lengths[searchable].sum()) / float(row_count) if row_count else 0.0
        if known is not None:
            known.statistics = row_count, average_length
    if row_count == 0:
        return scores
    matched_rows: list[np.ndarray] = []
    contributions: list[np.ndarray] = []
    computed: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for term in phrases:
        if term is None:
            continue  # FTS5 adds idf x 0 for it to every row: nothing
        key = term if isinstance(term, int) else -1 - len(computed)  # a phrase's matches: its own entry
        if key not in computed and known is not None and isinstance(term, int):
            kept = known.get(term)
            if kept is not None:
                computed[key] = kept
        if key not in computed:
            rows, frequencies = postings.column(term) if isinstance(term, int) else term
            live = searchable[rows]
            rows, frequencies = rows[live], frequencies[live].astype(np.float64)
            row_lengths_ = lengths[rows].astype(np.float64)
            idf = math.log((row_count - rows.size + 0.5) / (rows.size + 0.5))
            if idf <= 0.0:
                idf = MIN_IDF
            computed[key] = rows, idf * ((frequencies * (BM25_K1 + 1.0)) / (
                frequencies + BM25_K1 * (1 - BM25_B + BM25_B * row_lengths_ / average_length)))
            if known is not None and isinstance(term, int):
                known.keep(term, *computed[key], limit=limit)
        rows, contribution = computed[key]
        matched_rows.append(rows)
        contributions.append(contribution)
    if matched_rows:
        # bincount adds each row's contributions in phrase order, as FTS5's loop does: identical sums (from 0.0,
        # as the zeros would have added them to).
        return np.bincount(np.concatenate(matched_rows), weights=np.concatenate(contributions),
                           minlength=len(searchable))
    return scores


def best_positions(scores: np.ndarray, allowed: np.ndarray, depth: int,
                   order: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """Positions of the `depth` best matching (score > 0) allowed rows, best first, ties by position
    (= rowid order: FTS5's `ORDER BY score DESC, rowid LIMIT depth`), or by `order` (given the candidates,
    every one tied at the cut included, and their scores, their indices best first: LoadedRows.stable_order,
    which breaks a tie by the document, not by the order rows were inserted)."""
    candidates = np.flatnonzero((scores > 0) & allowed)
    candidate_scores = scores[candidates]
    if candidates.size > depth:
        threshold = np.partition(candidate_scores, candidates.size - depth)[candidates.size - depth]
        keep = candidate_scores >= threshold
        candidates, candidate_scores = candidates[keep], candidate_scores[keep]
    ranked = np.lexsort((candidates, -candidate_scores)) if order is None else order(candidates, candidate_scores)
    return candidates[ranked[:depth]]
