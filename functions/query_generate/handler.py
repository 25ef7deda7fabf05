"""Generate Answer: one tier of the fallback chain (cloud, local or extractive), chosen by the state machine;
it may answer with tool calls, which the "Run Tools" Map runs before the next turn (voiceassist.query.tool_loop)."""

from __future__ import annotations

from typing import Any

from voiceassist import english_pipeline
from voiceassist.composition import dependencies
from voiceassist.conversation import events
from voiceassist.observability import logger, tracer
from voiceassist.query import tool_loop
from voiceassist.query.state import QueryState, carried

english_pipeline.require()  # the parse readings run here: no spaCy, no cold start (constants/functions.py)


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # the state holds the raw question (PHI)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    state = QueryState.model_validate(event["state"])
    deps = dependencies()
    drafts = events.drafts(deps, state)  # a streamed run: the model's text goes to the client as it comes
    try:
        state = tool_loop.generate(deps.query, deps.tool_registry, state, tier=event["tier"], on_draft=drafts)
    finally:
        if drafts is not None:
            drafts.close()
    events.after_step(deps, "generate", state)
    return carried(state)
