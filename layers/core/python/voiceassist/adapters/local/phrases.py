"""A query word FTS5 splits into several tokens ("il_6" is "il 6"), matched as FTS5 matches a phrase.

The embedded index keeps no FTS5 table of its chunks: BM25 is computed from its own postings
(adapters/local/bm25.py), which count tokens but keep no offsets. A phrase needs offsets, so it is matched in
two steps: the candidates are the searchable rows holding every token of the phrase (the postings'
intersection), then each candidate's text and title are run through FTS5's tokenizer again and the phrase's
occurrences counted, as FTS5 counts them (consecutive offsets within one column, each start counted). The
result is what fts5_bm25 scores: the matching rows and f = 1.0 x hits in text + 0.5 x hits in title.

Phrase words are rare in questions (query words are runs of word characters, so only an underscore or a
character FTS5 separates on but Python's \\w does not makes one: 1 of SciFact's 809 queries, none of
NFCorpus's 324); their cost grows with the candidates, a read and a tokenizer pass of each.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import numpy as np

from voiceassist.adapters.local.bm25 import COLUMN_WEIGHTS, Phrase
from voiceassist.adapters.local.fts5_tokens import Fts5Tokenizer
from voiceassist.adapters.local.rows import LoadedRows

_CHUNK_TEXTS = ("SELECT chunk_rowid, json_extract(chunk_json, '$.text'), json_extract(chunk_json, '$.metadata.title')"
                " FROM chunk_bodies WHERE chunk_rowid IN (SELECT value FROM json_each(?))")


def query_phrases(db: sqlite3.Connection, rows: LoadedRows, tokenizer: Fts5Tokenizer,
                  words: Sequence[tuple[str, ...]]) -> list[Phrase]:
    """fts5_bm25's phrase for each query word (its tokens, `words`): a single token's term id, a phrase's
    matches, or None when a word has no token or a token no stored row holds."""
    ids = term_ids(db, sorted({token for tokens in words for token in tokens}))
    phrases: list[Phrase] = []
    for tokens in words:
        found = [ids.get(token) for token in tokens]
        if not found or any(term is None for term in found):
            phrases.append(None)
        elif len(found) == 1:
            phrases.append(found[0])
        else:
            phrases.append(phrase_matches(db, rows, tokenizer, tokens, [t for t in found if t is not None]))
    return phrases


def term_ids(db: sqlite3.Connection, tokens: Sequence[str]) -> dict[str, int]:
    """The term id of each token some stored chunk holds."""
    return dict(db.execute("SELECT term, term_id FROM terms WHERE term IN (SELECT value FROM json_each(?))",
                           (json.dumps(list(tokens)),)).fetchall())


def phrase_matches(db: sqlite3.Connection, rows: LoadedRows, tokenizer: Fts5Tokenizer, tokens: Sequence[str],
                   ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray] | None:
    """(row positions ascending, f) of the searchable rows where `tokens` occur as a phrase."""
    searchable = rows.searchable[: rows.size]
    candidates: np.ndarray | None = None
    for term in dict.fromkeys(ids):
        holding = rows.postings.column(term)[0]
        holding = holding[searchable[holding]]
        candidates = holding if candidates is None else np.intersect1d(candidates, holding, assume_unique=True)
    if candidates is None or candidates.size == 0:
        return None
    candidates = np.sort(candidates)
    rowids = rows.rowids[candidates]
    texts = {rowid: (text or "", title or "") for rowid, text, title in
             db.execute(_CHUNK_TEXTS, (json.dumps(rowids.tolist()),)).fetchall()}
    present = np.asarray([int(rowid) in texts for rowid in rowids], dtype=bool)  # another writer may have deleted
    candidates, rowids = candidates[present], rowids[present]
    hits = tokenizer.phrase_hits([texts[int(rowid)] for rowid in rowids], tokens)
    frequencies = hits[:, 0] * COLUMN_WEIGHTS[0] + hits[:, 1] * COLUMN_WEIGHTS[1]
    matched = frequencies > 0
    return candidates[matched], frequencies[matched]
