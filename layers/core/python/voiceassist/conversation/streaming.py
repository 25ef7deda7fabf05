"""The WebSocket conversation: a client sends {"action": "ask", "query": ...}; we run the same query pipeline
as the REST call and push its events: `accepted`, then `answer` (or `error`), each with the query id.

Tokens are not streamed yet: the answer arrives as one event when the pipeline finishes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from voiceassist import service
from voiceassist.errors import VoiceAssistError
from voiceassist.models import QueryRequest, new_id
from voiceassist.observability import log_failure

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies


class EventPublisher(Protocol):
    def publish(self, connection_id: str, event: dict[str, Any]) -> None: ...


def handle_message(deps: Dependencies, publisher: EventPublisher, *, connection_id: str, user_id: str,
                   body: str | None) -> dict[str, Any]:
    request_id = new_id("req")
    try:
        message = json.loads(body or "{}")
        request = QueryRequest.model_validate({k: v for k, v in message.items() if k != "action"})
    except (ValueError, ValidationError) as exc:
        problem = "the message is not valid JSON" if isinstance(exc, json.JSONDecodeError) else (
            "send {\"action\": \"ask\", \"query\": \"...\"}; " + _problems(exc))
        publisher.publish(connection_id, {"type": "error", "request_id": request_id, "code": "invalid_request",
                                          "message": problem})
        return {"statusCode": 400}
    publisher.publish(connection_id, {"type": "accepted", "request_id": request_id})
    try:
        response = service.answer(deps, request, user_id=user_id, trace_id=request_id)
    except VoiceAssistError as exc:
        log_failure("stream query failed", exc)
        message = str(exc) if exc.status_code < 500 else "the question could not be answered; quote the request id"
        publisher.publish(connection_id, {"type": "error", "request_id": request_id, "code": exc.code,
                                          "message": message})
        return {"statusCode": exc.status_code}
    publisher.publish(connection_id, {"type": "answer", "request_id": request_id,
                                      "response": response.model_dump(mode="json")})
    return {"statusCode": 200}


def _problems(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
    return "invalid message"
