"""The input screen on a query run: the question, the chat messages a client sent with it and the session's
memory are screened before intent, tools or sources are decided (query/planning.classify calls this first).

A flagged run is answered with a short refusal (crisis support for a request to harm oneself) that never echoes
the text; nothing is searched, no tool is
offered and no model is called (query.asl.json goes from Classify straight to the audit, as for a clarifying
question), and the audit record carries the category (`intent: "input_screen:<category>"`, outcome refused).
"""

from __future__ import annotations

from voiceassist.models import AnswerStatus
from voiceassist.observability import logger
from voiceassist.query.state import QueryContext, QueryState, timed
from voiceassist.safety.input_screen import reply_for, screen_all

SCREENED_WARNING = "the input screen refused this request ({category}); it was not sent to any model, tool or source"


_ROLES = ("user:", "assistant:", "system:", "tool:")


def turn_texts(history: list[str]) -> list[str]:
    """The earlier messages' texts without the transcript's "role: " prefix (a format, not markup). Every turn
    is screened, the assistant's too: a chat client sends the whole conversation, and may write those (the
    history window: older turns reach no model, conversation.orchestrator)."""
    return [turn.partition(":")[2] if turn.lower().startswith(_ROLES) else turn for turn in history]


def screen_question(ctx: QueryContext, state: QueryState) -> bool:
    """Screen what the run would send on; True (and the refusal set on `state`) when it is flagged. The meaning
    model reads the texts' sentence vectors from the deployment's in-boundary embedder (safety.input_screen)."""
    with timed(state, "input_screen"):
        verdict = screen_all([state.request.query, *turn_texts(state.history),
                              *([state.memory] if state.memory else [])], embedder=ctx.embedder)
    if not verdict.flagged:
        return False
    state.screen_categories = list(verdict.categories)
    state.answer = state.clarifying_question = reply_for(verdict)
    state.answer_status = AnswerStatus.REFUSED
    state.warnings.append(SCREENED_WARNING.format(category=verdict.category))
    logger.info("input screened", extra={"query_id": state.query_id, "categories": verdict.categories,
                                         "reasons": verdict.reasons})
    return True
