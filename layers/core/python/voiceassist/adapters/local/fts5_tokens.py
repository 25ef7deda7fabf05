"""FTS5's tokenizer from Python: the tokens of a batch of rows and their counts, and a query word's tokens.

Python's sqlite3 cannot call an FTS5 tokenizer directly, so Fts5Tokenizer inserts the text into a private
contentless FTS5 table in an in-memory database and reads the tokens back through fts5vocab, inside a
transaction it rolls back (which empties the table). The embedded index tokenizes each chunk this once, when
it is indexed (docs/decisions/0032): its BM25 postings come from here, so there is no second tokenizer to
keep equal to FTS5's.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FTS5_TOKENIZE = "porter unicode61 remove_diacritics 2"
# A row's stored postings: (term id, occurrences in text, occurrences in title), little-endian int32.
POSTING = np.dtype([("term", "<i4"), ("text", "<i4"), ("title", "<i4")])
_TOKEN_CACHE_LIMIT = 50_000


class Fts5Tokenizer:
    """FTS5's tokenizer, reached through a private contentless FTS5 table in an in-memory database.

    The table has one column: a row's text goes in as FTS5 row 2 x row, its title as 2 x row + 1 (each column
    is tokenized on its own, offsets from 0, so the tokens are those of a two-column table), and the instance
    vocabulary's `doc` alone says row and column: 50,000 bench chunks' instance walk 1.12-1.21 -> 0.72-0.75
    CPU s against reading the column name of each instance (/tmp script, same run, twice each)."""

    def __init__(self, tokenize: str = FTS5_TOKENIZE) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.execute(f"CREATE VIRTUAL TABLE scratch USING fts5(body, content = '', tokenize = '{tokenize}')")
        self._db.execute("CREATE VIRTUAL TABLE scratch_tokens USING fts5vocab(scratch, 'instance')")
        self._db.execute("CREATE VIRTUAL TABLE scratch_terms USING fts5vocab(scratch, 'row')")
        self._lock = threading.Lock()
        self._word_tokens: dict[str, tuple[str, ...]] = {}

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
                self._db.executemany("INSERT INTO scratch (rowid, body) VALUES (?, ?)", _column_rows(rows))
                tokens, instance_counts = self._db.execute(
                    "SELECT group_concat(term, ' '), group_concat(cnt) FROM scratch_terms").fetchone()
                (instances,) = self._db.execute("SELECT group_concat(doc) FROM scratch_tokens").fetchone()
            finally:
                self._db.execute("ROLLBACK")  # empties the scratch table
        if tokens is None or instances is None:
            return CountedTerms.empty()
        # A token never holds a space or a comma: unicode61 splits on both (they are separators to it).
        return CountedTerms.of_term_instances(tokens.split(" "), _integers(instance_counts), _integers(instances))

    def word_tokens(self, words: Sequence[str]) -> list[tuple[str, ...]]:
        """The tokens FTS5 makes of each word (porter-stemmed, folded), in order: one for most words, several
        for a word FTS5 splits (a phrase to it: "il_6" is "il 6"), none for a word with no token characters."""
        with self._lock:
            known = {word: self._word_tokens[word] for word in words if word in self._word_tokens}
        unknown = [word for word in dict.fromkeys(words) if word not in known]
        if unknown:
            found: dict[int, list[tuple[int, str]]] = {}
            for token, row, _, offset in self._instances([(word, "") for word in unknown]):
                found.setdefault(row, []).append((offset, token))
            for row, word in enumerate(unknown, start=1):
                known[word] = tuple(token for _, token in sorted(found.get(row, [])))
            with self._lock:
                if len(self._word_tokens) > _TOKEN_CACHE_LIMIT:
                    self._word_tokens.clear()
                self._word_tokens.update((word, known[word]) for word in unknown)
        return [known[word] for word in words]

    def phrase_hits(self, rows: Sequence[tuple[str, str]], phrase: Sequence[str]) -> np.ndarray:
        """How often the token sequence `phrase` occurs in each row's text and title: FTS5's phrase matches
        (consecutive token offsets within one column, overlapping matches each counted), shape (rows, 2)."""
        hits = np.zeros((len(rows), 2), dtype=np.int64)
        if not rows or not phrase:
            return hits
        offsets: dict[tuple[int, str, str], set[int]] = {}
        for token, row, column, offset in self._instances(rows, terms=set(phrase)):
            offsets.setdefault((row, column, token), set()).add(offset)
        for row in range(1, len(rows) + 1):
            for position, column in enumerate(("text", "title")):
                starts = offsets.get((row, column, phrase[0]), set())
                hits[row - 1, position] = sum(
                    all(start + shift in offsets.get((row, column, token), ()) for shift, token in
                        enumerate(phrase[1:], start=1)) for start in starts)
        return hits

    def _instances(self, rows: Sequence[tuple[str, str]], terms: set[str] | None = None
                   ) -> list[tuple[str, int, str, int]]:
        """(token, 1-based row, column name, token offset in the column) for every token occurrence in
        `rows`, or only for the tokens in `terms`."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT INTO scratch (rowid, body) VALUES (?, ?)", _column_rows(rows, 1))
                select = "SELECT term, doc, offset FROM scratch_tokens"
                instances = self._db.execute(select).fetchall() if terms is None else [
                    found for term in terms
                    for found in self._db.execute(f"{select} WHERE term = ?", (term,)).fetchall()]
            finally:
                self._db.execute("ROLLBACK")  # the scratch table is emptied by undoing the inserts
        return [(token, doc // 2, _COLUMNS[doc % 2], offset) for token, doc, offset in instances]


_COLUMNS = ("text", "title")


def _column_rows(rows: Sequence[tuple[str, str]], first: int = 0) -> list[tuple[int, str]]:
    """The scratch table's rows for `rows` (text, title) numbered from `first`: 2 x row for the text,
    2 x row + 1 for the title; an empty column has no tokens, so no row."""
    return [(2 * number + column, value) for number, values in enumerate(rows, first)
            for column, value in enumerate(values) if value]


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
        triples = np.empty(len(self.rows), dtype=POSTING)
        triples["term"], triples["text"], triples["title"] = term_ids[self.terms], self.text, self.title
        bounds = np.searchsorted(self.rows, np.arange(row_count + 1))
        return [triples[bounds[row] : bounds[row + 1]].tobytes() for row in range(row_count)]


def _integers(joined: str) -> np.ndarray:
    """Comma-separated integers, parsed in C (a Python list of 400,000 strings first costs 8x more)."""
    return np.fromstring(joined, dtype=np.int64, sep=",")
