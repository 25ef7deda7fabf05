"""Search latency of the embedded index against corpus size; prints JSON.

    .venv/bin/python bench/search.py [--sizes 1000 10000 50000 100000] [--queries 100]

One index grows through the sizes (1k, then 10k, ...); at each size a second LocalHybridIndex opened on the
same file times its first search, which loads the in-memory copy (vectors and BM25 postings). Chunk texts
are ~200-token windows of SciFact abstracts (../shared/eval/scifact, sampled from a different sentence for
each pass over the corpus) or synthetic medical-ish text when that folder is absent; vectors are random
unit vectors of dimension 384, so no embedding is needed. Query texts are SciFact claims. Each document has
5 chunks and one active version, and 10% of documents also carry a hidden older version (as after
re-ingestion). Latencies exclude query embedding, which is timed separately with OnnxEmbedder when it can
be loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.models import Chunk, DocumentMetadata, SearchMode, SearchQuery, SourceType

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "scifact"
DIMENSION = 384
CHUNKS_PER_DOCUMENT = 5
CHUNK_CHARS = 1100  # ~200 tokens of English


def load_texts() -> tuple[list[str], list[str]]:
    if (SCIFACT / "corpus.jsonl").exists():
        with (SCIFACT / "corpus.jsonl").open() as corpus, (SCIFACT / "queries.jsonl").open() as queries:
            texts = [json.loads(line)["text"] for line in corpus]
            return texts, [json.loads(line)["text"] for line in queries]
    rng = random.Random(7)
    words = ["aspirin", "warfarin", "metformin", "insulin", "asthma", "sepsis", "stroke", "dose", "renal",
             "trial", "risk", "patients", "cohort", "therapy", "mortality", "bleeding", "glucose"]
    texts = [" ".join(rng.choices(words, k=180)) for _ in range(5000)]
    return texts, [" ".join(rng.choices(words, k=8)) for _ in range(500)]


def chunk_text(abstracts: list[str], n: int) -> str:
    sentences = abstracts[n % len(abstracts)].split(". ")
    start = (n // len(abstracts)) % max(1, len(sentences))
    return ". ".join(sentences[start:] + sentences[:start])[:CHUNK_CHARS]


def grow(index: LocalHybridIndex, abstracts: list[str], start_doc: int, end_doc: int, rng: np.random.Generator
         ) -> None:
    source_types = list(SourceType)
    for doc in range(start_doc, end_doc):
        key = f"doc-{doc}"
        versions = (1, 2) if doc % 10 == 0 else (1,)
        for version in versions:
            meta = DocumentMetadata(doc_key=key, title=f"Document {doc}", year=1990 + doc % 35,
                                    source_type=source_types[doc % len(source_types)],
                                    specialty=f"s{doc % 12}")
            chunks = [Chunk(chunk_id=f"{key}-v{version}-{i}", doc_id=f"{key}#v{version}", doc_key=key,
                            version=version, ordinal=i, token_count=200, metadata=meta,
                            text=chunk_text(abstracts, doc * CHUNKS_PER_DOCUMENT + i + version))
                      for i in range(CHUNKS_PER_DOCUMENT)]
            vectors = rng.standard_normal((len(chunks), DIMENSION)).astype(np.float32)
            index.index(chunks, vectors)
        index.activate(key, versions[-1])


def latency(index: LocalHybridIndex, queries: list[str], mode: SearchMode, rng: np.random.Generator
            ) -> dict[str, float]:
    """Wall-clock percentiles, and the process CPU time per search (both threads): the machine is shared,
    so wall time includes waiting for a core, CPU time does not."""
    timings, cpu_timings = [], []
    for text in queries:
        vector = rng.standard_normal(DIMENSION).astype(np.float32)
        query = SearchQuery(text=text, vector=(vector / np.linalg.norm(vector)).tolist(), mode=mode, top_k=10)
        started, cpu_started = time.perf_counter(), time.process_time()
        index.search(query)
        timings.append((time.perf_counter() - started) * 1000)
        cpu_timings.append((time.process_time() - cpu_started) * 1000)
    return {**percentiles(timings), "cpu_p50_ms": percentiles(cpu_timings)["p50_ms"],
            "cpu_p95_ms": percentiles(cpu_timings)["p95_ms"]}


def percentiles(timings: list[float]) -> dict[str, float]:
    ordered = sorted(timings)
    return {"p50_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2), "mean_ms": round(statistics.fmean(ordered), 2)}


def embedding_latency(queries: list[str]) -> dict[str, Any]:
    try:
        from voiceassist.adapters.onnx.embedder import OnnxEmbedder

        embedder = OnnxEmbedder()
        embedder.embed(queries[:2])  # load the model outside the timing
    except Exception as exc:  # the bench still reports search latency without an embedder
        return {"skipped": f"{type(exc).__name__}: {exc}"}
    timings = []
    for text in queries[:50]:
        started = time.perf_counter()
        embedder.embed([text])
        timings.append((time.perf_counter() - started) * 1000)
    return {"model": embedder.model_id, **percentiles(timings)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000, 100_000])
    parser.add_argument("--queries", type=int, default=100, help="queries per mode and size")
    args = parser.parse_args(argv)
    abstracts, query_texts = load_texts()
    queries = random.Random(11).sample(query_texts, min(args.queries, len(query_texts)))
    rng = np.random.default_rng(3)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        index = LocalHybridIndex(Path(folder) / "bench.sqlite3", dimension=DIMENSION)
        documents = 0
        for size in sorted(args.sizes):
            started = time.perf_counter()
            target = size // CHUNKS_PER_DOCUMENT
            grow(index, abstracts, documents, target, rng)
            documents = target
            row: dict[str, Any] = {"chunks_searchable": index.count(),
                                   "chunks_stored": index.count(searchable_only=False),
                                   "build_seconds": round(time.perf_counter() - started, 1)}
            warm_up = SearchQuery(text="warm up", vector=[1.0] + [0.0] * (DIMENSION - 1))
            reopened = LocalHybridIndex(Path(folder) / "bench.sqlite3", dimension=DIMENSION)
            started = time.perf_counter()
            reopened.search(warm_up)
            row["first_search_seconds"] = round(time.perf_counter() - started, 2)
            reopened.close()
            index.search(warm_up)  # loads this index's copy outside the timings
            row["load_average_1min"] = round(os.getloadavg()[0], 1)  # other work on the machine
            for mode in SearchMode:
                row[mode.value] = latency(index, queries, mode, rng)
            results.append(row)
            print(json.dumps(row), file=sys.stderr)
        index.close()
    print(json.dumps({"search": results, "query_embedding": embedding_latency(queries)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
