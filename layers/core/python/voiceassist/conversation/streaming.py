"""The WebSocket conversation: a client sends {"action": "ask", "query": ...} (the body of POST /v1/query), or a
spoken question as voice.start / voice.chunk / voice.end messages (conversation/voice_messages.py);
the orchestrator runs the query with the connection as its EventTarget, so the steps post `route`, `plan` and
`retrieval` to it as they finish and the run ends with `token`s, `citations`, `critique` and `done` (or `error`).
Each message is {"type": ..., "data": {...}}, the same events POST /v1/query/stream sends as SSE.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from voiceassist.conversation import events, orchestrator, voice_messages
from voiceassist.errors import InvalidInput
from voiceassist.models import QueryRequest, new_id
from voiceassist.observability import log_failure
from voiceassist.ports import EventPublisher
from voiceassist.query.state import EventTarget

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies


def handle_message(deps: Dependencies, publisher: EventPublisher, *, connection_id: str, user_id: str,
                   body: str | None, endpoint: str | None = None) -> dict[str, Any]:
    """Run one question for the connection; `endpoint` is the management API the steps post to (None: the
    in-process hub of the local runtime)."""
    trace_id = new_id("req")
    action, voice_message = voice_messages.message_action(body)
    if voice_message is not None and action in voice_messages.ACTIONS:
        return voice_messages.handle_voice(deps, publisher, message=voice_message, connection_id=connection_id,
                                           user_id=user_id, trace_id=trace_id, endpoint=endpoint)
    try:
        message = json.loads(body or "{}")
        request = QueryRequest.model_validate({k: v for k, v in message.items() if k != "action"})
    except (ValueError, ValidationError, AttributeError) as exc:
        problem = "the message is not valid JSON" if isinstance(exc, json.JSONDecodeError) else (
            "send {\"action\": \"ask\", \"query\": \"...\"}; " + _problems(exc))
        publisher.publish(connection_id, events.error(InvalidInput(problem), trace_id))
        return {"statusCode": 400}
    try:
        orchestrator.run(deps, request, user_id=user_id, trace_id=trace_id,
                         emit=lambda item: publisher.publish(connection_id, item),
                         stream=EventTarget(connection_id=connection_id, endpoint=endpoint))
    except Exception as exc:  # the client already has its error event
        log_failure("stream query failed", exc)
        return {"statusCode": getattr(exc, "status_code", 500)}
    return {"statusCode": 200}


def _problems(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
    return "invalid message"
