"""A local OpenAI-compatible chat-completions server on 127.0.0.1, for tests and local demos.

It plays a script of replies (an answer, tool calls, an HTTP error, or a delay longer than the client's
timeout), streams answers as server-sent events when asked to, and records every request it received.

    with OpenAIStub([StubReply(status=503), StubReply(text="Up to 2,000 mg [1].")]) as stub:
        model = OpenAIChatModel("llama3.1:8b", in_boundary=True, base_url=stub.base_url)

The same server also answers SageMaker runtime's InvokeEndpoint (POST /endpoints/<name>/invocations) the way
an LMI (vLLM) container does: the OpenAI chat body in, a chat completion out, errors in SageMaker's shape.
Point a real boto3 client at it with endpoint_url=stub.sagemaker_endpoint_url (or the environment variable
AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME). It answers Bedrock runtime's Converse (POST /model/<id>/converse) too: the
Converse body in, a Converse reply out, errors in Bedrock's shape (AWS_ENDPOINT_URL_BEDROCK_RUNTIME).

Each API's streamed variant is answered too, as the service puts it on the wire (tests/stubs/model_streams.py):
chat completions with `stream: true`, SageMaker's InvokeEndpointWithResponseStream
(POST /endpoints/<name>/invocations-response-stream) and Bedrock's ConverseStream (POST /model/<id>/converse-stream).
A reply's `token_delay_s` paces the pieces (0.02 is 50 tokens/s); `fail_after_tokens` breaks the stream off after
that many pieces with the API's mid-stream error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.stubs import model_streams
from tests.support.local_server import LocalServer

CHAT_PATH = "/v1/chat/completions"
SAGEMAKER_PATH = re.compile(r"^/endpoints/[^/]+/invocations$")
SAGEMAKER_STREAM_PATH = re.compile(r"^/endpoints/[^/]+/invocations-response-stream$")
# The error code SageMaker runtime sends with each status (botocore reads it from x-amzn-ErrorType).
SAGEMAKER_ERROR_CODES = {429: "ThrottlingException", 500: "InternalFailure", 503: "ServiceUnavailable"}
BEDROCK_PATH = re.compile(r"^/model/[^/]+/converse$")
BEDROCK_STREAM_PATH = re.compile(r"^/model/[^/]+/converse-stream$")
EVENT_STREAM = "application/vnd.amazon.eventstream"
BEDROCK_ERROR_CODES = {429: "ThrottlingException", 500: "InternalServerException", 503: "ServiceUnavailableException"}


@dataclass(frozen=True)
class StubReply:
    text: str = "Stub answer [1]."
    status: int = 200
    delay_s: float = 0.0  # wait this long before answering (interrupted when the stub stops)
    prompt_tokens: int = 100
    completion_tokens: int = 20
    headers: tuple[tuple[str, str], ...] = ()  # sent with the reply (a 429's Retry-After)
    # a 200 with this body as it is (malformed JSON, a completion without choices); streamed, it is the stream's
    # content as it is: the text/event-stream body, or the bytes of SageMaker's PayloadParts (cut like any)
    raw_body: str | None = None
    # (name, arguments) of function calls to answer with instead of text (the OpenAI `tool_calls` shape)
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    token_delay_s: float = 0.0  # a stream waits this long between pieces (interrupted when the stub stops)
    fail_after_tokens: int | None = None  # a stream sends this many pieces, then the API's mid-stream error


@dataclass(frozen=True)
class RecordedRequest:
    """Any request the server received, whatever its route: what a PHI check must inspect."""

    method: str
    path: str
    body: str


class OpenAIStub(LocalServer):
    def __init__(self, script: list[StubReply] | None = None, *, model: str = "stub-model") -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []  # the parsed bodies of chat completions and invocations
        self.raw_requests: list[RecordedRequest] = []
        self._script = list(script or [StubReply()])
        super().__init__()

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    @property
    def sagemaker_endpoint_url(self) -> str:
        return self.origin

    def _record(self, method: str, path: str, body: bytes) -> None:
        with self._lock:
            self.raw_requests.append(RecordedRequest(method, path, body.decode("utf-8", errors="replace")))

    def _next_reply(self, body: dict[str, Any]) -> StubReply:
        with self._lock:
            self.requests.append(body)
            return self._script.pop(0) if len(self._script) > 1 else self._script[0]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # a streamed piece leaves when written, not with the next one

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
                return None

            def _received(self) -> bytes:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                stub._record(self.command, self.path, raw)
                return raw

            def do_GET(self) -> None:  # noqa: N802 - the http.server naming
                self._received()
                self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                raw = self._received()
                route = _route(self.path)
                if route is None:
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                body = json.loads(raw)
                reply = stub._next_reply(body)
                if reply.delay_s and stub._stopping.wait(reply.delay_s):
                    return
                try:
                    self._answer(route, body, reply)
                except (BrokenPipeError, ConnectionResetError):  # the client went away mid-stream
                    return

            def _answer(self, route: str, body: dict[str, Any], reply: StubReply) -> None:
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                if route.startswith("bedrock"):
                    self._converse(route, reply)
                elif reply.status != 200 and route.startswith("sagemaker"):
                    code = SAGEMAKER_ERROR_CODES.get(reply.status, "ModelError")
                    self._json(reply.status, {"message": "stubbed failure"},
                               {"x-amzn-ErrorType": code, **dict(reply.headers)})
                elif reply.status != 200:
                    error = {"message": "stubbed failure", "type": "server_error"}
                    self._json(reply.status, {"error": error}, dict(reply.headers))
                elif reply.raw_body is not None and route == "chat" and body.get("stream"):
                    self._stream("text/event-stream", iter([reply.raw_body.encode()]), 0)
                elif reply.raw_body is not None and route != "sagemaker-stream":
                    self._raw(reply.raw_body.encode())
                elif route == "sagemaker-stream":
                    self._stream(EVENT_STREAM, model_streams.sagemaker_events(
                        reply, stub.model, include_usage=include_usage), reply.token_delay_s,
                        {"X-Amzn-SageMaker-Content-Type": "text/event-stream",
                         "x-Amzn-Invoked-Production-Variant": "AllTraffic"})
                elif route == "chat" and body.get("stream"):
                    self._stream("text/event-stream", model_streams.openai_sse(
                        reply, stub.model, include_usage=include_usage), reply.token_delay_s)
                else:
                    self._json(200, stub._completion(reply))

            def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
                      ) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _converse(self, route: str, reply: StubReply) -> None:
                if reply.status != 200:
                    code = BEDROCK_ERROR_CODES.get(reply.status, "ModelErrorException")
                    self._json(reply.status, {"message": "stubbed failure"}, {"x-amzn-ErrorType": code})
                elif route == "bedrock-stream":
                    self._stream(EVENT_STREAM, model_streams.bedrock_events(reply), reply.token_delay_s)
                else:
                    self._json(200, _converse_reply(reply))

            def _raw(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, content_type: str, writes: Iterator[Any], token_delay_s: float,
                        headers: dict[str, str] | None = None) -> None:
                """Chunked transfer encoding, as the services stream: clients read each piece when it is sent
                (botocore's event-stream reader waits for a full buffer on a body that only ends at close)."""
                self.protocol_version = "HTTP/1.1"
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("transfer-encoding", "chunked")
                self.send_header("connection", "close")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                for data in writes:
                    if data is not model_streams.PAUSE and data:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    elif data is model_streams.PAUSE and token_delay_s and stub._stopping.wait(token_delay_s):
                        break  # the stub is stopping: end the stream where it is
                self.wfile.write(b"0\r\n\r\n")

        return Handler

    def _completion(self, reply: StubReply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.tool_calls:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for n, (name, args) in enumerate(reply.tool_calls)]}
        return {
            "id": "stub", "object": "chat.completion", "created": 0, "model": self.model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                      "total_tokens": reply.prompt_tokens + reply.completion_tokens},
        }


def _route(path: str) -> str | None:
    route = path.split("?", 1)[0].rstrip("/")
    if route == CHAT_PATH:
        return "chat"
    patterns = {"sagemaker": SAGEMAKER_PATH, "sagemaker-stream": SAGEMAKER_STREAM_PATH,
                "bedrock": BEDROCK_PATH, "bedrock-stream": BEDROCK_STREAM_PATH}
    return next((name for name, pattern in patterns.items() if pattern.match(route)), None)


def _converse_reply(reply: StubReply) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": reply.text}]
    if reply.tool_calls:
        content = [{"toolUse": {"toolUseId": f"tooluse_{n}", "name": name, "input": args}}
                   for n, (name, args) in enumerate(reply.tool_calls)]
    usage = {"inputTokens": reply.prompt_tokens, "outputTokens": reply.completion_tokens,
             "totalTokens": reply.prompt_tokens + reply.completion_tokens}
    return {"output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "tool_use" if reply.tool_calls else "end_turn", "usage": usage, "metrics": {"latencyMs": 1}}
