"""Our two sides for bench/peer_engines/worker.py, through the real adapters (the project's .venv only).

VoiceAssistEngine is `LocalHybridIndex`, built the way `make run`'s composition builds it (a file in the data
folder, the embedder's model id recorded): each document is one chunk (title as metadata), indexed then
activated as the ingestion pipeline's Index and Finalize steps do; an update is a new version indexed and
activated, as a re-ingestion is; a delete is `delete_document`. Searches are `SearchQuery`s with the
query pipeline's defaults (min-max fusion, BM25 weight 0.5, 100 candidates per sub-query).
OpenSearchEngine is `OpenSearchIndex` on OPENSEARCH_URL (plain HTTP client, as the contract tests' live
backend), hybrid through its search pipeline; its disk size is the index's store size from _stats.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from worker import BATCH, DEPTH, Engine, Work

from voiceassist.constants.models import DIMENSION, model_id
from voiceassist.models import Chunk, DocumentMetadata, SearchMode, SearchQuery, SourceType
from voiceassist.ports import SearchIndex


def chunk(work: Work, row: int, version: int = 1) -> Chunk:
    key = work.doc_keys[row]
    metadata = DocumentMetadata(doc_key=key, title=work.titles[row] or key, source_type=SourceType.JOURNAL)
    return Chunk(chunk_id=f"{key}-v{version}-0", doc_id=f"{key}#v{version}", doc_key=key, version=version,
                 ordinal=0, token_count=work.word_counts[row], metadata=metadata,
                 text=work.texts[row] or work.titles[row] or key)


class _PortEngine(Engine):
    """Any SearchIndex: the port is all this uses."""

    modes = ("hybrid", "bm25", "dense")
    index: SearchIndex

    def build(self, work: Work, rows: Sequence[int]) -> None:
        for start in range(0, len(rows), BATCH):
            batch = rows[start : start + BATCH]
            self.index.index([chunk(work, row) for row in batch], work.vectors[batch])
            for row in batch:
                self.index.activate(work.doc_keys[row], 1)

    def search(self, mode: str, text: str, vector: np.ndarray) -> list[str]:
        query = SearchQuery(text=text, vector=vector.tolist(), mode=SearchMode(mode), top_k=DEPTH)
        return [hit.chunk.doc_key for hit in self.index.search(query)]

    def update(self, work: Work, row: int, vector: np.ndarray) -> None:
        self.index.index([chunk(work, row, version=2)], vector[None, :])
        self.index.activate(work.doc_keys[row], 2)

    def delete(self, work: Work, row: int) -> None:
        self.index.delete_document(work.doc_keys[row])


class VoiceAssistEngine(_PortEngine):
    def __init__(self, folder: Path) -> None:
        from voiceassist.adapters.local.hybrid_index import LocalHybridIndex

        self.local = LocalHybridIndex(folder / "index.sqlite3", dimension=DIMENSION, model_id=model_id("int8"))
        self.index = self.local

    def build(self, work: Work, rows: Sequence[int]) -> None:
        """The batch path bulk ingestion reaches: the Index steps' chunks in one `index` call (one transaction),
        the Finalize steps' activations in one `activate_many` (one transaction, one UPDATE), as the index's
        group commit writes the calls of concurrent executions (voiceassist.adapters.local.group_commit;
        `ingest-jsonl` gathers them into groups of up to 16, its executions under way)."""
        for start in range(0, len(rows), BATCH):
            batch = rows[start : start + BATCH]
            self.local.index([chunk(work, row) for row in batch], work.vectors[batch])
            self.local.activate_many([(work.doc_keys[row], 1) for row in batch])

    def close(self) -> None:
        self.local._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the size on disk is the database's


class OpenSearchEngine(_PortEngine):
    def __init__(self, folder: Path) -> None:
        from opensearchpy import OpenSearch

        from voiceassist.adapters.aws.opensearch_index import OpenSearchIndex

        self.client: Any = OpenSearch(hosts=[os.environ["OPENSEARCH_URL"]], verify_certs=False,
                                      ssl_show_warn=False, timeout=60)
        self.alias = f"peers-{uuid.uuid4().hex[:8]}"
        self.index = OpenSearchIndex(self.client, index_alias=self.alias, pipeline=f"{self.alias}-hybrid",
                                     dimension=DIMENSION)
        self.index.bootstrap()

    def disk_mb(self, folder: Path) -> float:
        self.client.indices.refresh(index=self.alias)
        stats = self.client.indices.stats(index=self.alias, metric="store")
        return float(stats["_all"]["primaries"]["store"]["size_in_bytes"]) / 1e6

    def drop(self) -> None:
        self.client.indices.delete(index=f"{self.alias}-v1", ignore=404)
        self.client.search_pipeline.delete(id=f"{self.alias}-hybrid", ignore=404)
