"""Run One Tool: an iteration of the query's "Run Tools" Map, one call through the tool executor; also the
remote tool runner of the api and mcp functions, which have no ML layer (tools/remote.py): the same executor,
with the caller they authenticated, and the input screen of the tool arguments they run themselves (this image
ships spaCy's parse and the embedder: decision 0027, "On AWS too")."""

from __future__ import annotations

from typing import Any

from voiceassist import english_pipeline
from voiceassist.composition import dependencies
from voiceassist.models import ToolCall
from voiceassist.observability import logger, tracer
from voiceassist.query import tool_loop
from voiceassist.query.state import QueryState
from voiceassist.tools.remote import caller_from_event, verdict_reply

english_pipeline.require()  # the parse readings run here: no spaCy, no cold start (constants/functions.py)


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # tool arguments and results: PHI
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if "screen" in event:  # {"screen": [texts]}: an api or mcp function's tool arguments (LambdaToolRunner.screen)
        return verdict_reply(dependencies().tool_executor.screen_verdict(list(event["screen"])))
    call = ToolCall.model_validate(event["call"])
    if "caller" in event:  # {"call", "caller"}: an api or mcp function's call (LambdaToolRunner)
        return dependencies().tool_executor.execute(call, caller_from_event(event["caller"])).model_dump(mode="json")
    state = QueryState.model_validate(event["state"])
    return tool_loop.run_tool(dependencies().tool_executor, state, call).model_dump(mode="json")
