"""Write Audit Record: redacted text and hashes only, append-only."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer
from voiceassist.query import audit
from voiceassist.query.state import QueryState, carried


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # the state holds the raw question (PHI)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = QueryState.model_validate(event)
    return carried(audit.audit(dependencies().query, state))
