"""Register Document: record the upload as a document version (or pick up an already registered job);
Mark Registration Failed: fail the job a failed registration left behind."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.ingest import registration
from voiceassist.ingest import stages as ingestion
from voiceassist.models import DocumentMetadata
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    ctx = dependencies().ingestion
    if "failure" in event:  # the workflow's Catch: this execution's registration failed
        return registration.fail_registration(ctx, event["execution_id"], event["failure"])
    request = event["request"]  # the execution's state; the ASL adds the execution id beside it
    if "job_id" not in request:  # started by the S3 trigger: nothing registered yet
        registered = registration.register(ctx, blob_key=request["blob_key"],
                                           metadata=DocumentMetadata.model_validate(request["metadata"]),
                                           filename=request.get("filename"), execution_id=event["execution_id"])
        request = registered.pipeline_input()
    return ingestion.start_job(ctx, request["job_id"])
