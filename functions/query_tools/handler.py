"""Run One Tool: an iteration of the query's "Run Tools" Map, one call through the tool executor."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.models import ToolCall
from voiceassist.observability import logger, tracer
from voiceassist.query import tool_loop
from voiceassist.query.state import QueryState


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # tool arguments and results: PHI
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = QueryState.model_validate(event["state"])
    call = ToolCall.model_validate(event["call"])
    return tool_loop.run_tool(dependencies().tool_executor, state, call).model_dump(mode="json")
