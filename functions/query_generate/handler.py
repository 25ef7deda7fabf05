"""Generate Answer: one tier of the fallback chain (cloud, local or extractive), chosen by the state machine."""

from __future__ import annotations

from typing import Any

from voiceassist import answering, orchestrator
from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = orchestrator.QueryState.model_validate(event["state"])
    failure = event.get("failure")
    state = answering.generate(dependencies().query, state, tier=event["tier"], failure=failure)
    return state.model_dump(mode="json")
