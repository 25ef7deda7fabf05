"""Throughput and load time of the local embedder (OnnxEmbedder, all-MiniLM-L6-v2); prints JSON.

    .venv/bin/python bench/embed.py [--precision int8 fp32] [--threads 2] [--beir ../shared/eval/scifact]
                                    [--graph-ops]

Short sentences (~15 words) and abstract-length passages (~230 words, cut at the model's 254 word pieces)
are generated from a fixed medical vocabulary, so the numbers need no data set. `--beir FOLDER` also embeds
that BEIR corpus ("title text", as BEIR does) and its judged queries, and reports the corpus time and dense
nDCG@10 by exact cosine: for SciFact the published all-MiniLM-L6-v2 figure is 0.645 on its test split.
The machine is shared, so wall-clock rates move with other people's load: `matmul_gflops` (numpy on the
same cores just before) says how busy it was, and `texts_per_cpu_second` is the load-independent figure
(times the number of cores, it is the rate of an idle machine). Each precision is its own embedder; the
timed runs alternate between them, so both see the same load, and `cosine_to_fp32` compares their vectors.
`--graph-ops` adds onnxruntime's own profile of one passage on one thread: milliseconds per operator type.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from voiceassist_local.evaluation.retrieval import load_beir, ndcg_at_k

from voiceassist.adapters.onnx.embedder import OnnxEmbedder, default_model_dir, load_session
from voiceassist.ports import Vectors

VOCABULARY = (
    "patient", "patients", "treatment", "therapy", "dose", "doses", "mg", "daily", "risk", "increased",
    "reduced", "trial", "randomized", "cohort", "mortality", "blood", "pressure", "hypertension",
    "diabetes", "insulin", "glucose", "renal", "hepatic", "cardiac", "infarction", "stroke",
    "infection", "antibiotic", "sepsis", "fever", "inflammation", "cytokine", "receptor", "expression",
    "protein", "gene", "mutation", "tumor", "cancer", "metastasis", "chemotherapy", "survival",
    "outcome", "adverse", "events", "placebo", "significantly", "associated", "with", "in", "the", "of",
    "and", "to", "a", "was", "were", "after", "before", "compared", "among", "children", "adults",
    "women", "men", "years", "months", "weeks",
)


def synthetic_texts(count: int, words: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(VOCABULARY) for _ in range(words)).capitalize() + "." for _ in range(count)]


def matmul_gflops(seconds: float = 1.0) -> float:
    """fp32 matrix-multiply rate the cores deliver right now (the embedder's work is mostly this)."""
    left = np.random.default_rng(0).random((2048, 384), dtype=np.float32)
    right = np.random.default_rng(1).random((384, 1536), dtype=np.float32)
    runs, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        left @ right
        runs += 1
    return round(runs * 2 * 2048 * 384 * 1536 / (time.perf_counter() - started) / 1e9, 1)


def throughput(embedders: dict[str, OnnxEmbedder], texts: list[str], repeats: int) -> dict[str, Any]:
    """Best wall and CPU time of `repeats` runs per embedder, alternating embedders run by run."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in embedders}
    vectors: dict[str, Vectors] = {}
    for _ in range(repeats):
        for name, embedder in embedders.items():
            timing, vectors[name] = timed_embed(embedder, texts)
            runs[name].append(timing)
    some = next(iter(embedders.values()))
    tokens = [min(some.count_tokens(text), some.max_tokens) + 2 for text in texts]
    report: dict[str, Any] = {"texts": len(texts), "mean_tokens": round(float(np.mean(tokens)), 1)}
    for name, timings in runs.items():
        wall, cpu = min(run[0] for run in timings), min(run[1] for run in timings)
        report[name] = {"texts_per_second": round(len(texts) / wall, 1),
                        "tokens_per_second": round(sum(tokens) / wall),
                        "texts_per_cpu_second": round(len(texts) / cpu, 1)}
        if "fp32" in vectors and name != "fp32":
            report[name]["cosine_to_fp32"] = round(float(np.mean(np.sum(vectors[name] * vectors["fp32"], axis=1))), 5)
    return report


def timed_embed(embedder: OnnxEmbedder, texts: list[str]) -> tuple[tuple[float, float], Vectors]:
    """Wall and CPU seconds of one embed call (no thread spins, so CPU seconds are work done)."""
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = embedder.embed(texts)
    return (time.perf_counter() - wall, time.process_time() - cpu), vectors


def beir_run(embedder: OnnxEmbedder, folder: Path) -> dict[str, Any]:
    dataset = load_beir(folder)
    doc_ids = list(dataset.corpus)
    (corpus_seconds, corpus_cpu_seconds), documents = timed_embed(
        embedder, [f"{title} {text}".strip() for title, text in dataset.corpus.values()])
    query_ids = list(dataset.queries)
    queries = embedder.embed([dataset.queries[query_id] for query_id in query_ids])
    top = np.argsort(-(queries @ documents.T), axis=1)[:, :10]
    ndcg = [ndcg_at_k([doc_ids[i] for i in ranked], dataset.qrels[query_id])
            for query_id, ranked in zip(query_ids, top, strict=True)]
    return {"folder": str(folder), "documents": len(doc_ids), "corpus_seconds": round(corpus_seconds, 1),
            "corpus_cpu_seconds": round(corpus_cpu_seconds, 1), "queries": len(query_ids),
            "ndcg@10": round(float(np.mean(ndcg)), 4)}


def graph_ops(embedder: OnnxEmbedder, text: str, runs: int = 30) -> dict[str, Any]:
    """Kernel milliseconds per operator type for one text, from onnxruntime's profiler (one thread)."""
    session = load_session(default_model_dir(), embedder.precision, profile=True)
    tokens = min(embedder.count_tokens(text), embedder.max_tokens) + 2
    ids = np.array([[101, *range(2000, 2000 + tokens - 2), 102]], dtype=np.int64)  # [CLS] ... [SEP]
    for _ in range(runs):
        session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    profile = Path(session.end_profiling())
    totals: collections.Counter[str] = collections.Counter()
    for event in json.loads(profile.read_text()):
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            totals[event["args"]["op_name"]] += event["dur"]
    os.remove(profile)
    return {"tokens": tokens, "ms_per_text": round(sum(totals.values()) / runs / 1000, 2),
            "ms_by_op": {op: round(micros / runs / 1000, 2) for op, micros in totals.most_common()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--precision", nargs="+", choices=("int8", "fp32"), default=["int8", "fp32"])
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads (default: all CPUs)")
    parser.add_argument("--beir", type=Path, default=None, help="a BEIR folder to embed and score")
    parser.add_argument("--graph-ops", action="store_true", help="profile one passage per operator type")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per workload; the best counts")
    args = parser.parse_args()

    embedders: dict[str, OnnxEmbedder] = {}
    load_seconds: dict[str, dict[str, float]] = {}
    for precision in args.precision:
        embedder = embedders[precision] = OnnxEmbedder(precision=precision, threads=args.threads)
        started = time.perf_counter()
        embedder.count_tokens("warm up the tokenizer")
        tokenizer_seconds = time.perf_counter() - started
        started = time.perf_counter()
        embedder.embed(["warm up the encoder"])
        load_seconds[precision] = {"tokenizer": round(tokenizer_seconds, 3),
                                   "encoder": round(time.perf_counter() - started, 3)}

    report: dict[str, Any] = {
        "model_ids": {name: embedder.model_id for name, embedder in embedders.items()},
        "threads": args.threads,
        "matmul_gflops": matmul_gflops(),
        "load_seconds": load_seconds,
        "short_sentences": throughput(embedders, synthetic_texts(512, 15, seed=1), args.repeats),
        "passages": throughput(embedders, synthetic_texts(96, 230, seed=2), args.repeats),
    }
    if args.graph_ops:
        passage = synthetic_texts(1, 130, seed=3)[0]
        report["graph_ops"] = {name: graph_ops(embedder, passage) for name, embedder in embedders.items()}
    if args.beir is not None:
        report["beir"] = {name: beir_run(embedder, args.beir) for name, embedder in embedders.items()}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
