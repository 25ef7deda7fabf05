"""End to end over real HTTP: start the local server on an ephemeral port, upload a PDF, wait for its job,
ask a question only that PDF answers, and check the citation names the document and page."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from voiceassist_local.server import ADMIN_GROUPS, make_server

from tests.support.pdfgen import build_pdf


@pytest.fixture
def server_url(local_deps) -> Iterator[str]:  # type: ignore[no-untyped-def]
    server = make_server("127.0.0.1", 0, groups=ADMIN_GROUPS)  # uploads: the operator asked for admin rights
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def request(url: str, method: str = "GET", body: bytes | None = None, content_type: str = "application/json"
            ) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=body, method=method, headers={"content-type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_upload_pdf_then_ask_cites_its_page(server_url: str) -> None:
    pdf = build_pdf([
        ("Zorbafen prescribing notes", ["Zorbafen is a fictional drug used only in this test. " * 3]),
        ("Dosing", ["The recommended adult dose of zorbafen for quartan fever is 37 mg twice daily for 9 days."]),
    ], footer="Test document", title="Zorbafen prescribing notes")
    # (a title where the fictional drug does not lead: "Zorbafen notes" reads as a surname to the metadata's PHI screen)
    status, accepted = request(f"{server_url}/v1/documents?filename=zorbafen.pdf&title=Notes%20on%20zorbafen"
                               "&source_type=drug_reference", "POST", pdf, "application/pdf")
    assert status == 202, accepted
    job_url = f"{server_url}{accepted['links']['job']}"
    deadline = time.monotonic() + 120
    while True:
        status, job = request(job_url)
        if job["state"] in ("COMPLETED", "FAILED") or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert job["state"] == "COMPLETED", job

    status, answer = request(f"{server_url}/v1/query", "POST",
                             json.dumps({"query": "What dose of zorbafen is recommended for quartan fever?"}).encode())
    assert status == 200, answer
    assert "37 mg" in answer["answer"]
    cited = [c for c in answer["citations"] if c["doc_id"] == accepted["doc_id"]]
    assert cited and cited[0]["title"] == "Notes on zorbafen" and cited[0]["page"] == 2
    assert "37 mg twice daily" in cited[0]["excerpt"]
