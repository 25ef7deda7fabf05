"""Register Document: pick up the job the S3 trigger or the API registered and move it to RUNNING (neither
puts a key or file name into the execution's input); Mark Registration Failed: fail the job a failed
registration left behind."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.errors import InvalidInput
from voiceassist.ingest import registration
from voiceassist.ingest import stages as ingestion
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    ctx = dependencies().ingestion
    if "failure" in event:  # the workflow's Catch: this execution's registration failed
        return registration.fail_registration(ctx, event["execution_id"], event["failure"])
    request = event["request"]  # the execution's state; the ASL adds the execution id beside it
    if "job_id" not in request:  # the S3 trigger and the API register before they start (ingest/triggers.py)
        raise InvalidInput("the execution input names no registered job (job_id): an upload is registered "
                           "before its execution starts, so no key or file name is in the execution's history")
    return ingestion.start_job(ctx, request["job_id"])
