"""Run One Tool: an iteration of the query's "Run Tools" Map, one call through the tool executor; also the
remote tool runner of the api and mcp functions, which have no ML layer (tools/remote.py): the same executor,
with the caller they authenticated."""

from __future__ import annotations

from typing import Any

from voiceassist.composition import dependencies
from voiceassist.models import ToolCall
from voiceassist.observability import logger, tracer
from voiceassist.query import tool_loop
from voiceassist.query.state import QueryState
from voiceassist.tools.remote import caller_from_event


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # tool arguments and results: PHI
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    call = ToolCall.model_validate(event["call"])
    if "caller" in event:  # {"call", "caller"}: an api or mcp function's call (LambdaToolRunner)
        return dependencies().tool_executor.execute(call, caller_from_event(event["caller"])).model_dump(mode="json")
    state = QueryState.model_validate(event["state"])
    return tool_loop.run_tool(dependencies().tool_executor, state, call).model_dump(mode="json")
