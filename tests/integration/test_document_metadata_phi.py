"""Document file names and metadata pass the PHI boundary on every entry path (docs/phi.md, "Document metadata").

A guideline whose file name and metadata name a patient (name, MRN, date of birth) is uploaded through the REST
route, the presigned S3 form's path (object metadata read by ingest_trigger), the incoming/ folder watcher, the
bulk CLI and the Nextcloud tool's ingestion. Each time the real ingest workflow runs (with Screen Metadata on
the real detector), and the document ends ACTIVE with redacted metadata, while its search hits, the citations of
an answer, GET /v1/documents, the job, the audit records and every log line carry none of the patient's values.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from voiceassist_local.cli.local import upload_files
from voiceassist_local.handlers import invoke
from voiceassist_local.incoming import IncomingFolderWatcher
from voiceassist_local.server import to_api_gateway_event

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.composition.workspace import _ingest as workspace_ingest
from voiceassist.ingest.triggers import object_created_event
from voiceassist.models import DocumentMetadata, DocumentStatus, JobState, QueryRequest, SearchMode, SearchQuery

PHI_NAME = "Zebulon_Quartermaine_MRN_84736251_DOB_1961-04-17_sepsis.md"
PHI_TITLE = "Sepsis plan for Zebulon Quartermaine, MRN 84736251"
PHI_VALUES = ("zebulon", "quartermaine", "84736251", "1961-04-17", "1961 04 17")
GUIDE = (b"# Sepsis bundle\n\nMeasure the serum lactate within one hour of recognising sepsis. Septic shock is "
         b"hypotension needing vasopressors to keep a mean arterial pressure of 65 mmHg, with a lactate above "
         b"2 mmol/L despite adequate fluid resuscitation.\n")
QUESTION = "What lactate level defines septic shock?"


def _api(method: str, path: str, body: bytes = b"", content_type: str = "application/json") -> tuple[int, Any]:
    event = to_api_gateway_event(method, path, {"content-type": content_type} if body else {}, body,
                                 groups="admin")
    reply = invoke("api", event)
    return reply["statusCode"], json.loads(reply["body"])


def _settle(deps: Dependencies) -> None:
    deps.pipelines.join(timeout=120)  # type: ignore[attr-defined]  # the local runner


def _through_rest(deps: Dependencies, tmp_path: Path) -> str:
    query = f"filename={quote(PHI_NAME)}&title={quote(PHI_TITLE)}&specialty=critical%20care"
    status, body = _api("POST", f"/v1/documents?{query}", GUIDE, "text/markdown")
    assert status == 202, body
    return str(body["job_id"])


def _through_presigned_form(deps: Dependencies, tmp_path: Path) -> str:
    # What S3 holds after a browser POSTed the presigned form: the key names no file, the metadata does
    key = f"incoming/{uuid.uuid4().hex}/document.md"
    deps.blobs.put(key, GUIDE, content_type="text/markdown", metadata={"filename": PHI_NAME, "title": PHI_TITLE})
    reply = invoke("ingest_trigger", object_created_event("documents", key, "etag-1", len(GUIDE)))
    assert reply["status"] == "started", reply
    return _only_job(deps)


def _through_incoming_folder(deps: Dependencies, tmp_path: Path) -> str:
    folder = deps.settings.blob_dir / "incoming"
    folder.mkdir(parents=True)
    (folder / (PHI_NAME + ".meta.json")).write_text(json.dumps({"title": PHI_TITLE}))
    (folder / PHI_NAME).write_bytes(GUIDE)
    watcher = IncomingFolderWatcher(deps.settings.blob_dir)
    watcher.poll()  # first sighting: it may still be being written
    assert [reply["status"] for reply in watcher.poll()] == ["started"]
    return _only_job(deps)


def _through_bulk_cli(deps: Dependencies, tmp_path: Path) -> str:
    path = tmp_path / PHI_NAME
    path.write_bytes(GUIDE)
    [(_, job_id, error)] = upload_files(deps, [path], {"title": PHI_TITLE}, show=False)
    assert error is None and job_id
    return job_id


def _through_nextcloud_tool(deps: Dependencies, tmp_path: Path) -> str:
    # add_nextcloud_file_to_knowledge_base's ingestion, with the metadata the tool builds (tools/files.py)
    path = f"Patients/Zebulon Quartermaine/{PHI_NAME}"
    metadata = DocumentMetadata(doc_key=f"workspace/admin-1/{path}", title=PHI_NAME)
    return str(workspace_ingest(deps, PHI_NAME, GUIDE, metadata)["job_id"])


def _only_job(deps: Dependencies) -> str:
    _settle(deps)
    [job] = deps.jobs.list(limit=10)
    return job.job_id


def _without_phi(text: str, where: str) -> None:
    found = [value for value in PHI_VALUES if value in text.lower()]
    assert not found, f"{where} holds {found}: {text[:2000]}"


@pytest.mark.parametrize("upload", [_through_rest, _through_presigned_form, _through_incoming_folder,
                                    _through_bulk_cli, _through_nextcloud_tool])
def test_a_patient_in_a_file_name_and_metadata_never_leaves_the_screen(
        local_deps: Dependencies, tmp_path: Path, capfd: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture, upload: Callable[[Dependencies, Path], str]) -> None:
    # Given a guideline uploaded with a patient's name, MRN and date of birth in its file name and metadata
    job_id = upload(local_deps, tmp_path)
    _settle(local_deps)

    # Then it is indexed, ACTIVE, with its metadata redacted and the redacted types reported on the job
    job = local_deps.jobs.get(job_id)
    assert job.state is JobState.COMPLETED, job.reason
    assert {"PERSON", "MEDICAL_RECORD_NUMBER"} <= set(job.metadata_phi_redacted)
    document = local_deps.documents.get(job.doc_id)
    assert document.status is DocumentStatus.ACTIVE and document.metadata_screened
    assert "<PERSON>" in document.metadata.title and document.doc_key == job.doc_key
    _without_phi(job.model_dump_json(), "the job")
    _without_phi(document.metadata.model_dump_json() + document.doc_key, "the stored metadata")

    # and what users see: the document list, the document, the job, search hits and an answer's citations
    for path in ("/v1/documents", f"/v1/documents/{document.doc_id}", f"/v1/jobs/{job_id}", "/v1/jobs"):
        status, body = _api("GET", path)
        assert status == 200, body
        _without_phi(json.dumps(body), f"GET {path}")
    hits = local_deps.index.search(SearchQuery(text="lactate septic shock", mode=SearchMode.BM25, top_k=10))
    assert [hit.chunk.doc_id for hit in hits] == [document.doc_id]
    _without_phi(json.dumps([hit.chunk.model_dump(mode="json", exclude={"text"}) for hit in hits]), "search hits")
    for value in ("Quartermaine", "Zebulon", "84736251"):  # nothing indexed under the patient's values
        assert local_deps.index.search(SearchQuery(text=value, mode=SearchMode.BM25, top_k=10)) == []
    answer = service.answer(local_deps, QueryRequest(query=QUESTION), user_id="clinician-1")
    assert answer.citations and answer.citations[0].doc_id == document.doc_id
    _without_phi(json.dumps([c.model_dump(mode="json") for c in answer.citations]), "citations")

    # and the audit records and the logs of the whole run
    _without_phi(json.dumps([r.model_dump(mode="json") for r in local_deps.audit.list(limit=100)]), "audit")
    captured = capfd.readouterr()
    _without_phi(captured.out + captured.err + caplog.text, "the logs")
