"""`voiceassist eval retrieval`: nDCG@10, Recall@100, MRR@10 and search latency on any BEIR-format data.

The corpus goes through the real ingestion pipeline (unchanged documents are skipped, so a second run reuses
the index) and every query through the query pipeline's own knowledge-base search (orchestrator.
knowledge_base_query and run_knowledge_base_query: abbreviation expansion, the in-boundary embedder, the index
with the configured fusion, the reranker). Chunks are scored per document by their best chunk, as BEIR judges
documents; the generator's per-document cap and near-duplicate removal are left out, since they only thin
the list a generator sees.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from voiceassist.models import SearchHit, SearchMode
from voiceassist_local.evaluation.retrieval import mrr_at_k, ndcg_at_k, recall_at_k
from voiceassist_local.evaluation.withheld import WithheldReport, withheld_queries

DEPTH = 100


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "retrieval", help="retrieval quality on a BEIR-format corpus, queries and qrels",
        description=__doc__)
    parser.add_argument("--corpus", required=True, type=Path, help="corpus.jsonl (_id, title, text)")
    parser.add_argument("--queries", required=True, type=Path, help="queries.jsonl (_id, text)")
    parser.add_argument("--qrels", required=True, type=Path, help="qrels TSV (query-id, corpus-id, score)")
    parser.add_argument("--mode", choices=[m.value for m in SearchMode], default="hybrid")
    parser.add_argument("--bm25-weight", type=float, help="override VOICEASSIST_BM25_WEIGHT for this run")
    parser.add_argument("--fusion", choices=["min_max", "rrf"], help="override VOICEASSIST_FUSION")
    parser.add_argument("--limit-queries", type=int, help="evaluate only the first N judged queries")
    parser.add_argument("--withhold", type=float, metavar="FRACTION",
                        help="remove the judged documents of this share of the queries and report how well the "
                             "evidence score separates them (AUROC; evaluation/withheld.py)")
    parser.add_argument("--seed", type=int, default=0, help="the --withhold draw (default: %(default)s)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(run=run)
    return parser


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            parts = line.strip().split("\t")
            if len(parts) < 3 or (number == 1 and not parts[-1].lstrip("-").isdigit()):
                continue  # the header, or a blank line
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def load_queries(path: Path, judged: dict[str, dict[str, int]]) -> dict[str, str]:
    queries = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                if str(record["_id"]) in judged:
                    queries[str(record["_id"])] = record["text"]
    return queries


def corpus_ids(corpus: Path) -> Callable[[SearchHit], str]:
    """A hit's corpus id. The PHI screen may store a corpus id under a pseudonymous doc_key (an 8-digit id reads
    as a record number once anything else in that document's metadata was flagged: docs/phi.md); the doc_id is
    derived from the id as uploaded, so it maps back."""
    from voiceassist.ingest.registration import document_id
    from voiceassist_local.bulk import read_beir_corpus

    stems = {document_id(str(r["_id"]), 1).rsplit("_v", 1)[0]: str(r["_id"]) for r in read_beir_corpus(corpus)}
    return lambda hit: stems.get(hit.chunk.doc_id.rsplit("_v", 1)[0], hit.chunk.doc_key)


def run(args: argparse.Namespace) -> int:
    from voiceassist.models import FusionMethod
    from voiceassist.query.retrieval import knowledge_base_query, run_knowledge_base_query
    from voiceassist_local.bulk import ingest_beir_corpus
    from voiceassist_local.cli.local import local_dependencies

    deps = local_dependencies()
    ingest = ingest_beir_corpus(deps, args.corpus, show=not args.json)
    corpus_id = corpus_ids(args.corpus)
    qrels = load_qrels(args.qrels)
    queries = load_queries(args.queries, qrels)
    query_ids = list(queries)[: args.limit_queries] if args.limit_queries else list(queries)
    weight = args.bm25_weight if args.bm25_weight is not None else deps.settings.bm25_weight
    fusion = FusionMethod(args.fusion) if args.fusion else deps.settings.fusion
    totals = {"ndcg@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    embed_ms, search_ms = [], []
    withheld = withheld_queries(query_ids, args.withhold, args.seed) if args.withhold else set()
    abstention = WithheldReport(threshold=deps.settings.evidence_threshold)
    for query_id in tqdm(query_ids, desc="searching", unit="query", disable=args.json):
        started = time.perf_counter()
        query = knowledge_base_query(deps.query, queries[query_id], top_k=DEPTH, candidates=DEPTH,
                                     mode=SearchMode(args.mode), fusion=fusion, bm25_weight=weight)
        embedded = time.perf_counter()
        hits = run_knowledge_base_query(deps.query, query, phi_detected=False)  # BEIR queries carry no PHI
        search_ms.append((time.perf_counter() - embedded) * 1000)
        embed_ms.append((embedded - started) * 1000)
        ranked, judged = list(dict.fromkeys(corpus_id(hit) for hit in hits)), qrels[query_id]
        if args.withhold:
            if query_id in withheld:
                hits = [hit for hit in hits if corpus_id(hit) not in judged]
            abstention.add(queries[query_id], hits, is_withheld=query_id in withheld)
        totals["ndcg@10"] += ndcg_at_k(ranked, judged, 10)
        totals["recall@100"] += recall_at_k(ranked, judged, 100)
        totals["mrr@10"] += mrr_at_k(ranked, judged, 10)
    count = max(len(query_ids), 1)
    report = {
        "mode": args.mode, "fusion": fusion.value, "bm25_weight": weight, "queries": len(query_ids),
        **{metric: round(total / count, 4) for metric, total in totals.items()},
        "search_ms_p50": _percentile(search_ms, 0.5), "search_ms_p95": _percentile(search_ms, 0.95),
        "embed_ms_p50": _percentile(embed_ms, 0.5), "ingest": {k: ingest[k] for k in ("completed", "unchanged",
                                                                                       "failed", "seconds")},
        **({"withhold": {"fraction": args.withhold, "seed": args.seed, **abstention.as_dict()}}
           if args.withhold else {}),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{args.mode} ({fusion.value}, bm25 weight {weight}) on {len(query_ids)} queries: "
              f"nDCG@10 {report['ndcg@10']:.4f}  Recall@100 {report['recall@100']:.4f}  MRR@10 {report['mrr@10']:.4f}")
        print(f"search latency p50 {report['search_ms_p50']:.1f} ms, p95 {report['search_ms_p95']:.1f} ms "
              f"(query embedding p50 {report['embed_ms_p50']:.1f} ms, excluded)")
        if args.withhold:
            print("withheld evidence: " + ", ".join(f"{k} {v}" for k, v in report["withhold"].items()))
    return 0


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))], 2)
