"""Clean stage of the ingestion pipeline (see voiceassist.ingestion.clean_document)."""

from __future__ import annotations

from typing import Any

from voiceassist import ingestion
from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return ingestion.clean_document(dependencies().ingestion, event["doc_id"], event["handoff"]["extracted"])
