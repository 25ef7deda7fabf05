"""Train the learned reranker (LightGBM LambdaMART) on public relevance judgements, measure it by
cross-validation, and write its model file (voiceassist/_data/rerank/lambdamart.json).

Each BEIR folder is ingested through the real pipeline into its own data folder under --data-root (by default a
fresh empty folder made for the run, named in the report and kept for ablations; a given one is reused only with
--reuse-data when writing the model file, since a reused folder once trained on a partly ingested corpus), and
each judged query searched as `voiceassist eval retrieval` searches it (abbreviation and synonym expansion, the
in-boundary embedder, the hybrid index, 100 candidates). The candidates' features (query/rerank_features.py) and
their documents' grades are the training rows; a query is a LambdaMART group.
Half the queries (a fixed hash) are trained as the embedded index returns them and half without the BM25 and
cosine sub-scores (as an OpenSearch hybrid query returns them), so one model reads both; both views of every
held-out query are measured. A quarter of the queries (another hash) are trained without their documents'
openings (opening_cosine NaN, as the hits of documents ingested before openings were stored come), so the
model reads those too; the held-out queries are measured that way as well (`reranked_no_opening`).

Cross-validation is by query: each query is in exactly one of --folds folds (a hash of corpus and query id),
a fold's queries are ranked by a model trained on the other folds of every corpus, and nDCG@10 is computed on
documents ranked by their best chunk, as `voiceassist eval retrieval` does. The model file is then trained on
every query. Training is deterministic (fixed seed, deterministic=True, fixed threads) and takes minutes:

    make rerank-model    # = python -m voiceassist_local.evaluation.rerank_training ../shared/eval/scifact \
                         #       ../shared/eval/nfcorpus --write   (into a fresh folder under $TMPDIR)
    # cross-validation only, on any BEIR folders:  ... rerank_training <folder>... [--data-root DIR]
    # an ablation or another setting, cross-validated on the same candidates (never written):
    #     ... --drop prf_share       ... --param lambdarank_truncation_level=50
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from voiceassist.models import SearchHit
from voiceassist.query.rerank import MODEL_PATH
from voiceassist.query.rerank_features import FEATURES, INDEX, features
from voiceassist.query.search import in_stable_order
from voiceassist.query.trees import from_flat, from_lightgbm_dump
from voiceassist_local.evaluation.retrieval import ndcg_at_k

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies

SUB_SCORE_FEATURES = ("bm25_share", "bm25_rank", "cosine", "cosine_gap", "dense_rank")
# Monotone constraints: more of the question in a passage (or its heading, or one of its sentences), a higher
# place in the index's order never lowers the passage's score (+1: the score rises with
# the feature, -1: falls). A candidate's label is its document's grade, so the judgements never say which of
# a document's passages answers; without these the trees learnt, in the rare documents with several
# candidates, that the fused-first passage holding every question term in one sentence ranks below its
# neighbour (the sample metformin reference's dosing passage below its renal one: docs/decisions/0025).
MONOTONE = {"fused_share": 1, "fused_rank": -1, "bm25_share": 1, "bm25_rank": -1, "cosine": 1, "cosine_gap": 1,
            "dense_rank": -1, "coverage": 1, "idf_coverage": 1, "title_coverage": 1, "section_coverage": 1,
            "bigram_share": 1, "rarest_term": 1, "sentence_coverage": 1, "sentence_idf_coverage": 1,
            "prf_share": 1}
PARAMS: dict[str, Any] = {
    "objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "label_gain": [0, 1, 2, 3],
    "learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 50, "feature_fraction": 0.8,
    "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0, "lambdarank_truncation_level": 20,
    "seed": 7, "deterministic": True, "force_row_wise": True, "num_threads": 1, "verbosity": -1,
    "monotone_constraints": [MONOTONE.get(name, 0) for name in FEATURES], "monotone_constraints_method": "intermediate",
}
ROUNDS = 200
DEPTH = 100
INGEST_PASSES = 3


@dataclass
class Group:
    corpus: str
    query_id: str
    query: str  # as the reranker sees it (expanded)
    hits: list[SearchHit]
    rows: np.ndarray  # features of the candidates, the index's order
    grades: np.ndarray  # each candidate's document grade (0: not judged relevant)
    doc_ids: list[str]  # each candidate's corpus id
    judged: dict[str, int]


def collect(folder: Path, data_dir: Path, *, split: str, show: bool = True) -> list[Group]:
    """Ingest a BEIR folder (unchanged documents are skipped) and return each judged query's candidates."""
    from voiceassist.composition import Dependencies, use_dependencies
    from voiceassist.query.retrieval import knowledge_base_query
    from voiceassist.settings import settings_from_env
    from voiceassist_local.cli.eval_retrieval import corpus_ids, load_qrels, load_queries

    data_dir.mkdir(parents=True, exist_ok=True)
    deps = Dependencies(settings_from_env({**os.environ, "VOICEASSIST_DATA_DIR": str(data_dir),
                                           "VOICEASSIST_RUNTIME": "local"}))
    use_dependencies(deps)
    try:
        ingest_every_record(deps, folder / "corpus.jsonl", show=show)
        corpus_id = corpus_ids(folder / "corpus.jsonl")
        qrels = load_qrels(folder / "qrels" / f"{split}.tsv")
        queries = load_queries(folder / "queries.jsonl", qrels)
        groups = []
        for query_id, text in queries.items():
            query = knowledge_base_query(deps.query, text, top_k=DEPTH, candidates=DEPTH)
            hits = in_canonical_order(deps.query.index.search(query))
            ids = [corpus_id(hit) for hit in hits]
            judged = qrels[query_id]
            groups.append(Group(folder.name, query_id, query.text, hits, features(query.text, hits),
                                np.array([max(judged.get(i, 0), 0) for i in ids], dtype=np.float64), ids, judged))
        return groups
    finally:
        use_dependencies(None)


