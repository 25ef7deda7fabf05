"""Retrieval evaluation on a BEIR-format folder: nDCG@k, Recall@k, MRR@k per search mode and fusion weight.

Metrics follow BEIR (pytrec_eval): nDCG with linear gain (the graded judgement) and log2 discount, the ideal
ranking built from every judged document; Recall counts judgements above zero. Each corpus document becomes
one chunk (title as metadata, text as chunk text), or several with `chunk_tokens`; a chunk is embedded as
"title. text". Documents are ranked by their best chunk. Query enhancement (`rewrite`) and result
post-processing (`postprocess`) are evaluated by passing them to `evaluate`; `CachedEmbedder` keeps
vectors in a SQLite file so repeated evaluations embed each text once.

    .venv/bin/python -m voiceassist_local.evaluation.retrieval ../shared/eval/scifact --cache /tmp/vectors.sqlite3
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.ingest.chunking import chunk_document
from voiceassist.models import Chunk, DocumentMetadata, FusionMethod, Page, SearchHit, SearchMode, SearchQuery
from voiceassist.ports import Embedder, SearchIndex, Vectors
from voiceassist.query.expansion import CLINICAL_ABBREVIATIONS, expand_abbreviations
from voiceassist.query.rerank import IdentityReranker
from voiceassist.query.search import drop_near_duplicates, limit_chunks_per_document

DEFAULT_WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
QueryRewrite = Callable[[str], str]
PostProcess = Callable[[str, list[SearchHit]], list[SearchHit]]  # (query text, hits best first) -> hits


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


def rank_documents(hits: Iterable[SearchHit]) -> list[str]:
    """Documents in order of their best chunk."""
    return list(dict.fromkeys(hit.chunk.doc_key for hit in hits))


class CachedEmbedder:
    """An Embedder that keeps every vector it computes in a SQLite file, keyed by model and text."""

    def __init__(self, embedder: Embedder, path: Path, *, batch_size: int = 64) -> None:
        self._embedder, self._batch_size = embedder, batch_size
        self.model_id, self.dimension = embedder.model_id, embedder.dimension
        self.max_tokens, self.in_boundary = embedder.max_tokens, embedder.in_boundary
        self._db = sqlite3.connect(path)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def embed(self, texts: Sequence[str]) -> Vectors:
        keys = [hashlib.sha256(f"{self.model_id}\n{text}".encode()).hexdigest() for text in texts]
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            wanted = keys[start : start + 500]
            found |= dict(self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN"
                                           f" ({','.join('?' * len(wanted))})", wanted).fetchall())
        missing = list({key: text for key, text in zip(keys, texts, strict=True) if key not in found}.items())
        for start in range(0, len(missing), self._batch_size):
            batch = missing[start : start + self._batch_size]
            vectors = np.asarray(self._embedder.embed([text for _, text in batch]), dtype=np.float32)
            rows = [(key, vector.tobytes()) for (key, _), vector in zip(batch, vectors, strict=True)]
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            self._db.commit()
            found |= dict(rows)
        return np.stack([np.frombuffer(found[key], dtype=np.float32) for key in keys])

    def count_tokens(self, text: str) -> int:
        return self._embedder.count_tokens(text)


def index_corpus(index: SearchIndex, embedder: Embedder, dataset: BeirDataset, *, batch_size: int = 256,
                 chunk_tokens: int | None = None) -> int:
    """Every corpus document as searchable chunks (doc id = doc_key); returns the number of chunks."""
    ids = list(dataset.corpus)
    total = 0
    for start in range(0, len(ids), batch_size):
        chunks = [chunk for doc_id in ids[start : start + batch_size]
                  for chunk in _chunks(doc_id, *dataset.corpus[doc_id], chunk_tokens=chunk_tokens)]
        index.index(chunks, embedder.embed([". ".join(p for p in (c.metadata.title, c.text) if p) for c in chunks]))
        for doc_key in dict.fromkeys(chunk.doc_key for chunk in chunks):
            index.activate(doc_key, 1)
        total += len(chunks)
    return total


def search_runs(weights: Iterable[float] = DEFAULT_WEIGHTS) -> dict[str, dict[str, Any]]:
    """bm25, dense, hybrid min-max at each BM25 weight, and hybrid RRF: SearchQuery settings by run name."""
    runs: dict[str, dict[str, Any]] = {"bm25": {"mode": SearchMode.BM25}, "dense": {"mode": SearchMode.DENSE}}
    runs |= {f"hybrid_min_max_w{w:.2f}": {"bm25_weight": w} for w in weights}
    runs["hybrid_rrf"] = {"fusion": FusionMethod.RRF}
    return runs


def evaluate(index: SearchIndex, embedder: Embedder, dataset: BeirDataset, *,
             runs: Mapping[str, Mapping[str, Any]] | None = None, weights: Iterable[float] = DEFAULT_WEIGHTS,
             depth: int = 100, rewrite: QueryRewrite | None = None, postprocess: PostProcess | None = None
             ) -> dict[str, dict[str, float]]:
    """Mean nDCG@10, Recall@100, MRR@10 and the first-10-hits metrics of each run (search_runs(weights)
    unless `runs` is given). `context_recall@10` and `context_ndcg@10` judge the documents of the first ten
    hits, which a multi-chunk document can crowd; `kept@10` counts the hits post-processing leaves there."""
    query_ids = list(dataset.queries)
    texts = [rewrite(dataset.queries[q]) if rewrite else dataset.queries[q] for q in query_ids]
    vectors = embedder.embed(texts)
    report = {}
    for name, settings in (search_runs(weights) if runs is None else runs).items():
        totals: dict[str, float] = {}
        for query_id, text, vector in zip(query_ids, texts, vectors, strict=True):
            query = SearchQuery(text=text, vector=vector.tolist(), top_k=depth, candidates=depth, **settings)
            hits = index.search(query)
            if postprocess is not None:
                hits = postprocess(text, hits)
            for metric, value in _metrics(hits, dataset.qrels[query_id]).items():
                totals[metric] = totals.get(metric, 0.0) + value
        report[name] = {metric: round(total / len(query_ids), 4) for metric, total in totals.items()}
    return report


def postprocessing_candidates() -> dict[str, PostProcess]:
    """The result post-processing steps evaluated against the plain hybrid ranking."""
    reranker = IdentityReranker()
    candidates: dict[str, PostProcess] = {f"near_duplicates_{t}": _without_near_duplicates(t) for t in (0.5, 0.8)}
    candidates |= {f"min_score_{s}": _at_least(s) for s in (0.1, 0.2, 0.3, 0.4)}
    candidates |= {f"at_most_{n}_per_document": _at_most_per_document(n) for n in (1, 2)}
    candidates["rerank_identity"] = lambda text, hits: reranker.rerank(text, hits, top_k=len(hits))
    return candidates


def _without_near_duplicates(threshold: float) -> PostProcess:
    return lambda _, hits: drop_near_duplicates(hits, threshold=threshold)


def _at_least(score: float) -> PostProcess:
    return lambda _, hits: [hit for hit in hits if hit.score >= score]


def _at_most_per_document(limit: int) -> PostProcess:
    return lambda _, hits: limit_chunks_per_document(hits, limit=limit)


def abbreviated(dataset: BeirDataset, abbreviations: Mapping[str, str] = CLINICAL_ABBREVIATIONS) -> BeirDataset:
    """The queries that spell out a known abbreviation's long form, written with the abbreviation instead
    ("... in chronic kidney disease (CKD)" -> "... in CKD"), as a clinician would type them."""
    long_forms: dict[str, str] = {}
    for short, long in abbreviations.items():
        long_forms.setdefault(long.casefold(), short)
    pattern = re.compile(r"\b(" + "|".join(re.escape(long) for long in sorted(long_forms, key=len, reverse=True))
                         + r")\b(\s*\([^)]*\))?", re.IGNORECASE)
    queries = {query_id: pattern.sub(lambda match: long_forms[match.group(1).casefold()], text)
               for query_id, text in dataset.queries.items() if pattern.search(text)}
    return BeirDataset(corpus=dataset.corpus, queries=queries, qrels={q: dataset.qrels[q] for q in queries})


EXPERIMENTS = ("baseline", "expansion", "abbreviated", "postprocessing")


def main(argv: list[str] | None = None) -> int:
    from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a BEIR folder: corpus.jsonl, queries.jsonl, qrels/")
    parser.add_argument("--cache", type=Path, required=True, help="SQLite file for vectors (not in the repo)")
    parser.add_argument("--chunk-tokens", type=int, help="split documents into chunks of this many tokens")
    parser.add_argument("--split", help="qrels split (default: test, else dev)")
    parser.add_argument("--experiments", nargs="+", choices=EXPERIMENTS, default=list(EXPERIMENTS))
    args = parser.parse_args(argv)
    dataset = load_beir(args.folder, split=args.split)
    embedder = CachedEmbedder(OnnxEmbedder(), args.cache)
    index = LocalHybridIndex(None, dimension=embedder.dimension)
    report: dict[str, Any] = {"queries": len(dataset.queries),
                              "chunks": index_corpus(index, embedder, dataset, chunk_tokens=args.chunk_tokens)}
    modes: dict[str, dict[str, Any]] = {"bm25": {"mode": SearchMode.BM25}, "dense": {"mode": SearchMode.DENSE},
                                        "hybrid": {}}
    if "baseline" in args.experiments:
        report["baseline"] = evaluate(index, embedder, dataset, runs=modes)
    if "expansion" in args.experiments:
        report["expanded"] = evaluate(index, embedder, dataset, runs=modes, rewrite=expand_abbreviations)
        report["queries_expanded"] = sum(expand_abbreviations(text) != text for text in dataset.queries.values())
    if "abbreviated" in args.experiments:
        shorthand = abbreviated(dataset)
        spelled_out = BeirDataset(dataset.corpus, {q: dataset.queries[q] for q in shorthand.queries}, shorthand.qrels)
        report["abbreviated"] = {
            "queries": len(shorthand.queries), "spelled_out": evaluate(index, embedder, spelled_out, runs=modes),
            "abbreviated": evaluate(index, embedder, shorthand, runs=modes),
            "abbreviated_expanded": evaluate(index, embedder, shorthand, runs=modes, rewrite=expand_abbreviations)}
    if "postprocessing" in args.experiments:
        for name, postprocess in postprocessing_candidates().items():
            report[name] = evaluate(index, embedder, dataset, runs={"hybrid": {}}, postprocess=postprocess)["hybrid"]
    index.close()
    print(json.dumps(report, indent=2))
    return 0


def _metrics(hits: list[SearchHit], judged: Mapping[str, int]) -> dict[str, float]:
    ranked, context = rank_documents(hits), rank_documents(hits[:10])
    return {"ndcg@10": ndcg_at_k(ranked, judged, 10), "recall@100": recall_at_k(ranked, judged, 100),
            "mrr@10": mrr_at_k(ranked, judged, 10), "context_ndcg@10": ndcg_at_k(context, judged, 10),
            "context_recall@10": recall_at_k(context, judged, 10), "kept@10": float(len(hits[:10]))}


def _chunks(doc_id: str, title: str, text: str, *, chunk_tokens: int | None) -> list[Chunk]:
    metadata = DocumentMetadata(doc_key=doc_id, title=title or doc_id)
    if chunk_tokens is None:
        return [Chunk(chunk_id=doc_id, doc_id=doc_id, doc_key=doc_id, version=1, ordinal=0, text=text,
                      token_count=len(text.split()), metadata=metadata)]
    return chunk_document([Page(number=None, text=text)], doc_id=doc_id, doc_key=doc_id, version=1,
                          metadata=metadata, max_tokens=chunk_tokens, overlap_tokens=chunk_tokens // 5)


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with path.open() as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


if __name__ == "__main__":
    raise SystemExit(main())
