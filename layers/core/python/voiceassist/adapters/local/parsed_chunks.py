"""The embedded index's chunks as parsed from their stored JSON, kept by rowid between searches.

A search returns whole chunks (the learned reranker reads them), and parsing 100 stored payloads
(`Chunk.model_validate_json`, at JSON's floor) was a quarter of a 50,000-chunk hybrid search's CPU
(docs/decisions/0032, session-17 addendum). A rowid names one payload for the life of the index file:
`chunks.rowid` is AUTOINCREMENT (a deleted rowid is never given again), a payload is written once with its
row and never updated (a replacement is a new row), so a chunk parsed once is the chunk stored under that
rowid for as long as the row exists. Whether it still exists is the search's own question, asked in its
snapshot (index_tables.CHUNKS_BY_ROWID returns no payload for a rowid kept here, only its presence).

Bounded: at most `limit` chunks, the least recently returned dropped first (~4.5 KB a chunk of 1.7 KB of
JSON: 16,384 chunks ~75 MB), each 6 objects the collector tracks (the model's lists are tuples, which it
untracks: decision 0032, session-20b addendum). Searches run side by side, so every change is made under a
lock. The chunks are shared by the searches that return them: like every model here, a caller changes one by
`model_copy`, never in place.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from voiceassist.models import Chunk

PARSED_CHUNKS_LIMIT = 16_384


class ParsedChunks:
    """rowid -> the Chunk parsed from that rowid's payload, least recently used dropped beyond `limit`."""

    def __init__(self, limit: int = PARSED_CHUNKS_LIMIT) -> None:
        self.limit = limit
        self._chunks: OrderedDict[int, Chunk] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._chunks)

    def known(self, rowids: Sequence[int]) -> dict[int, Chunk]:
        """The kept chunks among `rowids`, each marked as just used."""
        with self._lock:
            found = {rowid: chunk for rowid in rowids if (chunk := self._chunks.get(rowid)) is not None}
            for rowid in found:
                self._chunks.move_to_end(rowid)
        return found

    def keep(self, parsed: dict[int, Chunk]) -> None:
        """Keep newly parsed chunks, dropping the least recently used beyond the limit."""
        if not parsed or self.limit <= 0:
            return
        with self._lock:
            self._chunks.update(parsed)
            for rowid in parsed:
                self._chunks.move_to_end(rowid)
            while len(self._chunks) > self.limit:
                self._chunks.popitem(last=False)

    def forget(self, rowids: Iterable[int]) -> None:
        """Drop deleted or replaced rows (their rowids are never given again: this frees their memory)."""
        with self._lock:
            for rowid in rowids:
                self._chunks.pop(int(rowid), None)

    def clear(self) -> None:
        with self._lock:
            self._chunks.clear()