def ingest_every_record(deps: Dependencies, corpus: Path, *, show: bool) -> None:
    """Ingest the corpus, uploading again (up to INGEST_PASSES in all) the records whose ingestion failed, and
    refuse to go on while any is missing. Under load the PHI screen fails a document closed ("PHI detector busy",
    "timed out": MetadataNotScreened, the job FAILED, nothing indexed); candidates gathered from the rest of the
    corpus would train another model, and the model file would depend on the machine's load."""
    from voiceassist_local.bulk import ingest_beir_corpus

    failures: list[dict[str, str]] = []
    for _ in range(INGEST_PASSES):
        failures = ingest_beir_corpus(deps, corpus, show=show)["failures"]
        if not failures:
            return
    shown = "; ".join(f"{f['doc_key']}: {f['reason']}" for f in failures[:3])
    raise RuntimeError(f"{corpus}: {len(failures)} record(s) still not ingested after {INGEST_PASSES} passes "
                       f"(a re-run retries them): {shown}")


def in_canonical_order(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """The index's order, equal scores by query.search.chunk_order_key (document key, version, ordinal), as
    both indexes now return them. Kept as a check on what is trained: the index once broke ties by insertion
    order, which differs in every data folder (16 documents are ingested at once), and the tie's order moved
    the candidates' rank features and labels: two fresh folders of the same corpora trained different model
    files (docs/decisions/0025, sessions 15 and 18)."""
    return in_stable_order(hits)


OPENING_MISSING_ONE_IN = 4  # one query in this many is trained without its openings


def without_opening(rows: np.ndarray) -> np.ndarray:
    """The rows as an index that holds no opening vectors gives them."""
    masked = rows.copy()
    masked[:, INDEX["opening_cosine"]] = np.nan
    return masked


def training_rows(group: Group) -> np.ndarray:
    """A query's rows as trained: without sub-scores in the OpenSearch view, without openings in one in
    OPENING_MISSING_ONE_IN (both hashes of corpus and id)."""
    rows = without_sub_scores(group.rows) if _opensearch_view(group) else group.rows
    return without_opening(rows) if _opening_missing(group) else rows


def without_sub_scores(rows: np.ndarray) -> np.ndarray:
    """The rows as an OpenSearch hybrid query's hits give them: no BM25 or cosine."""
    masked = rows.copy()
    masked[:, [INDEX[name] for name in SUB_SCORE_FEATURES]] = np.nan
    return masked


def train(groups: Sequence[Group], *, rounds: int = ROUNDS, params: dict[str, Any] | None = None,
          drop: Sequence[str] = ()) -> Any:
    """A model on every query with a relevant candidate; `drop`: features left out (an ablation: the
    columns and their constraints removed; a model without them cannot be shipped)."""
    import lightgbm as lgb

    kept = _kept(drop)
    usable = [g for g in groups if g.grades.any()]  # a query without a relevant candidate teaches nothing
    rows = np.vstack([training_rows(g)[:, kept] for g in usable])
    labels = np.concatenate([g.grades for g in usable])
    sizes = [len(g.grades) for g in usable]
    names = [FEATURES[i] for i in kept]
    data = lgb.Dataset(rows, label=labels, group=sizes, feature_name=names, free_raw_data=False)
    chosen = {**(params or PARAMS), "monotone_constraints": [MONOTONE.get(name, 0) for name in names]}
    return lgb.train(chosen, data, num_boost_round=rounds)


def _kept(drop: Sequence[str]) -> list[int]:
    unknown = set(drop) - set(FEATURES)
    if unknown:
        raise ValueError(f"no such feature: {sorted(unknown)}")
    return [i for i, name in enumerate(FEATURES) if name not in drop]


def ndcg_of(group: Group, scores: np.ndarray | None) -> float:
    """nDCG@10 of the documents ranked by their best candidate (scores None: the index's order)."""
    order = range(len(group.doc_ids)) if scores is None else np.argsort(-scores, kind="stable")
    return ndcg_at_k(list(dict.fromkeys(group.doc_ids[i] for i in order)), group.judged, 10)


def fold_of(group: Group, folds: int) -> int:
    return int(hashlib.sha256(f"{group.corpus}\n{group.query_id}".encode()).hexdigest(), 16) % folds


def _opensearch_view(group: Group) -> bool:
    """Half the queries (a hash of corpus and id) are trained without their sub-scores."""
    return int(hashlib.sha256(f"view\n{group.corpus}\n{group.query_id}".encode()).hexdigest(), 16) % 2 == 1


def _opening_missing(group: Group) -> bool:
    return int(hashlib.sha256(f"opening\n{group.corpus}\n{group.query_id}".encode()).hexdigest(), 16) \
        % OPENING_MISSING_ONE_IN == 0


MEASURES = ("queries", "fused", "reranked", "reranked_no_sub_scores", "reranked_no_opening")


def cross_validate(groups: Sequence[Group], *, folds: int, rounds: int = ROUNDS,
                   params: dict[str, Any] | None = None, drop: Sequence[str] = (),
                   by_fold: dict[str, list[dict[str, float]]] | None = None) -> dict[str, dict[str, float]]:
    """Mean nDCG@10 per corpus: the index's order, reranked with sub-scores, reranked without them, reranked
    without openings (with sub-scores). `by_fold`,
    when given, receives the same means for each fold's queries (fold 0 first), for the report."""
    totals: dict[str, dict[str, float]] = {}
    per_fold: dict[str, list[dict[str, float]]] = {}
    kept = _kept(drop)
    for fold in range(folds):
        model = train([g for g in groups if fold_of(g, folds) != fold], rounds=rounds, params=params, drop=drop)
        for g in (g for g in groups if fold_of(g, folds) == fold):
            scores = {"queries": 1.0, "fused": ndcg_of(g, None),
                      "reranked": ndcg_of(g, model.predict(g.rows[:, kept])),
                      "reranked_no_sub_scores": ndcg_of(g, model.predict(without_sub_scores(g.rows)[:, kept])),
                      "reranked_no_opening": ndcg_of(g, model.predict(without_opening(g.rows)[:, kept]))}
            t = totals.setdefault(g.corpus, dict.fromkeys(MEASURES, 0.0))
            f = per_fold.setdefault(g.corpus, [dict.fromkeys(MEASURES, 0.0) for _ in range(folds)])[fold]
            for key, value in scores.items():
                t[key] += value
                f[key] += value
    if by_fold is not None:
        by_fold.update({corpus: [_means(f) for f in fs] for corpus, fs in per_fold.items()})
    return {corpus: _means(t) for corpus, t in totals.items()}


def _means(sums: dict[str, float]) -> dict[str, float]:
    return {k: (int(v) if k == "queries" else round(v / sums["queries"], 4) if sums["queries"] else 0.0)
            for k, v in sums.items()}


def export(model: Any, groups: Sequence[Group], cv: dict[str, Any],
           feature_check: dict[str, Any] | None = None) -> dict[str, Any]:
    """The model file: the flat trees, checked against LightGBM's own predictions on every training row, and
    the features the pipeline gave on the check corpus when it was trained (evaluation/rerank_check.py)."""
    import lightgbm as lgb

    flat = from_lightgbm_dump(model.dump_model())
    trees = from_flat(flat)
    difference = max(float(np.abs(trees.predict(rows) - model.predict(rows)).max())
                     for g in groups for rows in (g.rows, without_sub_scores(g.rows), without_opening(g.rows)))
    if difference > 1e-9:
        raise RuntimeError(f"the exported trees disagree with LightGBM by {difference}")
    return {"format": "voiceassist.trees/1", "features": list(FEATURES), "lightgbm": lgb.__version__,
            "params": PARAMS, "rounds": model.current_iteration(),
            "trained_on": {c: sum(g.corpus == c for g in groups) for c in sorted({g.corpus for g in groups})},
            "cross_validation": cv, **({"feature_check": feature_check} if feature_check else {}), "trees": flat}


def data_root_for(given: Path | None) -> tuple[Path, bool]:
    """The data root and whether it held nothing at the start: a fresh folder under $TMPDIR when none is given."""
    if given is None:
        return Path(tempfile.mkdtemp(prefix="voiceassist-rerank-")), True
    return given, not given.exists() or not any(given.iterdir())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="BEIR folders (corpus.jsonl, queries.jsonl, qrels/)")
    parser.add_argument("--data-root", type=Path, default=None,
                        help="one ingested data folder per corpus here (default: a fresh empty folder under $TMPDIR)")
    parser.add_argument("--reuse-data", action="store_true",
                        help="with --write: allow a --data-root that already holds ingested data")
    parser.add_argument("--split", default="dev", help="the judgements to train on (default: %(default)s)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--write", action="store_true", help=f"train on every query and write {MODEL_PATH.name}")
    parser.add_argument("--output", type=Path, default=MODEL_PATH)
    parser.add_argument("--feature-check", type=Path, default=None, metavar="FOLDER",
                        help="with --write: a small BEIR folder whose features are written into the model file "
                             "(tests/fixtures/rerank/check; a test gathers them again: evaluation/rerank_check.py)")
    parser.add_argument("--drop", nargs="+", default=[], metavar="FEATURE",
                        help="ablation: cross-validate without these features (not with --write)")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=JSON",
                        help="ablation: cross-validate with this LightGBM parameter changed, e.g. "
                             "lambdarank_truncation_level=50 (repeatable; not with --write)")
    args = parser.parse_args(argv)
    if args.write and (args.drop or args.param):
        parser.error("--drop and --param measure variants; the shipped model is the script's own (no --write)")
    params = {**PARAMS, **{key: json.loads(value) for key, value in (p.split("=", 1) for p in args.param)}}
    data_root, started_empty = data_root_for(args.data_root)
    if args.write and not started_empty and not args.reuse_data:
        parser.error(f"{data_root} already holds data: the model file is written from a fresh folder (leave out "
                     "--data-root), or pass --reuse-data")
    print(f"rerank_training: data folder {data_root}" + (" (empty at the start)" if started_empty else ""),
          file=sys.stderr, flush=True)
    started = time.perf_counter()
    groups = [g for folder in args.folders
              for g in collect(folder, data_root / folder.name, split=args.split, show=False)]
    collected = time.perf_counter()
    by_fold: dict[str, list[dict[str, float]]] = {}
    cv = cross_validate(groups, folds=args.folds, rounds=args.rounds, params=params, drop=args.drop, by_fold=by_fold)
    report: dict[str, Any] = {"data_root": str(data_root), "data_root_started_empty": started_empty,
                              "folds": args.folds, "rounds": args.rounds, "cross_validation": cv,
                              "cross_validation_by_fold": by_fold,
                              **({"dropped": args.drop} if args.drop else {}),
                              **({"params": {k: v for k, v in params.items() if PARAMS.get(k) != v}}
                                 if args.param else {}),
                              "collect_s": round(collected - started, 1),
                              "cross_validation_s": round(time.perf_counter() - collected, 1)}
    if args.write:
        check = None
        if args.feature_check is not None:
            from voiceassist_local.evaluation.rerank_check import gather

            with tempfile.TemporaryDirectory(prefix="voiceassist-rerank-check-") as empty:  # from empty, as the test
                check = gather(args.feature_check, Path(empty))
        model = export(train(groups, rounds=args.rounds), groups, cv, check)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(model, separators=(",", ":")) + "\n", encoding="utf-8")
        report["written"] = str(args.output)
        report["sha256"] = hashlib.sha256(args.output.read_bytes()).hexdigest()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
