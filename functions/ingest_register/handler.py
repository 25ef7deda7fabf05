"""Register Document: record the upload as a document version (or pick up an already registered job)."""

from __future__ import annotations

from typing import Any

from voiceassist import ingestion
from voiceassist.composition import dependencies
from voiceassist.models import DocumentMetadata
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    ctx = dependencies().ingestion
    if "job_id" not in event:  # started by the S3 trigger: nothing registered yet
        registration = ingestion.register(ctx, blob_key=event["blob_key"],
                                          metadata=DocumentMetadata.model_validate(event["metadata"]),
                                          filename=event.get("filename"))
        event = registration.pipeline_input()
    return ingestion.start_job(ctx, event["job_id"])
