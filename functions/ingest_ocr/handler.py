"""OCR stage of the ingestion pipeline: "Start OCR" and "Check OCR" (see voiceassist.ingest.ocr)."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.ingest import ocr
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    handoff = event["handoff"]
    if "ticket" in handoff:
        return ocr.check_ocr(dependencies().ingestion, event["doc_id"], event["job_id"], handoff)
    return ocr.start_ocr(dependencies().ingestion, event["doc_id"], event["job_id"], handoff["extracted"],
                         handoff["ocr_pages"])
