"""A new version of a document keeps what its upload does not state (specialty, source type, title) from the
active version, on every path in (the API, the CLI and the S3 trigger share registration.register)."""

from __future__ import annotations

import pytest
from voiceassist_local.cli.local import wait_for_jobs
from voiceassist_local.cli.remote import report

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.models import DocumentStatus, JobState, SearchFilters, SearchMode, SearchQuery, SourceType

V1 = b"Colchicine 1.2 mg, then 0.6 mg an hour later, treats an acute gout flare.\n"
V2 = b"Colchicine 1.2 mg, then 0.6 mg one hour later, treats an acute gout flare within 36 hours.\n"


def ingest(deps: Dependencies, data: bytes, values: dict[str, object]) -> tuple[str, list[str]]:
    registered = service.accept_upload(deps, filename="gout-flare.txt", data=data,
                                       metadata=service.metadata_for("gout-flare.txt", values, data))
    [job] = wait_for_jobs(deps, [registered.job.job_id], show=False)
    assert job.state is JobState.COMPLETED, job.reason
    return job.doc_id, job.metadata_inherited


def test_reingest_without_specialty_keeps_the_active_versions_specialty_in_the_filter(
        local_deps: Dependencies) -> None:
    ingest(local_deps, V1, {"specialty": "rheumatology", "source_type": "guideline", "title": "ACR gout 2020"})

    doc_id, inherited = ingest(local_deps, V2, {})  # `voiceassist ingest gout-flare.txt`, no --specialty

    assert inherited == ["title", "source_type", "specialty"]
    document = local_deps.documents.get(doc_id)
    assert document.version == 2 and document.status is DocumentStatus.ACTIVE
    assert (document.metadata.specialty, document.metadata.source_type, document.metadata.title) == (
        "rheumatology", SourceType.GUIDELINE, "ACR gout 2020")
    hits = local_deps.index.search(SearchQuery(text="colchicine gout flare", mode=SearchMode.BM25,
                                               filters=SearchFilters(specialties=["rheumatology"])))
    assert {(h.chunk.doc_id, h.chunk.version) for h in hits} == {(doc_id, 2)}


def test_reingest_with_a_stated_value_replaces_the_active_versions_and_inherits_the_rest(
        local_deps: Dependencies) -> None:
    ingest(local_deps, V1, {"specialty": "rheumatology", "source_type": "guideline"})

    doc_id, inherited = ingest(local_deps, V2, {"specialty": "nephrology"})

    assert inherited == ["source_type"]  # the title, the same file name in both, is not reported as kept
    metadata = local_deps.documents.get(doc_id).metadata
    assert (metadata.specialty, metadata.source_type, metadata.title) == (
        "nephrology", SourceType.GUIDELINE, "gout flare")


def test_ingest_report_names_the_fields_kept_from_the_active_version(capsys: pytest.CaptureFixture[str]) -> None:
    report([{"file": "gout-flare.txt", "state": "COMPLETED", "reason": None,
             "metadata_inherited": ["source_type", "specialty"]},
            {"file": "new.txt", "state": "COMPLETED", "reason": None, "metadata_inherited": []}], as_json=False)

    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "COMPLETED  gout-flare.txt  kept from the active version: source_type, specialty"
    assert lines[1] == "COMPLETED  new.txt"


PATIENT = ("Zebulon", "Quartermaine", "84736251", "zquartermaine")


def test_reingest_inherits_the_screened_title_never_the_raw_one(local_deps: Dependencies,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    ingest(local_deps, V1, {"title": "Discharge plan for Zebulon Quartermaine, MRN 84736251"})

    doc_id, inherited = ingest(local_deps, V2, {})

    title = local_deps.documents.get(doc_id).metadata.title
    assert inherited == ["title"] and "<PERSON>" in title
    assert not any(part.lower() in title.lower() for part in PATIENT)
    assert not any(part in record.getMessage() + str(record.__dict__) for record in caplog.records
                   for part in PATIENT[2:])


def test_upload_named_with_a_windows_path_keeps_neither_folder_nor_patient(local_deps: Dependencies,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    filename = "C:\\Users\\zquartermaine\\Zebulon_Quartermaine_MRN84736251_discharge.txt"
    registered = service.accept_upload(local_deps, filename=filename, data=V1,
                                       metadata=service.metadata_for(filename, {}, V1))
    [job] = wait_for_jobs(local_deps, [registered.job.job_id], show=False)

    document = local_deps.documents.get(job.doc_id)
    stored = document.doc_key + document.metadata.title + document.blob_key
    assert job.state is JobState.COMPLETED and "discharge" in document.metadata.title
    assert "Users" not in stored and not any(part.lower() in stored.lower() for part in PATIENT)
    logged = " ".join(record.getMessage() + str(record.__dict__) for record in caplog.records)
    assert not any(part in logged for part in PATIENT) and "Users" not in logged
