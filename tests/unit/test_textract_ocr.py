"""The Textract adapter against botocore's Stubber with responses shaped as Textract returns them: a job is
started once per job attempt (an idempotency token), polled until it finishes, its pages assembled from LINE
blocks with the mean WORD confidence, and every failure turned into a reason or a retryable error."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from voiceassist.adapters.aws.textract_ocr import TextractOcr, pages_from_blocks
from voiceassist.errors import DependencyError, ExtractionError

BUCKET = "voiceassist-documents"
JOB_ID = "a" * 64


def textract_blocks(page: int, lines: list[tuple[str, list[float]]]) -> list[dict[str, Any]]:
    """A page's blocks as Textract lists them: the PAGE, then each LINE followed by its WORDs."""
    blocks: list[dict[str, Any]] = [{"BlockType": "PAGE", "Page": page, "Id": f"p{page}"}]
    for n, (text, confidences) in enumerate(lines):
        blocks.append({"BlockType": "LINE", "Page": page, "Id": f"l{page}-{n}", "Text": text,
                       "Confidence": sum(confidences) / len(confidences)})
        for m, (word, confidence) in enumerate(zip(text.split(), confidences, strict=True)):
            blocks.append({"BlockType": "WORD", "Page": page, "Id": f"w{page}-{n}-{m}", "Text": word,
                           "Confidence": confidence, "TextType": "PRINTED"})
    return blocks


@pytest.fixture
def client() -> Iterator[tuple[Any, Stubber]]:
    textract = boto3.client("textract", region_name="us-east-1", aws_access_key_id="testing",
                            aws_secret_access_key="testing")
    with Stubber(textract) as stubber:
        yield textract, stubber
        stubber.assert_no_pending_responses()


def test_textract_start_reads_the_pdf_in_place_with_an_idempotency_token(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    stubber.add_response("start_document_text_detection", {"JobId": JOB_ID}, {
        "DocumentLocation": {"S3Object": {"Bucket": BUCKET, "Name": "documents/scan.pdf"}},
        "ClientRequestToken": _token("documents/scan.pdf"),
    })

    run = TextractOcr(bucket=BUCKET, client=textract).start("documents/scan.pdf", [1, 2], attempt_key="job_1/1")

    assert (run.ticket, run.done, run.pages) == (JOB_ID, False, [])


def _token(key: str) -> str:
    return hashlib.sha256(f"{BUCKET}/{key}/job_1/1".encode()).hexdigest()[:64]


def test_textract_poll_of_a_running_job_is_not_done(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    stubber.add_response("get_document_text_detection", {"JobStatus": "IN_PROGRESS"},
                         {"JobId": JOB_ID, "MaxResults": 1000})

    run = TextractOcr(bucket=BUCKET, client=textract).poll(JOB_ID, [1])

    assert (run.done, run.ticket) == (False, JOB_ID)


def test_textract_finished_job_gives_the_wanted_pages_across_result_pages(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    first = textract_blocks(1, [("Text layer page", [99.0, 99.0, 99.0])])
    second = textract_blocks(2, [("Epinephrine 0.5 mg IM", [99.5, 98.5, 97.0, 95.0]),
                                 ("Repeat after 5 min", [90.0, 80.0, 70.0, 60.0])])
    metadata = {"Pages": 2}
    stubber.add_response("get_document_text_detection",
                         {"JobStatus": "SUCCEEDED", "DocumentMetadata": metadata, "Blocks": first,
                          "NextToken": "more"}, {"JobId": JOB_ID, "MaxResults": 1000})
    stubber.add_response("get_document_text_detection",
                         {"JobStatus": "SUCCEEDED", "DocumentMetadata": metadata, "Blocks": second},
                         {"JobId": JOB_ID, "MaxResults": 1000, "NextToken": "more"})

    run = TextractOcr(bucket=BUCKET, client=textract).poll(JOB_ID, [2])

    assert run.done
    assert [(page.number, page.text, page.confidence) for page in run.pages] == [
        (2, "Epinephrine 0.5 mg IM\nRepeat after 5 min", 86.2)]  # mean of 8 words


def test_textract_partial_success_on_a_wanted_page_fails_naming_it(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    stubber.add_response("get_document_text_detection", {
        "JobStatus": "PARTIAL_SUCCESS", "Blocks": textract_blocks(1, [("ok", [99.0])]),
        "Warnings": [{"ErrorCode": "UNSUPPORTED_PAGE_FORMAT", "Pages": [3]}]}, {"JobId": JOB_ID, "MaxResults": 1000})

    with pytest.raises(ExtractionError) as caught:
        TextractOcr(bucket=BUCKET, client=textract).poll(JOB_ID, [1, 3])

    assert caught.value.reason == "OCR failed on page 3: Textract UNSUPPORTED_PAGE_FORMAT"


def test_textract_failed_job_fails_with_its_status_message(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    stubber.add_response("get_document_text_detection",
                         {"JobStatus": "FAILED", "StatusMessage": "Request has invalid parameters"},
                         {"JobId": JOB_ID, "MaxResults": 1000})

    with pytest.raises(ExtractionError) as caught:
        TextractOcr(bucket=BUCKET, client=textract).poll(JOB_ID, [1])

    assert caught.value.reason == "OCR failed: Textract job FAILED: Request has invalid parameters"


def test_textract_refusing_the_document_fails_the_job_with_the_reason(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    stubber.add_client_error("start_document_text_detection", "UnsupportedDocumentException",
                             "Request has unsupported document format")

    with pytest.raises(ExtractionError) as caught:
        TextractOcr(bucket=BUCKET, client=textract).start("documents/scan.pdf", [1], attempt_key="job_1/1")

    assert caught.value.reason == ("OCR failed: Textract refused the PDF (UnsupportedDocumentException: "
                                   "Request has unsupported document format)")


def test_textract_throttling_is_a_dependency_error_the_state_machine_retries(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    stubber.add_client_error("get_document_text_detection", "ProvisionedThroughputExceededException", "slow down")

    with pytest.raises(DependencyError, match="ProvisionedThroughputExceededException"):
        TextractOcr(bucket=BUCKET, client=textract).poll(JOB_ID, [1])


def test_pages_from_blocks_gives_a_wanted_page_without_words_empty_text_and_zero_confidence() -> None:
    pages = pages_from_blocks(textract_blocks(1, [("word", [90.0])]), {1, 2})

    assert [(page.number, page.text, page.confidence) for page in pages] == [(1, "word", 90.0), (2, "", 0.0)]


def test_textract_start_of_a_retried_job_uses_a_new_token(client: tuple[Any, Stubber]) -> None:
    textract, stubber = client
    location = {"S3Object": {"Bucket": BUCKET, "Name": "documents/scan.pdf"}}
    stubber.add_response("start_document_text_detection", {"JobId": JOB_ID},
                         {"DocumentLocation": location, "ClientRequestToken": _token("documents/scan.pdf")})
    second = hashlib.sha256(f"{BUCKET}/documents/scan.pdf/job_1/2".encode()).hexdigest()[:64]
    stubber.add_response("start_document_text_detection", {"JobId": "b" * 64},
                         {"DocumentLocation": location, "ClientRequestToken": second})
    ocr = TextractOcr(bucket=BUCKET, client=textract)

    first_run = ocr.start("documents/scan.pdf", [1], attempt_key="job_1/1")
    retried_run = ocr.start("documents/scan.pdf", [1], attempt_key="job_1/2")

    assert (first_run.ticket, retried_run.ticket) == (JOB_ID, "b" * 64)
