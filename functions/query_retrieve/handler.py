"""Search One Source: a parallel branch of the query pipeline; its failure becomes a warning, not an error."""

from __future__ import annotations

from typing import Any

from voiceassist import orchestrator
from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = orchestrator.QueryState.model_validate(event["state"])
    source = event["source"]
    hits = orchestrator.search_source(dependencies().query, state, source)
    return {"source": source, "hits": [h.model_dump(mode="json") for h in hits], "latency_ms": state.latency_ms}
