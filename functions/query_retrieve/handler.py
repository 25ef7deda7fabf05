"""Search One Source: an iteration of the query pipeline's "Search Sources" Map; a failure there becomes a
warning, not an error (the state machine's Catch)."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.models import SearchBranch
from voiceassist.observability import logger, tracer
from voiceassist.query import retrieval
from voiceassist.query.state import QueryState


@logger.inject_lambda_context
# hits are bulky, and the event holds the question
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = QueryState.model_validate(event["state"])
    source = event["source"]
    branch = source if isinstance(source, str) else SearchBranch.model_validate(source)
    hits = retrieval.search_source(dependencies().query, state, branch)
    # Each hit without its fields at their defaults (no page, DOI or flags): Rank Results validates them back
    return {"source": source, "hits": [h.model_dump(mode="json", exclude_defaults=True) for h in hits],
            "latency_ms": state.latency_ms, "warnings": state.warnings}
