"""Detect PHI: Presidio with clinical recognizers; a detector failure counts as PHI."""

from __future__ import annotations

from typing import Any

from voiceassist import english_pipeline
from voiceassist.composition import dependencies
from voiceassist.conversation import events
from voiceassist.observability import logger, tracer
from voiceassist.query import planning
from voiceassist.query.state import QueryState, carried

english_pipeline.require()  # the parse readings run here: no spaCy, no cold start (constants/functions.py)


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # the state holds the raw question (PHI)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = QueryState.model_validate(event)
    state = planning.detect_phi(dependencies().query, state)
    events.after_step(dependencies(), "detect_phi", state)
    return carried(state)
