"""The peers for bench/peer_engines/worker.py, each through its own documented API (the benchmark's venv only).

Every engine gets the same unit vectors and stores the chunk text beside them (as ours does). Lexical
engines index "title. text" (ours weights the title 0.5 in the same FTS row), with their default analysers
(English stop words and the Snowball stemmer for bm25s; LanceDB's native full-text index with its defaults).
Ids are the documents' keys (one chunk per document), except Qdrant's, which must be integers or UUIDs.

Left out: DuckDB (its vss and fts extensions are downloaded from DuckDB's own extension host at first load,
which this machine cannot reach and a pinned PyPI install does not bring) and sqlite-vec (a loadable SQLite
extension: this Python's sqlite3 module is built without enable_load_extension).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from worker import BATCH, DEPTH, Engine, Work

_WORDS = re.compile(r"\w+")


def lexical_text(work: Work, row: int) -> str:
    return ". ".join(part for part in (work.titles[row], work.texts[row]) if part)


class ChromaEngine(Engine):
    """chromadb.PersistentClient (embedded, on disk), HNSW with cosine space; dense only (Chroma's own
    full-text search is a `$contains` filter, not a ranking)."""

    modes = ("dense",)

    def __init__(self, folder: Path) -> None:
        import chromadb
        from chromadb.config import Settings

        self.client = chromadb.PersistentClient(path=str(folder), settings=Settings(anonymized_telemetry=False))
        self.collection = self.client.create_collection("chunks", embedding_function=None,
                                                        configuration={"hnsw": {"space": "cosine"}})

    def build(self, work: Work, rows: Sequence[int]) -> None:
        for start in range(0, len(rows), BATCH):
            batch = list(rows[start : start + BATCH])
            self.collection.add(ids=[work.doc_keys[r] for r in batch], embeddings=work.vectors[batch],
                                documents=[lexical_text(work, r) for r in batch])

    def search(self, mode: str, text: str, vector: np.ndarray) -> list[str]:
        found = self.collection.query(query_embeddings=vector[None, :], n_results=DEPTH, include=["documents"])
        return list(found["ids"][0])

    def update(self, work: Work, row: int, vector: np.ndarray) -> None:
        self.collection.upsert(ids=[work.doc_keys[row]], embeddings=vector[None, :],
                               documents=[lexical_text(work, row)])

    def delete(self, work: Work, row: int) -> None:
        self.collection.delete(ids=[work.doc_keys[row]])


class LanceEngine(Engine):
    """lancedb (embedded, Lance files on disk): exact vector search (no ANN index: flat scan, as ours),
    its native full-text (BM25) index on "title. text", and hybrid = both fused by its default RRF."""

    modes = ("hybrid", "fts", "dense")

    def __init__(self, folder: Path) -> None:
        import lancedb

        self.db = lancedb.connect(str(folder))
        self.table: Any = None

    def _rows(self, work: Work, rows: Sequence[int], vectors: np.ndarray) -> Any:
        import pyarrow as pa

        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
        return pa.table({"id": [work.doc_keys[r] for r in rows], "content": [lexical_text(work, r) for r in rows],
                         "vector": pa.FixedSizeListArray.from_arrays(flat, vectors.shape[1])})

    def build(self, work: Work, rows: Sequence[int]) -> None:
        for start in range(0, len(rows), BATCH):
            batch = list(rows[start : start + BATCH])
            data = self._rows(work, batch, work.vectors[batch])
            if self.table is None:
                self.table = self.db.create_table("chunks", data=data)
            else:
                self.table.add(data)
        self.table.create_fts_index("content")

    def search(self, mode: str, text: str, vector: np.ndarray) -> list[str]:
        words = " ".join(_WORDS.findall(text))  # its query parser refuses some punctuation
        if mode == "dense":
            query = self.table.search(vector, vector_column_name="vector").distance_type("cosine")
        elif mode == "fts":
            query = self.table.search(words, query_type="fts")
        else:
            query = self.table.search(query_type="hybrid").vector(vector).text(words)
        return [str(key) for key in query.limit(DEPTH).select(["id", "content"]).to_arrow()["id"].to_pylist()]

    def update(self, work: Work, row: int, vector: np.ndarray) -> None:
        (self.table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
         .execute(self._rows(work, [row], vector[None, :])))

    def delete(self, work: Work, row: int) -> None:
        self.table.delete(f"id = '{work.doc_keys[row]}'")


class QdrantEngine(Engine):
    """qdrant-client's local mode in memory (QdrantClient(":memory:"), in-process), cosine; dense only (its
    local mode has sparse vectors, but no BM25 of its own without fastembed's models). Nothing on disk.

    QdrantDiskEngine ("qdrant-disk", not in the default run) is the same mode persisted to a folder
    (QdrantClient(path=...)): it commits every point in a SQLite transaction of its own (qdrant_client/local/
    persistence.py), so a 50,000-point build waits for 50,000 syncs: 1,361 s wall for 51 CPU s in an earlier
    run (docs/benchmarks.md, "Peers"), 22 minutes a repetition: more than make bench-peers's whole budget."""

    modes = ("dense",)
    location = ":memory:"

    def __init__(self, folder: Path) -> None:
        from qdrant_client import QdrantClient, models

        self.models = models
        self.client = QdrantClient(location=":memory:") if self.location == ":memory:" else \
            QdrantClient(path=str(folder))
        self.client.create_collection("chunks", vectors_config=models.VectorParams(
            size=384, distance=models.Distance.COSINE))
        self.keys: list[str] = []

    def _points(self, work: Work, rows: Sequence[int], vectors: np.ndarray) -> list[Any]:
        return [self.models.PointStruct(id=row, vector=vector.tolist(), payload={"text": lexical_text(work, row)})
                for row, vector in zip(rows, vectors, strict=True)]

    def build(self, work: Work, rows: Sequence[int]) -> None:
        self.keys = work.doc_keys
        for start in range(0, len(rows), BATCH):
            batch = list(rows[start : start + BATCH])
            self.client.upsert("chunks", points=self._points(work, batch, work.vectors[batch]))

    def search(self, mode: str, text: str, vector: np.ndarray) -> list[str]:
        found = self.client.query_points("chunks", query=vector.tolist(), limit=DEPTH, with_payload=True)
        return [self.keys[int(point.id)] for point in found.points]

    def update(self, work: Work, row: int, vector: np.ndarray) -> None:
        self.client.upsert("chunks", points=self._points(work, [row], vector[None, :]))

    def delete(self, work: Work, row: int) -> None:
        self.client.delete("chunks", points_selector=self.models.PointIdsList(points=[row]))


