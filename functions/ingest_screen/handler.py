"""Screen Metadata: the PHI detector over a registered version's file name, title and metadata (see
voiceassist.ingest.screening); a detector failure fails the job, closed."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.ingest import screening
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # an error could quote a value
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    deps = dependencies()
    return screening.screen_document(deps.ingestion, deps.phi_detector, event["doc_id"], event["job_id"])
