"""Retrieval evaluation on a BEIR-format folder: nDCG@k, Recall@k, MRR@k per search mode and fusion weight.

Metrics follow BEIR (pytrec_eval): nDCG with linear gain (the graded judgement) and log2 discount, the ideal
ranking built from every judged document; Recall counts judgements above zero. Each corpus document becomes
one chunk (title as metadata, text as chunk text), embedded as "title. text".
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceassist.models import Chunk, DocumentMetadata, FusionMethod, SearchMode, SearchQuery
from voiceassist.ports import Embedder, SearchIndex

DEFAULT_WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


@dataclass(frozen=True)
class BeirDataset:
    corpus: dict[str, tuple[str, str]]  # doc id -> (title, text)
    queries: dict[str, str]  # query id -> text, only queries that have judgements
    qrels: dict[str, dict[str, int]]  # query id -> doc id -> grade


def load_beir(folder: Path, *, split: str | None = None) -> BeirDataset:
    """corpus.jsonl, queries.jsonl and qrels/<split>.tsv (test, else dev, when split is None)."""
    if split is None:
        existing = [s for s in ("test", "dev", "train") if (folder / "qrels" / f"{s}.tsv").exists()]
        split = existing[0] if existing else "test"
    qrels: dict[str, dict[str, int]] = {}
    with (folder / "qrels" / f"{split}.tsv").open() as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    corpus = {}
    for record in _jsonl(folder / "corpus.jsonl"):
        corpus[str(record["_id"])] = (record.get("title") or "", record.get("text") or "")
    queries = {str(r["_id"]): r["text"] for r in _jsonl(folder / "queries.jsonl") if str(r["_id"]) in qrels}
    return BeirDataset(corpus=corpus, queries=queries, qrels={q: qrels[q] for q in queries})


def ndcg_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    gains = sum(judged.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sum(g / math.log2(rank + 2) for rank, g in enumerate(sorted(judged.values(), reverse=True)[:k]))
    return gains / ideal if ideal > 0 else 0.0


def recall_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 100) -> float:
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def mrr_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    return next((1.0 / (rank + 1) for rank, doc in enumerate(ranked[:k]) if judged.get(doc, 0) > 0), 0.0)


def index_corpus(index: SearchIndex, embedder: Embedder, dataset: BeirDataset, *, batch_size: int = 64,
                 progress: Callable[[int, int], None] | None = None) -> None:
    """One searchable chunk per corpus document (doc id = doc_key)."""
    ids = list(dataset.corpus)
    for start in range(0, len(ids), batch_size):
        batch = ids[start : start + batch_size]
        chunks = [_chunk(doc_id, *dataset.corpus[doc_id]) for doc_id in batch]
        vectors = embedder.embed([". ".join(p for p in dataset.corpus[d] if p) for d in batch])
        index.index(chunks, vectors)
        for doc_id in batch:
            index.activate(doc_id, 1)
        if progress:
            progress(start + len(batch), len(ids))


def evaluate(index: SearchIndex, embedder: Embedder, dataset: BeirDataset, *,
             weights: Iterable[float] = DEFAULT_WEIGHTS, depth: int = 100) -> dict[str, dict[str, float]]:
    """Mean nDCG@10, Recall@100 and MRR@10 for bm25, dense, hybrid min-max at each BM25 weight, and RRF."""
    query_ids = list(dataset.queries)
    vectors = embedder.embed([dataset.queries[q] for q in query_ids])
    runs: dict[str, dict[str, Any]] = {"bm25": {"mode": SearchMode.BM25}, "dense": {"mode": SearchMode.DENSE}}
    runs |= {f"hybrid_min_max_w{w:.2f}": {"bm25_weight": w} for w in weights}
    runs["hybrid_rrf"] = {"fusion": FusionMethod.RRF}
    report = {}
    for name, settings in runs.items():
        totals = {"ndcg@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
        for query_id, vector in zip(query_ids, vectors, strict=True):
            query = SearchQuery(text=dataset.queries[query_id], vector=vector.tolist(), top_k=depth,
                                candidates=depth, **settings)
            ranked = [hit.chunk.doc_key for hit in index.search(query)]
            judged = dataset.qrels[query_id]
            totals["ndcg@10"] += ndcg_at_k(ranked, judged, 10)
            totals["recall@100"] += recall_at_k(ranked, judged, 100)
            totals["mrr@10"] += mrr_at_k(ranked, judged, 10)
        report[name] = {metric: round(total / len(query_ids), 4) for metric, total in totals.items()}
    return report


def _chunk(doc_id: str, title: str, text: str) -> Chunk:
    metadata = DocumentMetadata(doc_key=doc_id, title=title or doc_id)
    return Chunk(chunk_id=doc_id, doc_id=doc_id, doc_key=doc_id, version=1, ordinal=0, text=text,
                 token_count=len(text.split()), metadata=metadata)


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with path.open() as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)
