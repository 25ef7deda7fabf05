"""POST /v1/query/stream locally: the query's events as Server-Sent Events, written as they happen.

The query runs in a worker thread with an in-process channel as its EventTarget (the local stand-in for a
WebSocket connection): its steps publish there, the orchestrator ends the run there, and this request's
thread writes each event out as `event: <type>` / `data: <json>` until `done` or `error`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

from pydantic import ValidationError

from voiceassist.adapters.local.event_hub import HUB
from voiceassist.composition import dependencies
from voiceassist.conversation import events, orchestrator
from voiceassist.errors import InvalidInput
from voiceassist.models import QueryRequest, new_id
from voiceassist.observability import log_failure
from voiceassist.query.state import EventTarget
from voiceassist_local.server import LOCAL_USER, local_face

END_TYPES = ("done", "error")


def stream_query(request: QueryRequest, *, user_id: str, trace_id: str) -> Iterator[events.Event]:
    """The run's events as they are published, ending with `done` or `error`."""
    channel_id = new_id("chn")
    channel = HUB.open(channel_id)

    def work() -> None:
        try:
            orchestrator.run(dependencies(), request, user_id=user_id, trace_id=trace_id,
                             emit=lambda item: HUB.publish(channel_id, item),
                             stream=EventTarget(connection_id=channel_id))
        except Exception as exc:  # the reader already has the error event
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
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(problems or "invalid request") from None


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
    start_event_stream(handler)
    try:
        request = parse_request(body)
    except InvalidInput as exc:
        handler.wfile.write(events.sse(events.error(exc, trace_id)))
        return
    for item in stream_query(request, user_id=LOCAL_USER, trace_id=trace_id):
        handler.wfile.write(events.sse(item))
        handler.wfile.flush()


def json_reply(handler: BaseHTTPRequestHandler, status: int, body: object) -> None:
    data = json.dumps(body, default=str).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
