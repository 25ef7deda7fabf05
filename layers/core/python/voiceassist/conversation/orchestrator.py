"""One orchestrator for every way of asking: REST, Server-Sent Events, WebSocket, chat completions.

`run` executes the query pipeline (the same state machine everywhere) with an optional EventTarget, so its steps
publish their events as they finish, then emits the final events through `emit`. REST is `respond`: the same
run, its events aggregated into the `done` event's QueryResponse. Sync and stream therefore share one path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from voiceassist import service
from voiceassist.conversation import events
from voiceassist.models import QueryRequest, QueryResponse
from voiceassist.query.state import EventTarget

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies

Emit = Callable[[events.Event], None]


def run(deps: Dependencies, request: QueryRequest, *, user_id: str, trace_id: str | None,
        emit: Emit, stream: EventTarget | None = None, history: list[str] | None = None) -> QueryResponse:
    """Answer `request`, emitting token, citations, critique and done (or error, then re-raise). `history`: the
    earlier turns a client sent with it (chat messages), PHI-checked with the question."""
    try:
        response = service.answer(deps, request, user_id=user_id, trace_id=trace_id, stream=stream,
                                  history=history)
    except Exception as exc:  # the caller maps it (REST: routes/errors.py) and logs it once
        emit(events.error(exc, trace_id))
        raise
    for item in events.final(response):
        emit(item)
    return response


def respond(deps: Dependencies, request: QueryRequest, *, user_id: str, trace_id: str | None) -> QueryResponse:
    """The synchronous answer: the run's events, aggregated (the `done` event carries the response)."""
    collected: list[events.Event] = []
    run(deps, request, user_id=user_id, trace_id=trace_id, emit=collected.append)
    done = next(item for item in reversed(collected) if item["type"] == "done")
    return QueryResponse.model_validate(done["data"])
