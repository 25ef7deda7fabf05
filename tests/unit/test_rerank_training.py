"""The reranker's training script: the same candidates give the same model file, and the shipped file is the
script's (its features, parameters and rounds)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
import voiceassist_local.bulk
from voiceassist_local.evaluation.rerank_training import (
    INGEST_PASSES,
    PARAMS,
    ROUNDS,
    Group,
    cross_validate,
    data_root_for,
    export,
    in_canonical_order,
    ingest_every_record,
    main,
    train,
    training_rows,
)

from voiceassist.models import Chunk, DocumentMetadata, SearchHit
from voiceassist.query.rerank import MODEL_PATH
from voiceassist.query.rerank_features import FEATURES, INDEX, features

WORDS = ["vitamin", "fracture", "risk", "older", "women", "statin", "asthma", "sepsis", "warfarin", "dose",
         "trial", "cohort", "mortality", "renal", "insulin", "glucose"]


def _groups(seed: int) -> list[Group]:
    generator = np.random.default_rng(seed)
    groups = []
    for q in range(40):
        query = " ".join(generator.choice(WORDS, size=4))
        hits, grades, ids = [], [], []
        for rank in range(30):
            relevant = generator.random() < 0.15
            words = [*generator.choice(WORDS, size=20), *(query.split() if relevant else [])]
            key = f"q{q}d{rank}"
            chunk = Chunk(chunk_id=key, doc_id=f"{key}_v1", doc_key=key, version=1, ordinal=0,
                          text=" ".join(generator.permutation(words)), token_count=len(words),
                          metadata=DocumentMetadata(doc_key=key, title=key))
            hits.append(SearchHit(chunk=chunk, score=1.0 - rank / 30, bm25_score=float(generator.uniform(1, 20)),
                                  vector_score=float(generator.uniform(0.5, 0.9))))
            grades.append(float(relevant))
            ids.append(key)
        groups.append(Group("synthetic", f"q{q}", query, hits, features(query, hits), np.array(grades), ids,
                            {i: 1 for i, g in zip(ids, grades, strict=True) if g}))
    return groups


def test_rerank_training_trains_one_query_in_four_without_its_openings_so_the_model_reads_them_missing() -> None:
    groups = _groups(3)
    for g in groups:
        g.rows[:, INDEX["opening_cosine"]] = g.grades * 0.5 + 0.2  # every candidate's opening known
    missing = [bool(np.isnan(training_rows(g)[:, INDEX["opening_cosine"]]).all()) for g in groups]
    assert 0.1 < sum(missing) / len(groups) < 0.45  # one in four by hash: 40 synthetic queries
    assert all(np.isfinite(training_rows(g)[:, INDEX["opening_cosine"]]).all() for g, m in zip(groups, missing,
                                                                                                strict=True) if not m)
    model = train(groups, rounds=20).dump_model()
    opening = list(FEATURES).index("opening_cosine")
    splits = [node for tree in model["tree_info"] for node in _nodes(tree["tree_structure"])
              if node.get("split_feature") == opening]
    assert splits and all(node["missing_type"] == "NaN" for node in splits)  # trained with missing openings


def _nodes(node: dict[str, object]) -> list[dict[str, object]]:
    if "split_feature" not in node:
        return []
    return [node, *_nodes(node["left_child"]), *_nodes(node["right_child"])]  # type: ignore[arg-type]


def test_rerank_training_rebuilds_the_same_model_file_from_the_same_candidates() -> None:
    groups = _groups(seed=3)
    first = json.dumps(export(train(groups, rounds=20), groups, cv={}), separators=(",", ":"))
    second = json.dumps(export(train(_groups(seed=3), rounds=20), groups, cv={}), separators=(",", ":"))
    assert first == second
    assert len(json.loads(first)["trees"]["roots"]) == 20


def test_rerank_training_shipped_model_is_the_scripts_own() -> None:
    shipped = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    assert shipped["features"] == list(FEATURES)
    assert shipped["params"] == PARAMS
    assert shipped["rounds"] == ROUNDS


def test_rerank_training_ablation_trains_without_the_dropped_features() -> None:
    groups = _groups(seed=5)
    model = train(groups, rounds=5, drop=["prf_share", "prf_cosine"])
    assert model.feature_name() == [name for name in FEATURES if name not in ("prf_share", "prf_cosine")]
    assert model.params["monotone_constraints"] == [c for name, c in zip(FEATURES, PARAMS["monotone_constraints"],
                                                                          strict=True)
                                                    if name not in ("prf_share", "prf_cosine")]
    measured = cross_validate(groups, folds=2, rounds=5, drop=["prf_share"])
    assert measured["synthetic"]["queries"] == len(groups)
    with pytest.raises(ValueError, match="no such feature"):
        train(groups, rounds=5, drop=["bm25"])


def test_rerank_training_refuses_to_write_an_ablation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--data-root", str(tmp_path), "--write", "--drop", "prf_share"])
    assert "--drop and --param" in capsys.readouterr().err


def _bulk_passes(monkeypatch: pytest.MonkeyPatch, failed_per_pass: list[int]) -> list[int]:
    """Replace the bulk ingestion with one whose pass n leaves failed_per_pass[n] records FAILED."""
    calls: list[int] = []

    def ingest(deps: object, corpus: Path, *, show: bool) -> dict[str, object]:
        failed = failed_per_pass[len(calls)]
        calls.append(failed)
        return {"failed": failed, "failures": [{"doc_key": f"d{i}", "reason": "MetadataNotScreened: PHI detector "
                                                "busy"} for i in range(failed)]}

    monkeypatch.setattr(voiceassist_local.bulk, "ingest_beir_corpus", ingest)
    return calls


def test_rerank_training_uploads_again_the_records_whose_ingestion_failed(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = _bulk_passes(monkeypatch, [240, 3, 0])
    ingest_every_record(object(), tmp_path / "corpus.jsonl", show=False)  # type: ignore[arg-type]
    assert calls == [240, 3, 0]


def test_rerank_training_refuses_candidates_from_a_partly_ingested_corpus(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = _bulk_passes(monkeypatch, [240] * INGEST_PASSES)
    with pytest.raises(RuntimeError, match="240 record.*d0: MetadataNotScreened"):
        ingest_every_record(object(), tmp_path / "corpus.jsonl", show=False)  # type: ignore[arg-type]
    assert len(calls) == INGEST_PASSES


def test_rerank_training_reads_tied_candidates_in_the_same_order_whatever_the_index_inserted_first() -> None:
    # Given a search whose 2nd-4th candidates tie exactly (duplicate abstracts), returned in insertion order
    groups = _groups(seed=11)
    tie = groups[0].hits[3].score  # the hits best first, as an index returns them
    hits = [h.model_copy(update={"score": tie}) if 1 <= i <= 3 else h for i, h in enumerate(groups[0].hits[:6])]
    shuffled = [hits[0], hits[3], hits[1], hits[2], *hits[4:]]

    # Then both insertion orders give the same candidates, hence the same feature rows; untied ones keep their place
    first, second = in_canonical_order(hits), in_canonical_order(shuffled)
    assert [h.chunk.chunk_id for h in first] == [h.chunk.chunk_id for h in second]
    assert second[0] is hits[0] and second[4:] == hits[4:]
    assert np.array_equal(features("q", first), features("q", second), equal_nan=True)
    assert not np.array_equal(features("q", hits), features("q", shuffled), equal_nan=True)


def test_rerank_training_ingests_into_a_fresh_empty_folder_unless_given_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the fresh folders are made in the test's own folder
    fresh, empty = data_root_for(None)
    assert empty and fresh.is_dir() and not any(fresh.iterdir()) and fresh.parent == tmp_path
    assert data_root_for(None)[0] != fresh  # every run its own folder
    assert data_root_for(tmp_path / "new") == (tmp_path / "new", True)
    (tmp_path / "used" / "scifact").mkdir(parents=True)
    assert data_root_for(tmp_path / "used") == (tmp_path / "used", False)


def test_rerank_training_refuses_to_write_the_model_from_a_reused_data_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "scifact").mkdir()
    with pytest.raises(SystemExit):
        main([str(tmp_path / "scifact"), "--data-root", str(tmp_path), "--write"])
    assert "already holds data" in capsys.readouterr().err


def test_rerank_training_make_target_builds_in_a_fresh_folder_by_default() -> None:
    makefile = Path(__file__).resolve().parents[2] / "Makefile"
    # a `make test` run's own flags and variables (MAKEFLAGS) must not reach the dry run
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "RERANK_DATA")}
    default = subprocess.run(["make", "-n", "-f", str(makefile), "rerank-model"], capture_output=True, text=True,
                             check=True, cwd=makefile.parent, env=env).stdout
    given = subprocess.run(["make", "-n", "-f", str(makefile), "rerank-model", "RERANK_DATA=/tmp/kept"],
                           capture_output=True, text=True, check=True, cwd=makefile.parent, env=env).stdout
    assert "rerank_training" in default and "--data-root" not in default and "--write" in default
    assert "--data-root /tmp/kept --reuse-data" in given


def test_rerank_training_reports_each_folds_figures_adding_up_to_the_mean() -> None:
    groups = _groups(seed=7)
    by_fold: dict[str, list[dict[str, float]]] = {}
    overall = cross_validate(groups, folds=3, rounds=5, by_fold=by_fold)["synthetic"]
    folds = by_fold["synthetic"]
    assert len(folds) == 3 and sum(f["queries"] for f in folds) == overall["queries"] == len(groups)
    for key in ("fused", "reranked", "reranked_no_sub_scores"):
        weighted = sum(f[key] * f["queries"] for f in folds) / overall["queries"]
        assert abs(weighted - overall[key]) < 1e-3  # each fold's mean is rounded to 4 places
    assert cross_validate(groups, folds=3, rounds=5) == {"synthetic": overall}
