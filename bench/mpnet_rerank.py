"""A stronger first stage under the learned reranker: all-mpnet-base-v2 in place of all-MiniLM-L6-v2, measured.

Measurement only (docs/decisions/0025, session 20); nothing here is shipped. Three steps, each printing JSON:

    # 1. ingest a BEIR folder through the real pipeline with the given encoder into a fresh data folder, search
    #    every judged dev query as the training script does, and pickle the candidates' feature groups
    nice -n 10 .venv/bin/python bench/mpnet_rerank.py collect ../shared/eval/nfcorpus --encoder mpnet \
        --model-dir MODEL/all-mpnet-base-v2 --data-root /tmp/rank20/data_mpnet --cache /tmp/rank20/nf.sqlite \
        --groups /tmp/rank20/mpnet_nfcorpus.pkl
    # (--encoder minilm: the shipped embedder, the same pipeline, for the baseline in the same code)
    # 2. 5-fold CV by the training script's own folds, settings and measures (rerank_training.cross_validate),
    #    plus Recall@100 of the candidates, on one or more pickles trained jointly (SciFact first, as shipped)
    .venv/bin/python bench/mpnet_rerank.py cv /tmp/rank20/mpnet_scifact.pkl /tmp/rank20/mpnet_nfcorpus.pkl
    # 3. query CPU per encoder: the two interleaved on the same judged queries, one thread, p50 / p95 ms
    .venv/bin/python bench/mpnet_rerank.py query-cpu ../shared/eval/nfcorpus --model-dir MODEL/all-mpnet-base-v2

The encoder is bench/mpnet_encoder.py (how to install its weights outside the project, and its sha256 check).
Ingestion chunks with the encoder's own tokenizer at its 254 word pieces, as the pipeline does for the shipped one.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mpnet_encoder import DIMENSION, MODEL_ID, MpnetEmbedder  # noqa: E402


def use_mpnet(embedder: MpnetEmbedder) -> None:
    """Every Dependencies built after this embeds with `embedder` and opens a 768-dimension index under its id."""
    import voiceassist.constants.models as models
    from voiceassist.composition.base import Dependencies

    models.DIMENSION = DIMENSION
    models.model_id = lambda precision: MODEL_ID  # composition/local.py reads both when it opens the index
    chosen = cached_property(lambda self: embedder)
    chosen.__set_name__(Dependencies, "embedder")
    Dependencies.embedder = chosen  # type: ignore[assignment,method-assign]


def recall_at(group: Any, depth: int = 100) -> float:
    relevant = {doc for doc, grade in group.judged.items() if grade > 0}
    return len(relevant & set(group.doc_ids[:depth])) / len(relevant) if relevant else 0.0


def collect_command(args: argparse.Namespace) -> dict[str, Any]:
    from voiceassist_local.evaluation.rerank_training import collect

    embedder = None
    if args.encoder == "mpnet":
        embedder = MpnetEmbedder(args.model_dir, cache=args.cache)
        use_mpnet(embedder)
    started, cpu = time.perf_counter(), time.process_time()
    groups = collect(args.folder, args.data_root / args.folder.name, split=args.split, show=False)
    args.groups.write_bytes(pickle.dumps(groups))
    return {"folder": str(args.folder), "encoder": args.encoder, "queries": len(groups),
            "recall_at_100": round(float(np.mean([recall_at(g) for g in groups])), 4),
            "texts_embedded": embedder.computed if embedder else None,
            "wall_s": round(time.perf_counter() - started, 1), "cpu_s": round(time.process_time() - cpu, 1)}


def cv_command(args: argparse.Namespace) -> dict[str, Any]:
    from voiceassist_local.evaluation.rerank_training import PARAMS, cross_validate

    groups = [g for path in args.groups for g in pickle.loads(path.read_bytes())]
    by_fold: dict[str, list[dict[str, float]]] = {}
    cv = cross_validate(groups, folds=args.folds, params={**PARAMS, "seed": args.seed}, by_fold=by_fold)
    for corpus, figures in cv.items():
        figures["recall_at_100"] = round(float(np.mean([recall_at(g) for g in groups if g.corpus == corpus])), 4)
    return {"groups": [str(p) for p in args.groups], "seed": args.seed, "folds": args.folds,
            "cross_validation": cv, "by_fold": by_fold}


def query_cpu_command(args: argparse.Namespace) -> dict[str, Any]:
    from voiceassist_local.cli.eval_retrieval import load_qrels, load_queries

    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    qrels = load_qrels(args.folder / "qrels" / f"{args.split}.tsv")
    queries = list(load_queries(args.folder / "queries.jsonl", qrels).values())[: args.queries]
    encoders = {"all-MiniLM-L6-v2 int8": OnnxEmbedder(threads=1),
                "all-mpnet-base-v2 int8": MpnetEmbedder(args.model_dir)}
    times: dict[str, list[float]] = {name: [] for name in encoders}
    for encoder in encoders.values():
        encoder.embed(["warm up"])
    for text in queries:  # interleaved, so both see the same load; each text a fresh one (no cache)
        for name, encoder in encoders.items():
            started = time.process_time()
            encoder.embed([text]) if name.startswith("all-MiniLM") else encoder.embed_one(text)
            times[name].append((time.process_time() - started) * 1000)
    return {"queries": len(queries), "cpu_ms": {name: {"p50": round(float(np.percentile(t, 50)), 2),
                                                       "p95": round(float(np.percentile(t, 95)), 2)}
                                                for name, t in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    collect = commands.add_parser("collect")
    collect.add_argument("folder", type=Path)
    collect.add_argument("--encoder", choices=("mpnet", "minilm"), default="mpnet")
    collect.add_argument("--model-dir", type=Path)
    collect.add_argument("--data-root", type=Path, required=True)
    collect.add_argument("--cache", type=Path, default=None, help="SQLite vector cache (mpnet)")
    collect.add_argument("--groups", type=Path, required=True, help="the pickle written")
    collect.add_argument("--split", default="dev")
    cv = commands.add_parser("cv")
    cv.add_argument("groups", nargs="+", type=Path)
    cv.add_argument("--folds", type=int, default=5)
    cv.add_argument("--seed", type=int, default=7)
    cpu = commands.add_parser("query-cpu")
    cpu.add_argument("folder", type=Path)
    cpu.add_argument("--model-dir", type=Path, required=True)
    cpu.add_argument("--split", default="dev")
    cpu.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    run = {"collect": collect_command, "cv": cv_command, "query-cpu": query_cpu_command}[args.command]
    print(json.dumps(run(args), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
