"""The learned reranker's feature check: the features its training read, on a small corpus the project ships.

The model is trained on features gathered through the whole pipeline (rerank_training.collect: bulk ingestion,
chunking, the embedded index, query expansion, the tied candidates' order, query/rerank_features.py). A change
anywhere on that path can move what the model reads without touching the feature code, and then the model's
recorded cross-validated figures no longer reproduce and `make rerank-model` writes another file (decision
0025, fifteenth session). So the training script gathers the same features, the same way, on the project's own
sample texts (tests/fixtures/rerank/check: ten sections and documents of the sample references, five questions,
their judgements; laid out as a BEIR folder named "beir" when gathered, so that nothing in the project is named as the
evaluation data's files are)
and writes them into the model file (`feature_check`); tests/unit/test_rerank_feature_check.py gathers them
again and compares them (but for rounding noise: `same`). A difference names the query, the
candidate and the feature: retrain the model (make rerank-model, which writes the check anew) or undo the change.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voiceassist.query.rerank_features import FEATURES
from voiceassist_local.evaluation.rerank_training import Group, collect

SPLIT = "dev"
# Values computed from the embedding: another CPU's ONNX kernels (AVX2 against AVX-512 VNNI, say) give the same
# int8 model's vectors to a few units in the last places, so these compare within FLOAT_NOISE; a drift that
# matters (a title redacted, a chunk split elsewhere) moves them by far more. The other values compare to
# SUM_NOISE (relative): the feedback sums of query/rerank_prf.py add terms in the order of their ids, which the
# process-wide term table gives in the order words were first seen, so a process that ranked other texts first
# adds in another order and the last bit moves (a fresh clone's `make test`, every test in a few processes:
# prf_share 0.7617446303154044 -> ...045; tests/unit/test_rerank_features.py run first in one process shows it).
FROM_EMBEDDING = frozenset({"fused_score", "fused_share", "cosine", "cosine_gap", "opening_cosine"})
FLOAT_NOISE = 1e-4
SUM_NOISE = 1e-9


def gather(folder: Path, data_dir: Path) -> dict[str, Any]:
    """The check's content on the check corpus in `folder` (records.jsonl, questions.jsonl, judgements.tsv): each
    judged query's search text and its candidates in the index's order, each as [corpus id, chunk ordinal,
    *features] (NaN as null, so that JSON holds it)."""
    beir = as_beir(folder, data_dir / "beir")
    return as_check(beir.name, collect(beir, data_dir / "index", split=SPLIT, show=False))


def as_beir(folder: Path, beir: Path) -> Path:
    """The check corpus copied into `beir` in BEIR's layout (corpus.jsonl, queries.jsonl, qrels/dev.tsv)."""
    (beir / "qrels").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(folder / "records.jsonl", beir / "corpus.jsonl")
    shutil.copyfile(folder / "questions.jsonl", beir / "queries.jsonl")
    shutil.copyfile(folder / "judgements.tsv", beir / "qrels" / f"{SPLIT}.tsv")
    return beir


def as_check(corpus: str, groups: Sequence[Group]) -> dict[str, Any]:
    return {"corpus": corpus, "features": list(FEATURES), "queries": [
        {"query_id": g.query_id, "query": g.query,
         "candidates": [[doc_id, hit.chunk.ordinal, *(None if math.isnan(v) else v for v in row.tolist())]
                        for doc_id, hit, row in zip(g.doc_ids, g.hits, g.rows, strict=True)]}
        for g in groups]}


def differences(expected: dict[str, Any], found: dict[str, Any], *, most: int = 12) -> list[str]:
    """What moved between two checks, at most `most` lines (empty: the same features; see `same`)."""
    lines: list[str] = []
    if expected.get("features") != found.get("features"):
        lines.append(f"feature names: {expected.get('features')} -> {found.get('features')}")
    queries = {q["query_id"]: q for q in found.get("queries", [])}
    for before in expected.get("queries", []):
        after = queries.pop(before["query_id"], None)
        if after is None:
            lines.append(f"{before['query_id']}: not gathered")
            continue
        if before["query"] != after["query"]:
            lines.append(f"{before['query_id']}: search text {before['query']!r} -> {after['query']!r}")
        old, new = before["candidates"], after["candidates"]
        if [c[:2] for c in old] != [c[:2] for c in new]:
            lines.append(f"{before['query_id']}: candidates {[c[:2] for c in old]} -> {[c[:2] for c in new]}")
            continue
        for rank, (a, b) in enumerate(zip(old, new, strict=True)):
            for name, x, y in zip(expected["features"], a[2:], b[2:], strict=False):
                if not same(name, x, y):
                    lines.append(f"{before['query_id']} #{rank} {a[0]}/{a[1]}: {name} {x!r} -> {y!r}")
    lines.extend(f"{query_id}: gathered, not in the check" for query_id in queries)
    return lines[:most] + ([f"... and {len(lines) - most} more"] if len(lines) > most else [])


def same(name: str, x: float | None, y: float | None) -> bool:
    """The same value but for rounding: the embedding's (FLOAT_NOISE) or a sum's order (SUM_NOISE)."""
    if x is None or y is None:
        return x == y
    if name in FROM_EMBEDDING:
        return abs(x - y) <= FLOAT_NOISE
    return math.isclose(x, y, rel_tol=SUM_NOISE, abs_tol=SUM_NOISE)

