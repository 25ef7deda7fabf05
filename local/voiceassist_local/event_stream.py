"""POST /v1/query/stream locally: the query's events as Server-Sent Events, written as they happen.

The query runs in a worker thread with an in-process channel as its EventTarget (the local stand-in for a
WebSocket connection): its steps publish there, the orchestrator ends the run there, and this request's
thread writes each event out as `event: <type>` / `data: <json>` until `done` or `error`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Generator
from http.server import BaseHTTPRequestHandler

from pydantic import ValidationError

from voiceassist.adapters.local.event_hub import HUB
from voiceassist.composition import dependencies
from voiceassist.conversation import chat_completions as chat
from voiceassist.conversation import events, orchestrator
from voiceassist.conversation.context import Turn
from voiceassist.errors import (
    InvalidInput,
    InvalidParameter,
    InvalidRequest,
    UnsupportedParameter,
    VoiceAssistError,
    field_path,
)
from voiceassist.models import QueryRequest, new_id
from voiceassist.observability import log_failure
from voiceassist.query.state import EventTarget
from voiceassist_local.http_api import LOCAL_USER, local_face

END_TYPES = ("done", "error")


def stream_query(request: QueryRequest, *, user_id: str, trace_id: str, history: list[Turn] | None = None
                 ) -> Generator[events.Event, None, None]:
    """The run's events as they are published, ending with `done` or `error`."""
    channel_id = new_id("chn")
    channel = HUB.open(channel_id)

    def work() -> None:
        try:
            orchestrator.run(dependencies(), request, user_id=user_id, trace_id=trace_id,
                             emit=lambda item: HUB.publish(channel_id, item),
                             stream=EventTarget(connection_id=channel_id), history=history)
        except VoiceAssistError as exc:  # the reader already has the error event; a 4xx is the client's to fix
            if exc.status_code >= 500:
                log_failure("streamed query failed", exc)
        except Exception as exc:
            log_failure("streamed query failed", exc)

    worker = threading.Thread(target=work, name=f"query-{channel_id}", daemon=True)
    worker.start()
    try:
        while True:
            item = channel.get()
            yield item
            if item["type"] in END_TYPES:
                break
    finally:
        HUB.close(channel_id)


def parse_request(body: bytes) -> QueryRequest:
    try:
        return QueryRequest.model_validate_json(body or b"{}")
    except ValidationError as exc:
        raise _invalid(exc) from None


def start_event_stream(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream; charset=utf-8")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")  # the stream ends when the connection does
    handler.end_headers()
    handler.close_connection = True


@local_face("POST", "/v1/query/stream")
def query_stream(handler: BaseHTTPRequestHandler, body: bytes) -> None:
    trace_id = new_id("req")
    try:
        request = parse_request(body)
    except InvalidInput as exc:  # before the stream starts: a 400 in the REST envelope, as POST /v1/query answers
        json_reply(handler, *error_body(exc, trace_id))
        return
    start_event_stream(handler)
    run = stream_query(request, user_id=LOCAL_USER, trace_id=trace_id)
    try:
        for item in run:
            handler.wfile.write(events.sse(item))
            handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):  # the client left; the run finishes and is audited
        pass
    finally:
        run.close()  # closes the channel: later events are dropped


def json_reply(handler: BaseHTTPRequestHandler, status: int, body: object) -> None:
    data = json.dumps(body, default=str).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def error_body(exc: Exception, trace_id: str) -> tuple[int, dict[str, object]]:
    """The REST API's error envelope (routes/errors.py), which OpenAI's SDKs read too (error.message)."""
    data = events.error(exc, trace_id)["data"]
    status = exc.status_code if isinstance(exc, VoiceAssistError) else 500
    param = {"param": exc.param} if isinstance(exc, UnsupportedParameter | InvalidParameter) else {}
    details = {"details": exc.details} if isinstance(exc, InvalidRequest) else {}
    return status, {"error": {**data["error"], "type": data["error"]["code"], **param, "trace_id": trace_id,
                              **details}}


@local_face("POST", "/v1/chat/completions")
def chat_completions(handler: BaseHTTPRequestHandler, body: bytes) -> None:
    """Plain: the completion as JSON. `stream: true`: OpenAI's chunks as SSE, written as the run's events come."""
    trace_id = new_id("req")
    try:
        try:
            chat_request = chat.ChatCompletionRequest.model_validate_json(body or b"{}")
        except ValidationError as exc:
            raise _invalid(exc) from None
        request, history = chat.to_query(chat_request)
        if not chat_request.stream:
            response = orchestrator.run(dependencies(), request, user_id=LOCAL_USER, trace_id=trace_id,
                                        emit=lambda _item: None, history=history)
            json_reply(handler, 200, chat.completion(response, model=chat_request.model, request=chat_request))
            return
    except Exception as exc:
        if not isinstance(exc, VoiceAssistError) or exc.status_code >= 500:
            log_failure("chat completion failed", exc)
        json_reply(handler, *error_body(exc, trace_id))
        return
    start_event_stream(handler)
    run = stream_query(request, user_id=LOCAL_USER, trace_id=trace_id, history=history)
    try:
        for chunk in chat.chunks(run, model=chat_request.model, completion_id=chat.new_completion_id(trace_id),
                                 request=chat_request):
            handler.wfile.write(chat.sse_chunk(chunk))
            handler.wfile.flush()
        handler.wfile.write(chat.sse_chunk(None))
    except chat.StreamFailed as failed:  # OpenAI's SDKs raise an APIError for a chunk with "error"
        handler.wfile.write(f"data: {json.dumps({'error': failed.data['error']})}\n\n".encode())
    except (BrokenPipeError, ConnectionResetError):  # the client left; the run finishes and is audited
        pass
    finally:
        run.close()  # closes the channel: later events are dropped


def _invalid(exc: ValidationError) -> InvalidRequest:
    """The API's 400 for the same body (routes/errors.py): each problem as `field: message`, without pydantic's
    "Value error, " before our own messages, in the message and in `details`."""
    details = [{"field": field_path(e["loc"]) or "body",
                "problem": "the body is not valid JSON" if e["type"] == "json_invalid"
                else e["msg"].removeprefix("Value error, ")} for e in exc.errors()]
    return InvalidRequest("; ".join(f"{d['field']}: {d['problem']}" for d in details) or "invalid request", details)
