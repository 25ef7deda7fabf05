"""Chunk stage of the ingestion pipeline (see voiceassist.ingest.stages.chunk_document)."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.ingest import stages as ingestion
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return ingestion.chunk_document(dependencies().ingestion, event["doc_id"], event["job_id"],
                                    event["handoff"]["cleaned"])
