"""Assemble Answer: keep the citations the answer uses, drop and flag the ones that point at nothing."""

from __future__ import annotations

from typing import Any

from voiceassist import english_pipeline
from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer
from voiceassist.query import answering
from voiceassist.query.state import QueryState, carried

english_pipeline.require()  # the parse readings run here: no spaCy, no cold start (constants/functions.py)


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # the state holds the raw question (PHI)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = QueryState.model_validate(event)
    return carried(answering.assemble(dependencies().query, state))