class QdrantDiskEngine(QdrantEngine):
    location = "path"


class Bm25sEngine(Engine):
    """bm25s (BM25 as scipy sparse matrices), English stop words, PyStemmer's English Snowball stemmer,
    saved to the folder. Its index is static: it has no update or delete (a change is a rebuild)."""

    modes = ("bm25",)

    def __init__(self, folder: Path) -> None:
        import bm25s
        import Stemmer

        self.bm25s, self.folder = bm25s, folder
        self.stemmer = Stemmer.Stemmer("english")
        self.retriever: Any = None
        self.keys: list[str] = []
        self.texts: list[str] = []

    def build(self, work: Work, rows: Sequence[int]) -> None:
        self.keys = [work.doc_keys[r] for r in rows]
        self.texts = [lexical_text(work, r) for r in rows]  # bm25s keeps no text: the caller's list
        tokens = self.bm25s.tokenize([lexical_text(work, r) for r in rows], stopwords="en", stemmer=self.stemmer,
                                     show_progress=False)
        self.retriever = self.bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)
        self.retriever.save(str(self.folder / "bm25s"))

    def search(self, mode: str, text: str, vector: np.ndarray) -> list[str]:
        query = self.bm25s.tokenize([text], stopwords="en", stemmer=self.stemmer, return_ids=False,
                                    show_progress=False)
        known = [[token for token in query[0] if token in self.retriever.vocab_dict]]
        if not known[0]:
            return []
        documents, _ = self.retriever.retrieve(known, k=min(DEPTH, len(self.keys)), show_progress=False,
                                               n_threads=1)
        hits = [(self.keys[int(position)], self.texts[int(position)]) for position in documents[0]]
        return [key for key, _ in hits]

    def update(self, work: Work, row: int, vector: np.ndarray) -> None:
        raise NotImplementedError("bm25s has no update: its index is rebuilt")

    def delete(self, work: Work, row: int) -> None:
        raise NotImplementedError("bm25s has no delete: its index is rebuilt")


ENGINES = {"chroma": ChromaEngine, "lancedb": LanceEngine, "qdrant": QdrantEngine, "qdrant-disk": QdrantDiskEngine,
           "bm25s": Bm25sEngine}
