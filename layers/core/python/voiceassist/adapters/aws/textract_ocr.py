"""PageOcr with Amazon Textract's asynchronous text detection (HIPAA-eligible): the PDF is read where it lies
in S3, and the ingest state machine polls the job between Waits, so no Lambda sleeps through it."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from voiceassist.errors import DependencyError, ExtractionError
from voiceassist.models import OcrPage, OcrRun

_REFUSED = {"InvalidS3ObjectException", "UnsupportedDocumentException", "DocumentTooLargeException",
            "BadDocumentException", "InvalidParameterException"}
_STILL_RUNNING = "IN_PROGRESS"


class TextractOcr:
    name = "Textract"

    def __init__(self, *, bucket: str, region: str | None = None, client: Any = None) -> None:
        self._bucket = bucket
        self._region = region
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            import boto3

            self._client = boto3.client("textract", region_name=self._region)
        return self._client

    def start(self, blob_key: str, pages: Sequence[int], *, attempt_key: str) -> OcrRun:
        # The token makes a retried Start (a lost Lambda reply) return the job the first attempt started; a
        # retried ingestion job (a new attempt_key) starts a new Textract job instead of reusing a failed one.
        token = hashlib.sha256(f"{self._bucket}/{blob_key}/{attempt_key}".encode()).hexdigest()[:64]
        reply = self._call("StartDocumentTextDetection", self.client.start_document_text_detection,
                           DocumentLocation={"S3Object": {"Bucket": self._bucket, "Name": blob_key}},
                           ClientRequestToken=token)
        return OcrRun(ticket=reply["JobId"], done=False)

    def poll(self, ticket: str, pages: Sequence[int]) -> OcrRun:
        reply = self._call("GetDocumentTextDetection", self.client.get_document_text_detection,
                           JobId=ticket, MaxResults=1000)
        status = reply.get("JobStatus")
        if status == _STILL_RUNNING:
            return OcrRun(ticket=ticket, done=False)
        if status not in ("SUCCEEDED", "PARTIAL_SUCCESS"):
            raise ExtractionError(f"OCR failed: Textract job {status}: {reply.get('StatusMessage') or 'no reason'}")
        failed = _failed_pages(reply.get("Warnings", []))
        wanted = set(pages)
        blocks = list(reply.get("Blocks", []))
        while reply.get("NextToken"):
            reply = self._call("GetDocumentTextDetection", self.client.get_document_text_detection,
                               JobId=ticket, MaxResults=1000, NextToken=reply["NextToken"])
            blocks.extend(reply.get("Blocks", []))
            failed.update(_failed_pages(reply.get("Warnings", [])))
        for number in sorted(wanted & set(failed)):
            raise ExtractionError(f"OCR failed on page {number}: Textract {failed[number]}")
        return OcrRun(ticket=ticket, done=True, pages=pages_from_blocks(blocks, wanted))

    def _call(self, operation: str, method: Any, **params: Any) -> dict[str, Any]:
        try:
            reply: dict[str, Any] = method(**params)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "ClientError")
            if code in _REFUSED:
                message = exc.response.get("Error", {}).get("Message", "")
                raise ExtractionError(f"OCR failed: Textract refused the PDF ({code}: {message})") from exc
            raise DependencyError(f"Textract {operation} failed ({code}); retry the job") from exc
        except BotoCoreError as exc:
            raise DependencyError(f"Textract {operation} failed ({type(exc).__name__}); retry the job") from exc
        return reply


def pages_from_blocks(blocks: Sequence[dict[str, Any]], wanted: set[int]) -> list[OcrPage]:
    """The wanted pages' text (LINE blocks in reading order) and mean WORD confidence."""
    lines: dict[int, list[str]] = defaultdict(list)
    confidences: dict[int, list[float]] = defaultdict(list)
    for block in blocks:
        number = int(block.get("Page", 1))
        if number not in wanted:
            continue
        if block.get("BlockType") == "LINE":
            lines[number].append(str(block.get("Text", "")))
        elif block.get("BlockType") == "WORD":
            confidences[number].append(float(block.get("Confidence", 0.0)))
    return [
        OcrPage(number=number, text="\n".join(lines[number]),
                confidence=round(sum(confidences[number]) / len(confidences[number]), 1)
                if confidences[number] else 0.0)
        for number in sorted(wanted)
    ]


def _failed_pages(warnings: Sequence[dict[str, Any]]) -> dict[int, str]:
    return {int(page): str(warning.get("ErrorCode", "error")) for warning in warnings
            for page in warning.get("Pages", [])}
