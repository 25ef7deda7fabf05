"""Bulk ingestion of a BEIR corpus.jsonl through the real pipeline (a five-record corpus written per test)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.bulk import ingest_beir_corpus

from voiceassist.adapters.local import index_tables
from voiceassist.composition import Dependencies
from voiceassist.errors import InvalidInput
from voiceassist.models import Chunk, DocumentStatus, SearchMode, SearchQuery
from voiceassist.phi.detection import FailClosedDetector

RECORDS = [
    {"_id": "4983", "title": "Metformin and lactic acidosis",
     "text": "Lactic acidosis during metformin therapy is rare and mostly follows acute kidney injury."},
    {"_id": "5836", "title": "Statins after stroke", "text": "Atorvastatin 80 mg reduced recurrent stroke."},
    {"_id": "7912", "title": "Sepsis bundles", "text": "Antibiotics within one hour lowered sepsis mortality."},
    {"_id": "18670", "title": "", "text": "Vitamin D supplements did not prevent fractures in older adults."},
    {"_id": "19238", "title": "Aspirin dosing", "text": "Low-dose aspirin 81 mg daily after myocardial infarction."},
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(record) for record in RECORDS) + "\n", encoding="utf-8")
    return path


def test_ingest_beir_corpus_indexes_every_record_under_its_id(local_deps: Dependencies, corpus: Path) -> None:
    summary = ingest_beir_corpus(local_deps, corpus, show=False)

    assert (summary["completed"], summary["failed"], summary["unchanged"]) == (5, 0, 0)
    assert summary["chunks"] == local_deps.index.count() >= 5
    assert {d.doc_key for d in local_deps.documents.list(status=DocumentStatus.ACTIVE)} == {
        r["_id"] for r in RECORDS}
    hits = local_deps.index.search(SearchQuery(text="lactic acidosis metformin", mode=SearchMode.BM25, top_k=1))
    assert hits[0].chunk.doc_key == "4983"
    assert local_deps.documents.get(hits[0].chunk.doc_id).metadata.title == "Metformin and lactic acidosis"


def test_ingest_beir_corpus_again_finds_every_record_unchanged(local_deps: Dependencies, corpus: Path) -> None:
    first = ingest_beir_corpus(local_deps, corpus, show=False)

    again = ingest_beir_corpus(local_deps, corpus, show=False)

    assert (again["completed"], again["unchanged"], again["chunks"]) == (0, 5, 0)
    assert local_deps.index.count() == first["chunks"]


def test_ingest_beir_corpus_leaves_the_process_wide_pipeline_as_it_found_it(
        local_deps: Dependencies, corpus: Path) -> None:
    runner, context = local_deps.pipelines, local_deps.ingestion

    ingest_beir_corpus(local_deps, corpus, limit=2, show=False)

    assert local_deps.pipelines is runner and local_deps.ingestion is context


def test_ingest_beir_corpus_names_the_line_without_an_id(local_deps: Dependencies, tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps(RECORDS[0]) + "\n" + json.dumps({"title": "x", "text": "y"}) + "\n")

    with pytest.raises(InvalidInput, match=r"corpus.jsonl:2: a BEIR corpus line needs an _id"):
        ingest_beir_corpus(local_deps, path, show=False)


class _DetectorDown:
    def detect(self, text: str) -> None:
        raise RuntimeError("the PHI detector is down")


def test_ingest_beir_corpus_finds_a_rekeyed_record_unchanged_after_its_first_ingestion_failed(
        local_deps: Dependencies, tmp_path: Path) -> None:
    # Given a record whose title names a patient, so its numeric id is stored under a pseudonym, and whose first
    # ingestion failed closed (the PHI screen could not run: the version stays under its raw key, FAILED)
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"_id": "84736251", "title": "Discharge summary for Zebulon Quartermaine",
                                "text": "Sepsis treated with antibiotics within one hour."}) + "\n")
    screen = local_deps.phi_detector
    local_deps.phi_detector = FailClosedDetector(_DetectorDown())  # type: ignore[misc]
    assert ingest_beir_corpus(local_deps, path, show=False)["failed"] == 1
    local_deps.phi_detector = screen  # type: ignore[misc]
    assert ingest_beir_corpus(local_deps, path, show=False)["completed"] == 1
    chunks = local_deps.index.count()

    # When the corpus is ingested again
    again = ingest_beir_corpus(local_deps, path, show=False)

    # Then the live, re-keyed version is found: nothing is indexed a second time
    assert (again["completed"], again["unchanged"]) == (0, 1)
    assert local_deps.index.count() == chunks
    [live] = local_deps.documents.list(status=DocumentStatus.ACTIVE)
    assert live.doc_key.startswith("<") and live.version == 2


def test_ingest_beir_corpus_fails_only_the_record_whose_index_write_fails(
        local_deps: Dependencies, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an index that cannot store one record's chunks (its writes are gathered with the others')
    insert = index_tables.insert_chunks

    def insert_unless_sepsis(db: Any, chunks: Sequence[Chunk], *args: Any) -> int:
        if any(c.doc_key == "7912" for c in chunks):
            raise RuntimeError("disk full while writing 7912")
        return insert(db, chunks, *args)

    monkeypatch.setattr(index_tables, "insert_chunks", insert_unless_sepsis)

    summary = ingest_beir_corpus(local_deps, corpus, show=False)

    # Then that record alone fails; every other one is indexed and searchable, none lost with the failed group
    assert (summary["completed"], summary["failed"]) == (4, 1)
    assert [f["doc_key"] for f in summary["failures"]] == ["7912"]
    assert {d.doc_key for d in local_deps.documents.list(status=DocumentStatus.ACTIVE)} == {
        r["_id"] for r in RECORDS} - {"7912"}
    assert summary["chunks"] == local_deps.index.count()
    hits = local_deps.index.search(SearchQuery(text="sepsis antibiotics mortality", mode=SearchMode.BM25, top_k=5))
    assert all(hit.chunk.doc_key != "7912" for hit in hits)
