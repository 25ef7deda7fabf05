"""Our search beside the embedded engines a user would pick instead, in one run; prints a table and JSON.

    make bench-peers                      # creates .artifacts/bench-venv with bench/peer_engines/requirements.txt
    .venv/bin/python bench/peers.py --venv .artifacts/bench-venv [--engines voiceassist chroma lancedb qdrant bm25s]
        [--datasets scifact nfcorpus scale] [--scale-chunks 50000] [--repetitions 3] [--timed-queries 200]

Engines: ours (`LocalHybridIndex`, the adapter `make run` uses; OpenSearch too when OPENSEARCH_URL is set)
run with the project's .venv; the peers (Chroma, LanceDB, Qdrant's local mode, bm25s: pinned in
bench/peer_engines/requirements.txt) with the benchmark's own virtual environment, never the project's. Each
(repetition, data set, engine) is a fresh process (bench/peer_engines/worker.py), engines alternating and their
order rotated every repetition, so every engine sees the same load; figures are medians of the
repetitions, with min-max.

Data: SciFact and NFCorpus from ../shared/eval (dev judgements; one chunk per document; --eval or
$VOICEASSIST_EVAL name another folder, and a worktree in a folder beside ../shared finds it too), and a synthetic
scale-up to --scale-chunks (both corpora repeated, each copy with 10 % of its words dropped and its vector
perturbed), timed with SciFact's queries. Vectors are all-MiniLM-L6-v2 from our ONNX encoder (int8, the
default), computed once and kept in .artifacts/bench-peers/vectors.sqlite3 (the same cache
`voiceassist_local.evaluation.retrieval --cache` reads); every engine gets the same vectors, and the
encoder's own cost is measured apart ("embedding"). Quality: nDCG@10 and Recall@100 of every mode an
engine has, on the dev judgements; its best mode (by nDCG@10) is the one timed in the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EVAL_VARIABLE = "VOICEASSIST_EVAL"  # a folder of BEIR data sets, when ../shared/eval is elsewhere


def eval_folder(environ: Mapping[str, str] = os.environ, root: Path = ROOT) -> Path:
    """The evaluation data: $VOICEASSIST_EVAL, else shared/eval beside the checkout, else beside the folder
    holding it (a worktree in /work/wt/NAME reads /work/shared/eval); the first place when none exists."""
    if environ.get(EVAL_VARIABLE):
        return Path(environ[EVAL_VARIABLE])
    beside = [parent / "shared" / "eval" for parent in (root.parent, root.parent.parent)]
    return next((folder for folder in beside if folder.is_dir()), beside[0])


OURS = ("voiceassist", "opensearch")  # run with the project's interpreter
PEERS = ("chroma", "lancedb", "qdrant", "bm25s")
DATASETS = ("scifact", "nfcorpus", "scale")
MODE_KINDS = {"bm25": "lexical", "fts": "lexical", "dense": "dense", "hybrid": "hybrid"}  # like against like


# ------------------------------------------------------------------------------------------ metrics


def ndcg_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    """BEIR's (pytrec_eval's) nDCG@k: linear gain of the graded judgement, log2 discount, the ideal ranking
    from every judged document; a document ranked twice counts once (at its first place)."""
    seen: set[str] = set()
    gains = 0.0
    for rank, doc in enumerate(ranked[:k]):
        if doc not in seen:
            gains += judged.get(doc, 0) / np.log2(rank + 2)
            seen.add(doc)
    ideal = sum(g / np.log2(rank + 2) for rank, g in enumerate(sorted(judged.values(), reverse=True)[:k]))
    return float(gains / ideal) if ideal > 0 else 0.0


def recall_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 100) -> float:
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def score_rankings(query_ids: Sequence[str], rankings: Sequence[Sequence[str]],
                   qrels: Mapping[str, Mapping[str, int]]) -> dict[str, float]:
    """Mean nDCG@10 and Recall@100 over the judged queries (a judged query with no ranking scores 0)."""
    judged = [(ranked, qrels[q]) for q, ranked in zip(query_ids, rankings, strict=True) if q in qrels]
    if not judged:
        return {"ndcg@10": 0.0, "recall@100": 0.0}
    return {"ndcg@10": statistics.fmean(ndcg_at_k(r, j) for r, j in judged),
            "recall@100": statistics.fmean(recall_at_k(r, j) for r, j in judged)}


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (share 0.95 -> p95)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(np.ceil(share * len(ordered))) - 1))]


def spread(values: Sequence[float | None]) -> dict[str, float] | None:
    """Median and min-max of the repetitions' figures (None when an engine has none)."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    return {"median": statistics.median(present), "min": min(present), "max": max(present), "n": len(present)}


