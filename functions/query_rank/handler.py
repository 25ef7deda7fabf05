"""Rank Results: merge the parallel source branches, dedup, and decide whether the results are good enough."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer
from voiceassist.query import retrieval
from voiceassist.query.state import QueryState


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # the state holds the raw question (PHI)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    branches = event.pop("branches", [])
    state = QueryState.model_validate(event)
    return retrieval.merge_search_results(dependencies().query, state, branches).model_dump(mode="json")
