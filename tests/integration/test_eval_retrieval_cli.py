"""`voiceassist eval retrieval` on a tiny BEIR folder: ingests through the pipeline, searches, scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from voiceassist_local.cli import main

from voiceassist.composition import Dependencies


def write_beir(folder: Path) -> None:
    docs = [
        {"_id": "d1", "title": "Metformin dosing", "text": "Metformin starts at 500 mg with meals."},
        {"_id": "d2", "title": "Anaphylaxis", "text": "Give intramuscular epinephrine into the thigh at once."},
        {"_id": "d3", "title": "Hypertension", "text": "Thiazide diuretics are a first-line antihypertensive."},
    ]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs))
    queries = [{"_id": "q1", "text": "starting dose of metformin"},
               {"_id": "q2", "text": "epinephrine for anaphylaxis"}]
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_eval_retrieval_scores_a_beir_folder(mode: str, tmp_path: Path, local_deps: Dependencies,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    write_beir(tmp_path)
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))
    code = main(["eval", "retrieval", "--corpus", str(tmp_path / "corpus.jsonl"),
                 "--queries", str(tmp_path / "queries.jsonl"), "--qrels", str(tmp_path / "qrels.tsv"),
                 "--mode", mode, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["queries"] == 2 and report["mode"] == mode
    assert report["ndcg@10"] == 1.0 and report["mrr@10"] == 1.0  # each query's document ranks first
    assert report["ingest"]["completed"] + report["ingest"]["unchanged"] == 3


def test_eval_retrieval_withhold_reports_the_evidence_auroc(tmp_path: Path, local_deps: Dependencies,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    write_beir(tmp_path)
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))

    code = main(["eval", "retrieval", "--corpus", str(tmp_path / "corpus.jsonl"),
                 "--queries", str(tmp_path / "queries.jsonl"), "--qrels", str(tmp_path / "qrels.tsv"),
                 "--withhold", "0.5", "--seed", "1", "--json"])

    withhold = json.loads(capsys.readouterr().out)["withhold"]
    assert code == 0 and (withhold["queries_kept"], withhold["queries_withheld"]) == (1, 1)
    assert withhold["auroc_evidence"] == 1.0  # the kept query finds its document, the withheld one does not
    assert {"auroc_top1_cosine", "answered_pct_kept", "abstained_pct_withheld", "evidence_ms_p95"} <= set(withhold)


def test_a_corpus_id_the_phi_screen_rekeys_is_still_scored(tmp_path: Path, local_deps: Dependencies,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a record whose 8-digit id reads as an MRN beside the name in its title: stored under a pseudonym
    write_beir(tmp_path)
    record = {"_id": "84736251", "title": "Zebulon Quartermaine", "text": "Metformin starts at 500 mg with meals."}
    (tmp_path / "corpus.jsonl").write_text(json.dumps(record))
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\t84736251\t1\n")
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))

    code = main(["eval", "retrieval", "--corpus", str(tmp_path / "corpus.jsonl"),
                 "--queries", str(tmp_path / "queries.jsonl"), "--qrels", str(tmp_path / "qrels.tsv"), "--json"])

    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["queries"] == 1 and report["ndcg@10"] == 1.0  # mapped back through its doc_id
    assert all("84736251" not in d.doc_key for d in local_deps.documents.list(limit=10))
