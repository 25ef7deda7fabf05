"""The shipped reranker reads the features the pipeline gives today: its training's features on the check corpus
(tests/fixtures/rerank/check), written into the model file by `make rerank-model`, gathered again the same way."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from voiceassist_local.evaluation.rerank_check import differences, gather

from voiceassist.query.rerank import MODEL_PATH
from voiceassist.query.rerank_features import FEATURES

CHECK_CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "rerank" / "check"


def shipped_check() -> dict[str, Any]:
    return json.loads(MODEL_PATH.read_text(encoding="utf-8"))["feature_check"]


def test_rerank_feature_check_the_pipeline_gives_the_shipped_models_features(tmp_path: Path) -> None:
    # Given the features the model was trained with, on the check corpus
    shipped = shipped_check()
    # When the same corpus is ingested and searched from empty, as the training script does
    found = gather(CHECK_CORPUS, tmp_path / "data")
    # Then every query, candidate and feature is the same: anything on the path (ingestion, the index, query
    # expansion, the features) that moved them needs the model retrained (make rerank-model) or undoing
    moved = differences(shipped, found)
    assert not moved, "the reranker's features moved since its training:\n" + "\n".join(moved)


def test_rerank_feature_check_covers_every_feature_and_the_judged_queries() -> None:
    shipped = shipped_check()
    assert shipped["features"] == list(FEATURES)
    queries = (CHECK_CORPUS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [q["query_id"] for q in shipped["queries"]] == [json.loads(line)["_id"] for line in queries]
    assert all(len(q["candidates"]) >= 5 for q in shipped["queries"])
    assert any(c[1] > 0 for q in shipped["queries"] for c in q["candidates"])  # a document of several chunks
    # the abbreviation expanded for the search, as training read it
    assert "hypertension" in next(q["query"] for q in shipped["queries"] if q["query_id"] == "htn").lower()


def test_rerank_feature_check_names_what_moved() -> None:
    shipped = shipped_check()
    moved = copy.deepcopy(shipped)
    moved["queries"][0]["candidates"][1][2 + FEATURES.index("coverage")] += 1e-6  # a lexical value moved
    moved["queries"][0]["candidates"][2][2 + FEATURES.index("prf_share")] *= 1 + 2**-50  # a sum's order: the same
    moved["queries"][0]["candidates"][0][2 + FEATURES.index("cosine")] += 1e-6  # another CPU's kernels: the same
    moved["queries"][1]["query"] += " extra"
    moved["queries"][2]["candidates"].reverse()
    lines = differences(shipped, moved)
    assert len(lines) == 3
    assert "coverage" in lines[0] and lines[0].startswith(shipped["queries"][0]["query_id"] + " #1")
    assert "search text" in lines[1] and "candidates" in lines[2]
    assert differences(shipped, copy.deepcopy(shipped)) == []
    drifted = copy.deepcopy(shipped)
    drifted["queries"][0]["candidates"][0][2 + FEATURES.index("cosine")] += 1e-3  # more than rounding: moved
    assert len(differences(shipped, drifted)) == 1