def summarise(runs: Sequence[Mapping[str, Any]], qrels: Mapping[str, Mapping[str, int]] | None,
              query_ids: Sequence[str]) -> dict[str, Any]:
    """One engine on one data set over its repetitions: quality per mode, the best mode's timings."""
    quality: dict[str, dict[str, float]] = {}
    # The repetitions that ranked every query (the first; later ones ask the timed queries only).
    ranked = [run for run in runs if all(len(m["rankings"]) == len(query_ids) for m in run["modes"].values())]
    if qrels is not None and ranked:
        for mode in ranked[0]["modes"]:
            scores = [score_rankings(query_ids, run["modes"][mode]["rankings"], qrels) for run in ranked]
            quality[mode] = {m: statistics.median(s[m] for s in scores) for m in ("ndcg@10", "recall@100")}
    best = max(quality, key=lambda m: quality[m]["ndcg@10"]) if quality else next(iter(runs[0]["modes"]))

    def each(pick: Any) -> dict[str, float] | None:
        return spread([pick(run) for run in runs])

    def change(run: Mapping[str, Any], what: str) -> float | None:
        return None if run[what] is None else run[what]["ms_per_doc"]

    return {
        "chunks": runs[0]["chunks"], "repetitions": len(runs), "quality": quality, "best_mode": best,
        "build_s": each(lambda r: r["build_s"]), "build_cpu_s": each(lambda r: r["build_cpu_s"]),
        "first_query_cpu_s": each(lambda r: r.get("first_query_cpu_s")),  # part of build_cpu_s
        "build_rss_mb": each(lambda r: r["peak_rss_mb"] - r["rss_before_mb"]),
        "peak_rss_mb": each(lambda r: r["peak_rss_mb"]), "disk_mb": each(lambda r: r["disk_mb"]),
        "p50_ms": each(lambda r: percentile(r["modes"][best]["wall_ms"], 0.5)),
        "p95_ms": each(lambda r: percentile(r["modes"][best]["wall_ms"], 0.95)),
        "cpu_p50_ms": each(lambda r: percentile(r["modes"][best]["cpu_ms"], 0.5)),
        "qps_8_clients": each(lambda r: r["throughput_qps"]),
        "update_ms_per_doc": each(lambda r: change(r, "update")),
        "delete_ms_per_doc": each(lambda r: change(r, "delete")),
        "per_mode": {mode: {"kind": MODE_KINDS.get(mode, mode),
                            "p50_ms": each(lambda r, m=mode: percentile(r["modes"][m]["wall_ms"], 0.5)),
                            "p95_ms": each(lambda r, m=mode: percentile(r["modes"][m]["wall_ms"], 0.95)),
                            "cpu_p50_ms": each(lambda r, m=mode: percentile(r["modes"][m]["cpu_ms"], 0.5)),
                            "cpu_p95_ms": each(lambda r, m=mode: percentile(r["modes"][m]["cpu_ms"], 0.95))}
                     for mode in runs[0]["modes"]},
        "versions": runs[0].get("versions", {}),
    }


def _figure(value: Mapping[str, float] | None, digits: int = 1, with_spread: bool = True) -> str:
    if value is None:
        return "-"
    text = f"{value['median']:.{digits}f}"
    if with_spread and value["n"] > 1 and value["max"] > value["min"]:
        text += f" ({value['min']:.{digits}f}-{value['max']:.{digits}f})"
    return text


