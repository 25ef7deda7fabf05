"""S3 Object Created (EventBridge) -> start the ingestion workflow once per object version."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.ingest import triggers
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False)  # the reply names the object key (a file name)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return triggers.handle_object_created(dependencies(), event, lambda_context=context)
