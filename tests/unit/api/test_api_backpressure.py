"""Backpressure: with the ingestion backlog full, an upload or a retry is a 429 with Retry-After, and nothing
of it is stored; once the backlog drains, uploads are accepted again (events only, no sockets)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.ingest import stages as ingestion


def upload(n: int) -> tuple[int, Any, dict[str, str]]:
    body = json.dumps({"filename": f"note-{n}.md", "text": f"# Note {n}\nZorbafen note number {n}."}).encode()
    reply = invoke("api", to_api_gateway_event("POST", "/v1/documents", {"content-type": "application/json"}, body))
    headers = {k.lower(): v for k, v in (reply.get("headers") or {}).items()}
    headers |= {k.lower(): v[-1] for k, v in (reply.get("multiValueHeaders") or {}).items()}
    return reply["statusCode"], json.loads(reply["body"]), headers


@pytest.fixture
def small_backlog(local_deps: Dependencies) -> Dependencies:
    local_deps.settings = local_deps.settings.model_copy(update={"max_ingestion_backlog": 3})
    for n in range(3):  # three uploads waiting for a worker: the backlog is full
        service.accept_upload(local_deps, filename=f"queued-{n}.md", data=f"queued {n}".encode(),
                              metadata=service.metadata_for(f"queued-{n}.md", {}), start_pipeline=False)
    return local_deps


def test_an_upload_beyond_the_backlog_is_a_429_with_retry_after(small_backlog: Dependencies) -> None:
    status, body, headers = upload(99)
    assert status == 429 and body["error"]["code"] == "too_many_requests"
    assert int(headers["retry-after"]) == body["error"]["retry_after"] > 0
    assert not small_backlog.documents.versions("note-99")


def test_a_retry_beyond_the_backlog_is_a_429(small_backlog: Dependencies) -> None:
    job = small_backlog.jobs.list(limit=1)[0]
    ingestion.fail_job(small_backlog.ingestion, job.job_id, job.doc_id, {"Error": "X", "Cause": "test"})
    # two in flight now: room for one more, so fill it again
    service.accept_upload(small_backlog, filename="queued-x.md", data=b"queued x",
                          metadata=service.metadata_for("queued-x.md", {}), start_pipeline=False)
    reply = invoke("api", to_api_gateway_event("POST", f"/v1/jobs/{job.job_id}/retry", {}, b""))
    assert reply["statusCode"] == 429


def test_uploads_are_accepted_again_once_the_backlog_drains(small_backlog: Dependencies) -> None:
    for job in small_backlog.jobs.list(limit=10):
        ingestion.fail_job(small_backlog.ingestion, job.job_id, job.doc_id, {"Error": "X", "Cause": "drained"})
    status, body, _ = upload(100)
    assert status == 202, body