def table(summaries: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """A Markdown table: one row per data set and engine, medians with (min-max) of the repetitions."""
    lines = ["| data set (chunks) | engine | best mode | nDCG@10 | R@100 | build s | build CPU s | peak RSS MB"
             " | disk MB | p50 ms | p95 ms | CPU p50 ms | q/s, 8 clients | update ms/doc | delete ms/doc |",
             "|" + "---|" * 15]
    for dataset, engines in summaries.items():
        for engine, s in engines.items():
            best = s["quality"].get(s["best_mode"])
            ndcg, recall = ("-", "-") if best is None else (f"{best['ndcg@10']:.3f}", f"{best['recall@100']:.3f}")
            lines.append(" | ".join([
                f"| {dataset} ({s['chunks']:,})", engine, s["best_mode"], ndcg, recall, _figure(s["build_s"]),
                _figure(s["build_cpu_s"], with_spread=False), _figure(s["peak_rss_mb"], 0), _figure(s["disk_mb"], 0),
                _figure(s["p50_ms"], 2), _figure(s["p95_ms"], 2), _figure(s["cpu_p50_ms"], 2, with_spread=False),
                _figure(s["qps_8_clients"], 0),
                _figure(s["update_ms_per_doc"], 2), _figure(s["delete_ms_per_doc"], 2)]) + " |")
    return "\n".join(lines)


def mode_table(summaries: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Latency of every mode of every engine, so a mode is compared with the same kind of search elsewhere."""
    lines = ["| data set | engine | mode | kind | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms |", "|" + "---|" * 8]
    for dataset, engines in summaries.items():
        for engine, s in engines.items():
            for mode, m in s.get("per_mode", {}).items():
                lines.append(" | ".join([f"| {dataset}", engine, mode, m["kind"], _figure(m["p50_ms"], 2),
                                         _figure(m["p95_ms"], 2), _figure(m["cpu_p50_ms"], 2, with_spread=False),
                                         _figure(m["cpu_p95_ms"], 2, with_spread=False)]) + " |")
    return "\n".join(lines)


def ratios(summaries: Mapping[str, Mapping[str, Mapping[str, Any]]], ours: str = "voiceassist") -> dict[str, Any]:
    """Per data set: our median over the best peer's (the fastest, or the highest nDCG@10); below 1 is ahead
    for times, above 1 is ahead for nDCG@10."""
    found: dict[str, Any] = {}
    for dataset, engines in summaries.items():
        if ours not in engines:
            continue
        mine, peers = engines[ours], {n: s for n, s in engines.items() if n not in OURS}
        row: dict[str, Any] = {}
        for figure in ("p95_ms", "cpu_p50_ms", "build_s", "build_cpu_s"):
            timed = {n: s[figure]["median"] for n, s in peers.items() if s[figure] is not None}
            if timed and mine[figure] is not None:
                fastest = min(timed, key=timed.__getitem__)
                row[figure] = {"ours_over_fastest": mine[figure]["median"] / timed[fastest], "fastest": fastest}
        for mode, mine_in_mode in mine.get("per_mode", {}).items():  # each of our modes against the same kind
            for figure in ("p95_ms", "cpu_p95_ms"):
                timed = {f"{n} {m}": theirs[figure]["median"] for n, s in peers.items()
                         for m, theirs in s.get("per_mode", {}).items()
                         if theirs["kind"] == mine_in_mode["kind"] and theirs[figure] is not None}
                if timed and mine_in_mode[figure] is not None:
                    fastest = min(timed, key=timed.__getitem__)
                    row[f"{mode} {figure}"] = {"ours_over_fastest": mine_in_mode[figure]["median"] / timed[fastest],
                                               "fastest": fastest}
        scored = {n: s["quality"][s["best_mode"]]["ndcg@10"] for n, s in peers.items() if s["quality"]}
        if scored and mine["quality"]:
            top = max(scored, key=scored.__getitem__)
            row["ndcg@10"] = {"ours_minus_best": mine["quality"][mine["best_mode"]]["ndcg@10"] - scored[top],
                              "best": top}
        found[dataset] = row
    return found


# ------------------------------------------------------------------------------------------ data


def beir_work(name: str, embedder: Any, evaluation: Path) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    from voiceassist_local.evaluation.retrieval import load_beir

    dataset = load_beir(evaluation / name, split="dev")
    keys = list(dataset.corpus)
    titles = [dataset.corpus[k][0] for k in keys]
    texts = [dataset.corpus[k][1] for k in keys]
    vectors = embedder.embed([". ".join(p for p in (t, x) if p) for t, x in zip(titles, texts, strict=True)])
    query_ids = list(dataset.queries)
    query_vectors = embedder.embed([dataset.queries[q] for q in query_ids])
    return ({"doc_keys": keys, "titles": titles, "texts": texts, "vectors": np.asarray(vectors, np.float32),
             "query_ids": query_ids, "query_texts": [dataset.queries[q] for q in query_ids],
             "query_vectors": np.asarray(query_vectors, np.float32)}, dataset.qrels)


def scale_work(sources: Sequence[Mapping[str, Any]], chunks: int, queries: Mapping[str, Any], query_count: int
               ) -> dict[str, Any]:
    """`chunks` chunks: the sources' documents, then copies of them with 10 % of words dropped and the
    vector moved by Gaussian noise (cosine ~0.95 to the original), so no two chunks are equal; the first
    `query_count` of `queries` (timed only: there are no judgements for the copies)."""
    rng, noise = random.Random(17), np.random.default_rng(17)
    keys, titles, texts, vectors = [], [], [], []
    originals = [(k, t, x, v) for s in sources
                 for k, t, x, v in zip(s["doc_keys"], s["titles"], s["texts"], s["vectors"], strict=True)]
    for number in range(chunks):
        key, title, text, vector = originals[number % len(originals)]
        copy = number // len(originals)
        if copy:
            words = text.split()
            text = " ".join(w for w in words if rng.random() >= 0.1)
            vector = vector + noise.standard_normal(vector.shape).astype(np.float32) * 0.017
            vector = vector / np.linalg.norm(vector)
        keys.append(f"{key}~{copy}" if copy else key)
        titles.append(title)
        texts.append(text)
        vectors.append(vector)
    return {"doc_keys": keys, "titles": titles, "texts": texts, "vectors": np.stack(vectors).astype(np.float32),
            "query_ids": queries["query_ids"][:query_count], "query_texts": queries["query_texts"][:query_count],
            "query_vectors": queries["query_vectors"][:query_count]}


def write_work(folder: Path, work: Mapping[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "docs.json").write_text(json.dumps({"ids": work["doc_keys"], "doc_keys": work["doc_keys"],
                                                  "titles": work["titles"], "texts": work["texts"]}))
    np.save(folder / "vectors.npy", work["vectors"])
    (folder / "queries.json").write_text(json.dumps({"ids": work["query_ids"], "texts": work["query_texts"]}))
    np.save(folder / "query_vectors.npy", work["query_vectors"])


def embedding_cost(encoder: Any, texts: Sequence[str], queries: Sequence[str]) -> dict[str, Any]:
    """The encoder's own cost, apart from every engine: passages per second (wall and CPU) on a fixed
    sample, and one query's latency."""
    encoder.embed(["warm up"])
    wall, cpu = time.perf_counter(), time.process_time()
    encoder.embed(list(texts))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    single = []
    for text in queries:
        started = time.perf_counter()
        encoder.embed([text])
        single.append((time.perf_counter() - started) * 1000)
    return {"model": encoder.model_id, "passages": len(texts), "passages_per_s": len(texts) / wall,
            "cpu_ms_per_passage": cpu * 1000 / len(texts), "query_p50_ms": percentile(single, 0.5),
            "query_p95_ms": percentile(single, 0.95)}


# ------------------------------------------------------------------------------------------ the run


def run_engine(python: Path, engine: str, work: Path, scratch: Path, timed_queries: int, timeout: float,
               timed_only: bool = False) -> dict[str, Any]:
    shutil.rmtree(scratch, ignore_errors=True)
    result_file = scratch.with_suffix(".json")
    started, children = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()[0]
    finished = subprocess.run(
        [str(python), str(ROOT / "bench" / "peer_engines" / "worker.py"), engine, str(work), str(scratch),
         str(result_file), "--timed-queries", str(timed_queries), *(["--timed-only"] if timed_only else [])],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
    shutil.rmtree(scratch, ignore_errors=True)
    if finished.returncode != 0:
        return {"error": finished.stderr[-2000:]}
    result = json.loads(result_file.read_text())
    result_file.unlink()
    result["process_s"] = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker's CPU, whatever the machine's load
    result["process_cpu_s"] = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    result["load_average"] = [load_before, os.getloadavg()[0]]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".artifacts" / "bench-venv",
                        help="the peers' virtual environment (make bench-peers creates it)")
    parser.add_argument("--engines", nargs="+", default=None, help="default: ours and every peer")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--eval", type=Path, default=None,
                        help=f"the BEIR folders (default: ${EVAL_VARIABLE}, else ../shared/eval beside the checkout"
                             " or beside its parent folder)")
    parser.add_argument("--scale-chunks", type=int, default=50_000)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--timed-queries", type=int, default=200, help="queries timed per mode (all are scored)")
    parser.add_argument("--work", type=Path, default=ROOT / ".artifacts" / "bench-peers")
    parser.add_argument("--out", type=Path, default=None, help="the JSON file (default: WORK/peers.json)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for one engine's process")
    args = parser.parse_args(argv)
    if not (args.venv / "bin" / "python").exists():
        print(json.dumps({"skipped": f"no peers' virtual environment at {args.venv}: run `make bench-peers`"}))
        return 0
    evaluation = args.eval or eval_folder()
    needed = ("scifact", "nfcorpus") if "scale" in args.datasets else args.datasets
    if missing := [name for name in needed if not (evaluation / name).is_dir()]:
        print(json.dumps({"skipped": f"no {' or '.join(missing)} under {evaluation}: pass --eval or set"
                                     f" {EVAL_VARIABLE}"}))
        return 0
    engines = args.engines or ["voiceassist", *(["opensearch"] if os.environ.get("OPENSEARCH_URL") else []), *PEERS]
    started, loads = time.perf_counter(), [os.getloadavg()[0]]

    from voiceassist_local.evaluation.retrieval import CachedEmbedder

    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    encoder = OnnxEmbedder()
    args.work.mkdir(parents=True, exist_ok=True)  # a fresh clone has no .artifacts/bench-peers yet
    cached = CachedEmbedder(encoder, args.work / "vectors.sqlite3")
    works, qrels, query_ids = {}, {}, {}
    wall, cpu = time.perf_counter(), time.process_time()
    for name in ("scifact", "nfcorpus"):
        if name in args.datasets or "scale" in args.datasets:
            works[name], qrels[name] = beir_work(name, cached, evaluation)
    vectors_s = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    if "scale" in args.datasets:
        works["scale"] = scale_work([works["scifact"], works["nfcorpus"]], args.scale_chunks, works["scifact"],
                                    args.timed_queries)
    sample = works.get("scifact", next(iter(works.values())))
    embedding = {**embedding_cost(encoder, sample["texts"][:128], sample["query_texts"][:50]),
                 "vectors_for_this_run": vectors_s}
    for name in args.datasets:
        write_work(args.work / "work" / name, works[name])
        query_ids[name] = works[name]["query_ids"]

    out = args.out or args.work / "peers.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {d: {e: [] for e in engines} for d in args.datasets}
    errors: list[dict[str, Any]] = []
    def report(complete: bool) -> dict[str, Any]:
        """The whole report; written after every engine's process, so a stopped run keeps what it measured."""
        summaries = {d: {e: summarise(r, qrels.get(d) if d != "scale" else None, query_ids[d])
                         for e, r in by_engine.items() if r} for d, by_engine in runs.items()}
        found = {
            "command": " ".join(["bench/peers.py", *(argv if argv is not None else sys.argv[1:])]),
            "complete": complete,
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                        "load_average": {"min": min(loads), "max": max(loads), "median": statistics.median(loads)}},
            "wall_s": time.perf_counter() - started, "embedding": embedding, "summaries": summaries,
            "ratios": ratios(summaries), "errors": errors, "table": table(summaries),
            "mode_table": mode_table(summaries),
        }
        out.write_text(json.dumps(found, indent=2))
        return found

    for repetition in range(args.repetitions):
        for dataset in args.datasets:
            order = engines[repetition % len(engines):] + engines[: repetition % len(engines)]
            for engine in order:
                python = Path(sys.executable) if engine in OURS else args.venv / "bin" / "python"
                scratch = args.work / "engine" / f"{dataset}-{engine}-{os.getpid()}"
                # Every query is ranked (and scored) once per engine; later repetitions ask the timed ones only.
                ranked_before = any(len(r["modes"][next(iter(r["modes"]))]["rankings"]) == len(query_ids[dataset])
                                    for r in runs[dataset][engine])
                result = run_engine(python, engine, args.work / "work" / dataset, scratch, args.timed_queries,
                                    args.timeout, timed_only=ranked_before)
                loads.append(os.getloadavg()[0])
                if "error" in result:
                    errors.append({"engine": engine, "dataset": dataset, "repetition": repetition, **result})
                    print(f"{dataset} {engine} #{repetition}: FAILED {result['error'][-300:]}", file=sys.stderr)
                    continue
                runs[dataset][engine].append(result)
                report(complete=False)
                print(f"{dataset} {engine} #{repetition}: build {result['build_s']:.1f} s, process"
                      f" {result['process_s']:.0f} s ({result['process_cpu_s']:.0f} CPU s), load"
                      f" {result['load_average'][1]:.1f}", file=sys.stderr)

    final = report(complete=True)
    print(final["table"])
    print()
    print(final["mode_table"])
    print(json.dumps({k: final[k] for k in ("command", "machine", "wall_s", "embedding", "ratios")}, indent=2))
    print(f"JSON: {out}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
