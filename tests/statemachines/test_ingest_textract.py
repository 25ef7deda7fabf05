"""The AWS OCR branch of ingest.asl.json, run in-process: Start OCR starts a Textract job (botocore Stubber
with Textract-shaped responses), Wait For OCR and Check OCR loop until it finishes, and the loop is bounded:
past VOICEASSIST_OCR_MAX_WAIT_SECONDS the job fails with a reason instead of waiting for ever."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from tests.unit.test_textract_ocr import textract_blocks
from voiceassist.adapters.aws.textract_ocr import TextractOcr
from voiceassist.composition import Dependencies
from voiceassist.models import DocumentStatus, JobState, SearchMode, SearchQuery

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
JOB_ID = "f" * 64
RUNNING = {"JobStatus": "IN_PROGRESS"}
POLL = {"JobId": JOB_ID, "MaxResults": 1000}


@pytest.fixture
def textract(ingest_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stubber]:
    """Textract behind the ingest deps' OCR port, polled with no real wait between checks."""
    client = boto3.client("textract", region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    monkeypatch.setattr(type(ingest_deps), "ocr_poll_seconds", property(lambda _self: 0))
    ingest_deps.ocr = TextractOcr(bucket="voiceassist-documents", client=client)
    with Stubber(client) as stubber:
        stubber.add_response("start_document_text_detection", {"JobId": JOB_ID},
                             {"DocumentLocation": ANY, "ClientRequestToken": ANY})
        yield stubber


def test_textract_branch_polls_until_the_job_finishes_and_indexes_its_text(
        ingest_deps: Dependencies, ingest: Callable[..., Any], textract: Stubber) -> None:
    textract.add_response("get_document_text_detection", RUNNING, POLL)
    textract.add_response("get_document_text_detection", RUNNING, POLL)
    textract.add_response("get_document_text_detection", {
        "JobStatus": "SUCCEEDED", "DocumentMetadata": {"Pages": 2},
        "Blocks": textract_blocks(1, [("Amoxicillin 500 mg PO q8h", [99.0, 99.0, 98.0, 97.0, 96.0])])
        + textract_blocks(2, [("Epinephrine 0.5 mg IM", [62.0, 60.0, 58.0, 60.0])])}, POLL)

    job = ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    textract.assert_no_pending_responses()
    assert (job.state, job.reason) == (JobState.COMPLETED, None)
    assert [(p.number, p.confidence, p.low_confidence) for p in job.ocr_pages] == [(1, 97.8, False), (2, 60.0, True)]
    hits = ingest_deps.index.search(SearchQuery(text="epinephrine", mode=SearchMode.BM25, top_k=5))
    assert hits and hits[0].chunk.text.startswith("Epinephrine 0.5 mg IM") and hits[0].chunk.low_confidence


def test_textract_branch_gives_up_after_the_longest_wait(
        ingest_deps: Dependencies, ingest: Callable[..., Any], textract: Stubber,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(ingest_deps), "ocr_max_wait_seconds", property(lambda _self: 3))
    for _ in range(3):
        textract.add_response("get_document_text_detection", RUNNING, POLL)

    job = ingest("scanned.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    textract.assert_no_pending_responses()  # three checks, then the job failed: a bounded loop
    assert job.state is JobState.FAILED
    assert job.reason == "OCR timed out: Textract had not finished 2 page(s) after 3 s"
    assert ingest_deps.documents.get(job.doc_id).status is DocumentStatus.FAILED


def test_textract_failure_on_a_page_fails_the_job_naming_the_page(
        ingest_deps: Dependencies, ingest: Callable[..., Any], textract: Stubber) -> None:
    textract.add_response("get_document_text_detection", {
        "JobStatus": "PARTIAL_SUCCESS", "Blocks": textract_blocks(1, [("Amoxicillin", [99.0])]),
        "Warnings": [{"ErrorCode": "PAGE_TOO_LARGE", "Pages": [2]}]}, POLL)

    job = ingest("mixed.pdf", (DOCUMENTS / "scanned_two_pages.pdf").read_bytes())

    assert job.state is JobState.FAILED
    assert job.reason == "OCR failed on page 2: Textract PAGE_TOO_LARGE"
    assert ingest_deps.index.count(job.doc_key, searchable_only=False) == 0
