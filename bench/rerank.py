"""The learned reranker's cost per query against the number of candidates; prints JSON.

    .venv/bin/python bench/rerank.py [--candidates 50 100 200] [--queries 200] [--models A.json B.json]
                                     [--cross-encoder-queries 5] [--without-feedback] [--baseline REV]

Each query is a SciFact claim (../shared/eval/scifact, or synthetic medical-ish text when absent) and its
candidates are SciFact abstracts cut to ~200 tokens (the size of an ingested chunk), with fused, BM25 and
cosine scores drawn at random in their ranges, best first. The time is `LearnedReranker.rerank` as the search
calls it: the features (query/rerank_features.py) and the trees (query/trees.py), as wall time and as this
process's CPU time (the figure a loaded machine distorts least). The per-passage caches are emptied before
every query, so each passage is read cold, as a Lambda sees new passages (the word -> term table stays
warm, as in a warm Lambda); `without_sub_scores` times the same candidates as an OpenSearch hybrid query
returns them (no BM25 or cosine). `--models` times several model files in one run, one after the other at
each candidate count (old against new on a loaded machine).

`--without-feedback` also times, at each candidate count, the same model with the pseudo-relevance feedback
features (query/rerank_prf.py) replaced by zeros: their share of the cost (the scores are then wrong).

`--baseline REV` times, at each candidate count, the scoring code as of git revision REV (query/rerank_features.py,
rerank_prf.py and trees.py read with `git show`, loaded beside today's) against today's, the shipped model file,
alternating which goes first query by query on the same cold candidates, and says whether every score is the
same to the last bit: same-run ratios for a change that must not change the ranking. Both read one word -> term
table, filled from the whole corpus first (a warm Lambda's), so neither pays for meeting a new word.

`--cross-encoder-queries N` also times, at each candidate count, the shipped MiniLM-L6 encoder (the
in-boundary embedder, int8 ONNX) reading every candidate joined to its question, as a cross-encoder of the
same size (ms-marco-MiniLM-L-6-v2 has this encoder's 6 layers and width) must read them: a floor on what
such a reranker costs here, whatever its weights (no PyPI package ships cross-encoder weights for offline use).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.models import Chunk, DocumentMetadata, SearchHit
from voiceassist.query import rerank_features
from voiceassist.query.rerank import MODEL_PATH, LearnedReranker
from voiceassist.query.rerank_features import forget_passages

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "scifact"
CHUNK_CHARS = 1100  # ~200 tokens of English


def load_texts() -> tuple[list[tuple[str, str]], list[str]]:
    if (SCIFACT / "corpus.jsonl").exists():
        with (SCIFACT / "corpus.jsonl").open() as corpus, (SCIFACT / "queries.jsonl").open() as queries:
            docs = [(r["title"], r["text"][:CHUNK_CHARS]) for r in map(json.loads, corpus)]
            return docs, [json.loads(line)["text"] for line in queries]
    rng = random.Random(7)
    words = ["aspirin", "warfarin", "metformin", "insulin", "asthma", "sepsis", "stroke", "dose", "renal",
             "trial", "risk", "patients", "cohort", "therapy", "mortality", "bleeding", "glucose"]
    docs = [(" ".join(rng.choices(words, k=8)), " ".join(rng.choices(words, k=180))) for _ in range(5000)]
    return docs, [" ".join(rng.choices(words, k=8)) for _ in range(500)]


def candidates(docs: list[tuple[str, str]], n: int, rng: random.Random, *, sub_scores: bool) -> list[SearchHit]:
    hits = []
    for rank, index in enumerate(rng.sample(range(len(docs)), n)):
        title, text = docs[index]
        key = f"doc{index}"
        chunk = Chunk(chunk_id=f"{key}_c0", doc_id=f"{key}_v1", doc_key=key, version=1, ordinal=rng.randrange(3),
                      text=text, token_count=len(text.split()), metadata=DocumentMetadata(doc_key=key, title=title))
        hits.append(SearchHit(chunk=chunk, score=1.0 - rank / n,
                              bm25_score=rng.uniform(2, 30) if sub_scores else None,
                              vector_score=rng.uniform(0.6, 0.85) if sub_scores else None,
                              opening_cosine=rng.uniform(0.1, 0.7)))  # both indexes give it
    return hits


def time_queries(reranker: LearnedReranker, docs: list[tuple[str, str]], queries: list[str], n: int,
                 count: int, *, sub_scores: bool) -> dict[str, float]:
    rng = random.Random(n)
    times, cpu = [], []
    for query in rng.sample(queries, min(count, len(queries))):
        hits = candidates(docs, n, rng, sub_scores=sub_scores)
        forget_passages()
        started, started_cpu = time.perf_counter(), time.process_time()
        reranker.rerank(query, hits, top_k=10)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return {"p50_ms": _percentile(times, 0.5), "p95_ms": _percentile(times, 0.95),
            "cpu_p50_ms": _percentile(cpu, 0.5), "cpu_p95_ms": _percentile(cpu, 0.95)}


def time_pair_encoder(docs: list[tuple[str, str]], queries: list[str], n: int, count: int) -> dict[str, float]:
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    encoder = OnnxEmbedder()
    encoder.embed(["warm up"])
    rng = random.Random(n)
    times, cpu = [], []
    for query in rng.sample(queries, min(count, len(queries))):
        pairs = [f"{query} {docs[i][1]}" for i in rng.sample(range(len(docs)), n)]
        started, started_cpu = time.perf_counter(), time.process_time()
        encoder.embed(pairs)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return {"p50_ms": _percentile(times, 0.5), "cpu_p50_ms": _percentile(cpu, 0.5), "queries": len(times)}


def time_without_feedback(docs: list[tuple[str, str]], queries: list[str], n: int, count: int) -> dict[str, float]:
    computed = rerank_features.prf_features
    rerank_features.prf_features = lambda terms, owner, scores, size: (np.zeros(size), np.zeros(size))
    try:
        return time_queries(LearnedReranker(), docs, queries, n, count, sub_scores=True)
    finally:
        rerank_features.prf_features = computed


Scorer = Callable[[str, list[SearchHit]], np.ndarray]
QUERY_PACKAGE = "layers/core/python/voiceassist/query"


def baseline_scorer(revision: str) -> tuple[Scorer, Callable[[], None]]:
    """The model's scores as the code of `revision` computes them, and that code's forget_passages."""
    root = Path(__file__).resolve().parents[1]
    loaded: dict[str, types.ModuleType] = {}
    for name in ("rerank_prf", "trees", "rerank_features"):
        source = subprocess.run(["git", "show", f"{revision}:{QUERY_PACKAGE}/{name}.py"], cwd=root, check=True,
                                capture_output=True, text=True).stdout
        for other in loaded:
            source = source.replace(f"voiceassist.query.{other}", f"_baseline_{other}")
        module = types.ModuleType(f"_baseline_{name}")
        sys.modules[module.__name__] = module  # dataclasses look their module up
        exec(compile(source, f"{revision}:{name}.py", "exec"), module.__dict__)  # noqa: S102 - our own file
        loaded[name] = module
    old_features, old_trees = loaded["rerank_features"], loaded["trees"]
    vars(old_features)["_IDS"] = vars(rerank_features)["_IDS"]  # one word -> term table: the same ids and work
    model = old_trees.load(MODEL_PATH)[0]
    return (lambda query, hits: model.predict(old_features.features(query, hits))), old_features.forget_passages


def time_against_baseline(reranker: LearnedReranker, baseline: tuple[Scorer, Callable[[], None]],
                          docs: list[tuple[str, str]], queries: list[str], n: int, count: int) -> dict[str, Any]:
    """Process CPU of the baseline's scores and today's on the same cold candidates, alternating the order."""
    old_scores, old_forget = baseline
    rng = random.Random(n)
    cpu: dict[str, list[float]] = {"baseline": [], "today": []}
    same = 0
    for query in rng.sample(queries, min(count, len(queries))):
        hits = candidates(docs, n, rng, sub_scores=rng.random() < 0.5)
        scored = {}
        for name in ("baseline", "today") if rng.random() < 0.5 else ("today", "baseline"):
            forget_passages()
            old_forget()
            score: Scorer = old_scores if name == "baseline" else reranker.scores
            started = time.process_time()
            scored[name] = score(query, hits)
            cpu[name].append((time.process_time() - started) * 1000)
        same += bool(np.array_equal(scored["baseline"], scored["today"]))
    report: dict[str, Any] = {name: {"cpu_p50_ms": _percentile(v, 0.5), "cpu_p95_ms": _percentile(v, 0.95)}
                              for name, v in cpu.items()}
    for key in ("cpu_p50_ms", "cpu_p95_ms"):
        report[f"ratio_{key.removeprefix('cpu_')}"] = round(report["baseline"][key] / report["today"][key], 2)
    report["same_scores"] = f"{same}/{len(cpu['today'])}"
    return report


def against_baseline(revision: str, docs: list[tuple[str, str]], queries: list[str], sizes: list[int],
                     count: int) -> dict[str, Any]:
    baseline = baseline_scorer(revision)
    warm_word_table(docs, queries)
    reranker = LearnedReranker()
    time_against_baseline(reranker, baseline, docs, queries, 20, 5)  # warm-up
    return {"queries": count, "baseline": revision,
            **{str(n): time_against_baseline(reranker, baseline, docs, queries, n, count) for n in sizes}}


def warm_word_table(docs: list[tuple[str, str]], queries: list[str]) -> None:
    """Every word of the corpus into the word -> term table (as a warm Lambda has met them), passages forgotten."""
    for title, text in docs:
        rerank_features.word_ids(title)
        rerank_features.word_ids(text)
    for query in queries:
        rerank_features.word_ids(query)
    forget_passages()


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return round(ordered[int(fraction * (len(ordered) - 1))], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--models", type=Path, nargs="+", default=[MODEL_PATH], help="model files (default: shipped)")
    parser.add_argument("--cross-encoder-queries", type=int, default=0,
                        help="also time the MiniLM encoder over question-passage pairs for this many queries")
    parser.add_argument("--without-feedback", action="store_true",
                        help="also time the shipped model with the feedback features replaced by zeros")
    parser.add_argument("--baseline", metavar="REV",
                        help="also time the scoring code of this git revision against today's (same model file)")
    args = parser.parse_args()
    docs, queries = load_texts()
    if args.baseline:
        print(json.dumps(against_baseline(args.baseline, docs, queries, args.candidates, args.queries), indent=2))
        return
    rerankers = {str(path): LearnedReranker(path) for path in args.models}
    for reranker in rerankers.values():
        time_queries(reranker, docs, queries, 20, 5, sub_scores=True)  # warm-up: imports, the model file
    report: dict[str, Any] = {"queries": args.queries, "model": "lambdamart"}
    for n in args.candidates:
        for path, reranker in rerankers.items():
            timed = {"with_sub_scores": time_queries(reranker, docs, queries, n, args.queries, sub_scores=True),
                     "without_sub_scores": time_queries(reranker, docs, queries, n, args.queries, sub_scores=False)}
            if len(rerankers) == 1:
                report[str(n)] = timed
            else:
                report.setdefault(str(n), {})[path] = timed
        if args.without_feedback:
            report.setdefault("without_feedback", {})[str(n)] = time_without_feedback(docs, queries, n, args.queries)
        if args.cross_encoder_queries:
            report.setdefault("minilm_pair_encoder_floor", {})[str(n)] = time_pair_encoder(
                docs, queries, n, args.cross_encoder_queries)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
