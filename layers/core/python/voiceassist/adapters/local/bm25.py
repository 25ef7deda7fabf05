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
as FTS5 counts each phrase. The tokens are FTS5's own: Fts5Tokenizer runs the same tokenizer in a private
in-memory FTS5 table and reads the tokens back through fts5vocab.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FTS5_TOKENIZE = "porter unicode61 remove_diacritics 2"
COLUMN_WEIGHTS = (1.0, 0.5)  # text, title: bm25(chunk_fts, 1.0, 0.5); OpenSearch multi_match "title^0.5"
BM25_K1 = 1.2  # fts5_aux.c: const double k1
BM25_B = 0.75  # fts5_aux.c: const double b
MIN_IDF = 1e-6  # fts5_aux.c: an idf <= 0 (a term in at least half the rows) becomes 1e-6
_TOKEN_CACHE_LIMIT = 50_000
_POSTING = np.dtype([("term", "<i4"), ("text", "<i4"), ("title", "<i4")])


class Fts5Tokenizer:
    """FTS5's tokenizer, reached through a private contentless FTS5 table in an in-memory database."""

    def __init__(self, tokenize: str = FTS5_TOKENIZE) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.execute(
            f"CREATE VIRTUAL TABLE scratch USING fts5(text, title, content = '', tokenize = '{tokenize}')"
        )
        self._db.execute("CREATE VIRTUAL TABLE scratch_tokens USING fts5vocab(scratch, 'instance')")
        self._db.execute("CREATE VIRTUAL TABLE scratch_terms USING fts5vocab(scratch, 'row')")
        self._lock = threading.Lock()
        self._single_tokens: dict[str, str | None] = {}

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def count_terms(self, rows: Sequence[tuple[str, str]]) -> CountedTerms:
        """Every (row, token) pair of `rows` (text, title) with the token's occurrences in each column.

        All rows go into the scratch table in one transaction. Both vocabularies walk FTS5's index in the
        same term order: the 'row' one gives each distinct token once with its number of instances, the
        'instance' one each instance's row and column, as integers only (a string per instance cost more
        than the tokenizing: 20,000 bench chunks 3.77 -> 2.08 CPU s, same run); numpy counts them.
        """
        if not rows:
            return CountedTerms.empty()
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT INTO scratch (rowid, text, title) VALUES (?, ?, ?)",
                                     [(number, text, title) for number, (text, title) in enumerate(rows)])
                tokens, instance_counts = self._db.execute(
                    "SELECT group_concat(term, ' '), group_concat(cnt) FROM scratch_terms").fetchone()
                (instances,) = self._db.execute(
                    "SELECT group_concat(doc * 2 + (col = 'title')) FROM scratch_tokens").fetchone()
            finally:
                self._db.execute("ROLLBACK")  # empties the scratch table
        if tokens is None or instances is None:
            return CountedTerms.empty()
        # A token never holds a space or a comma: unicode61 splits on both (they are separators to it).
        return CountedTerms.of_term_instances(tokens.split(" "), _integers(instance_counts), _integers(instances))

    def single_tokens(self, words: Sequence[str]) -> list[str] | None:
        """The one token FTS5 makes of each word (porter-stemmed, folded), or None if any word makes another
        number of tokens (FTS5 would treat it as a phrase, which only FTS5 itself can match)."""
        with self._lock:
            unknown = [word for word in dict.fromkeys(words) if word not in self._single_tokens]
        if unknown:
            tokens: dict[int, list[str]] = {}
            for token, row, _ in self._instances([(word, "") for word in unknown]):
                tokens.setdefault(row, []).append(token)
            with self._lock:
                if len(self._single_tokens) > _TOKEN_CACHE_LIMIT:
                    self._single_tokens.clear()
                for row, word in enumerate(unknown, start=1):
                    found = tokens.get(row, [])
                    self._single_tokens[word] = found[0] if len(found) == 1 else None
        with self._lock:
            single = [self._single_tokens.get(word) for word in words]
        return None if any(token is None for token in single) else [t for t in single if t is not None]

    def _instances(self, rows: Sequence[tuple[str, str]]) -> list[tuple[str, int, str]]:
        """(token, 1-based row, column name) for every token occurrence in `rows`."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT INTO scratch (rowid, text, title) VALUES (?, ?, ?)",
                                     [(number, text, title) for number, (text, title) in enumerate(rows, 1)])
                instances = self._db.execute("SELECT term, doc, col FROM scratch_tokens").fetchall()
            finally:
                self._db.execute("ROLLBACK")  # the scratch table is emptied by undoing the inserts
        return instances


@dataclass(frozen=True)
class CountedTerms:
    """Token counts of a batch of rows, one entry per (row, token) pair, ordered by row then token."""

    tokens: list[str]  # the batch's distinct tokens
    rows: np.ndarray  # 0-based row of the batch
    terms: np.ndarray  # index into tokens
    text: np.ndarray  # occurrences in the text column
    title: np.ndarray  # occurrences in the title column

    @classmethod
    def empty(cls) -> CountedTerms:
        nothing = np.empty(0, dtype=np.int64)
        return cls([], nothing, nothing, nothing, nothing)

    @classmethod
    def of_term_instances(cls, tokens: list[str], instance_counts: np.ndarray, instances: np.ndarray
                          ) -> CountedTerms:
        """Count token instances into pairs: `tokens` distinct, `instance_counts` each one's instances, and
        `instances` (row x 2 + 1 if in the title) grouped token by token in the order of `tokens`."""
        if int(instance_counts.sum()) != instances.size:
            raise RuntimeError("FTS5's row and instance vocabularies disagree on the scratch table")
        terms = np.repeat(np.arange(len(tokens), dtype=np.int64), instance_counts)
        keys, counts = np.unique(((instances // 2) * len(tokens) + terms) * 2 + instances % 2, return_counts=True)
        pairs = keys // 2  # ascending: a pair's text count (even key) comes just before its title count
        starts = np.ones(len(pairs), dtype=bool)
        starts[1:] = pairs[1:] != pairs[:-1]
        pair_of_key = np.cumsum(starts) - 1
        unique_pairs = pairs[starts]
        text, title = np.zeros(len(unique_pairs), dtype=np.int64), np.zeros(len(unique_pairs), dtype=np.int64)
        in_text = keys % 2 == 0
        text[pair_of_key[in_text]] = counts[in_text]
        title[pair_of_key[~in_text]] = counts[~in_text]
        return cls(tokens, unique_pairs // len(tokens), unique_pairs % len(tokens), text, title)

    def as_dicts(self, row_count: int) -> list[dict[str, tuple[int, int]]]:
        """Per row: token -> (occurrences in text, in title); for reading, not the indexing path."""
        counted: list[dict[str, tuple[int, int]]] = [{} for _ in range(row_count)]
        for row, term, text, title in zip(self.rows, self.terms, self.text, self.title, strict=True):
            counted[int(row)][self.tokens[int(term)]] = (int(text), int(title))
        return counted

    def postings(self, term_ids: np.ndarray, row_count: int) -> list[bytes]:
        """Each row's postings as stored: (term id, count in text, count in title) triples, little-endian
        int32, given the database id of each token."""
        triples = np.empty(len(self.rows), dtype=_POSTING)
        triples["term"], triples["text"], triples["title"] = term_ids[self.terms], self.text, self.title
        bounds = np.searchsorted(self.rows, np.arange(row_count + 1))
        return [triples[bounds[row] : bounds[row + 1]].tobytes() for row in range(row_count)]


def _integers(joined: str) -> np.ndarray:
    """Comma-separated integers, parsed in C (a Python list of 400,000 strings first costs 8x more)."""
    return np.fromstring(joined, dtype=np.int64, sep=",")


@dataclass(frozen=True)
class DecodedPostings:
    """Stored postings of consecutive rows, flattened: entry i is term `terms[i]` in row `rows[i]`."""

    rows: np.ndarray  # offset of the row within the decoded batch
    terms: np.ndarray
    frequencies: np.ndarray  # f: column-weighted occurrences
    lengths: np.ndarray  # per row: its tokens over all columns (FTS5's xColumnSize(-1))


def decode_postings(blobs: Sequence[bytes]) -> DecodedPostings:
    postings = np.frombuffer(b"".join(blobs), dtype=_POSTING)
    per_row = np.fromiter((len(blob) // _POSTING.itemsize for blob in blobs), dtype=np.int64, count=len(blobs))
    rows = np.repeat(np.arange(len(blobs), dtype=np.int64), per_row)
    text_weight, title_weight = COLUMN_WEIGHTS
    lengths = np.bincount(rows, weights=postings["text"] + postings["title"], minlength=len(blobs))
    return DecodedPostings(rows=rows, terms=postings["term"].astype(np.int64),
                           frequencies=postings["text"] * text_weight + postings["title"] * title_weight,
                           lengths=lengths.astype(np.int64))


class TermPostings:
    """Term id -> (row positions, weighted frequencies): a column-major sparse matrix that grows cheaply.

    Each append becomes a small block of its own; blocks are combined when there are many of them, and
    merged into the main matrix once they hold a quarter of its postings, so an append costs amortised
    O(its postings x log) and a lookup reads at most MAX_BLOCKS + 1 slices. Removed rows are never taken
    out here: the caller masks them (they are not searchable) until it rebuilds from the database.
    """

    MAX_BLOCKS = 16

    def __init__(self) -> None:
        self._main = _Columns.empty()
        self._blocks: list[_Columns] = []

    def add(self, terms: np.ndarray, rows: np.ndarray, frequencies: np.ndarray) -> None:
        self._blocks.append(_Columns.build(terms, rows, frequencies))
        if self._main.size == 0 and len(self._blocks) == 1:
            self._main, self._blocks = self._blocks[0], []  # a first load is the main matrix as it is built
        elif sum(block.size for block in self._blocks) >= max(4096, self._main.size // 4):
            self._main = _Columns.combine([self._main, *self._blocks])
            self._blocks = []
        elif len(self._blocks) > self.MAX_BLOCKS:
            self._blocks = [_Columns.combine(self._blocks)]

    def column(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """Row positions holding `term` (ascending) and its weighted frequency in each."""
        parts = [part for part in (matrix.column(term) for matrix in (self._main, *self._blocks)) if part[0].size]
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
        order = np.argsort(terms, kind="stable")  # stable: each term's rows stay in ascending position order
        starts = np.zeros(int(terms.max(initial=-1)) + 2, dtype=np.int64)
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


def fts5_bm25(postings: TermPostings, phrases: Sequence[int | None], searchable: np.ndarray,
              lengths: np.ndarray) -> np.ndarray:
    """FTS5's bm25() (negated: higher is better) of every row position for an OR query of `phrases`.

    `phrases` are the query's term ids in query order (None for a term no row holds); `searchable` marks
    the rows of the FTS5 table, whose statistics (N, n(t), avgdl) the scores use. Rows no phrase matches
    score 0; every matching row scores above 0 (idf >= 1e-6, f >= the smallest column weight).
    """
    scores = np.zeros(len(searchable), dtype=np.float64)
    row_count = int(np.count_nonzero(searchable))
    if row_count == 0:
        return scores
    average_length = float(lengths[searchable].sum()) / float(row_count)
    matched_rows: list[np.ndarray] = []
    contributions: list[np.ndarray] = []
    computed: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for term in phrases:
        if term is None:
            continue  # FTS5 adds idf x 0 for it to every row: nothing
        if term not in computed:
            rows, frequencies = postings.column(term)
            live = searchable[rows]
            rows, frequencies = rows[live], frequencies[live].astype(np.float64)
            row_lengths_ = lengths[rows].astype(np.float64)
            idf = math.log((row_count - rows.size + 0.5) / (rows.size + 0.5))
            if idf <= 0.0:
                idf = MIN_IDF
            computed[term] = rows, idf * ((frequencies * (BM25_K1 + 1.0)) / (
                frequencies + BM25_K1 * (1 - BM25_B + BM25_B * row_lengths_ / average_length)))
        rows, contribution = computed[term]
        matched_rows.append(rows)
        contributions.append(contribution)
    if matched_rows:
        # bincount adds each row's contributions in phrase order, as FTS5's loop does: identical sums.
        scores += np.bincount(np.concatenate(matched_rows), weights=np.concatenate(contributions),
                              minlength=len(searchable))
    return scores


def best_positions(scores: np.ndarray, allowed: np.ndarray, depth: int) -> np.ndarray:
    """Positions of the `depth` best matching (score > 0) allowed rows, best first, ties by position
    (= rowid order): FTS5's `ORDER BY score DESC, rowid LIMIT depth`."""
    candidates = np.flatnonzero((scores > 0) & allowed)
    candidate_scores = scores[candidates]
    if candidates.size > depth:
        threshold = np.partition(candidate_scores, candidates.size - depth)[candidates.size - depth]
        keep = candidate_scores >= threshold
        candidates, candidate_scores = candidates[keep], candidate_scores[keep]
    order = np.lexsort((candidates, -candidate_scores))[:depth]
    return candidates[order]
