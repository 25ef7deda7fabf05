"""The local server under hostile or broken clients, over real sockets: malformed and oversized requests get a
JSON 4xx (never a traceback or an HTML page), stalled and trickling clients are cut off, connections beyond the
limit get a 503 at once unless an idle one can be closed for them, 50 simultaneous connections are all served,
HEAD/OPTIONS/TRACE behave, and leaving the loopback interface needs a token."""

from __future__ import annotations

import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from voiceassist_local import http_guard
from voiceassist_local.server import ADMIN_GROUPS, make_server

from voiceassist.errors import InvalidInput


@pytest.fixture
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_guard.GuardedRequestHandler, "timeout", 0.5)
    monkeypatch.setattr(http_guard, "REQUEST_DEADLINE_S", 1.0)


@pytest.fixture
def server(local_deps, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VOICEASSIST_MAX_UPLOAD_BYTES", "10000")
    server = make_server("127.0.0.1", 0, groups=ADMIN_GROUPS)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def exchange(server: Any, raw: bytes, *, wait_s: float = 15.0) -> bytes:
    """Send raw bytes, then read until the server closes the connection (or `wait_s` passes)."""
    with socket.create_connection(server.server_address[:2], timeout=wait_s) as connection:
        connection.sendall(raw)
        chunks = []
        while True:
            try:
                chunk = connection.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def status_and_body(reply: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = reply.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body) if body else {}


def test_a_malformed_content_length_is_a_json_400(server: Any) -> None:
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 12abc\r\n\r\n{}")
    status, body = status_and_body(reply)
    assert status == 400 and body["error"]["code"] == "bad_request" and b"Traceback" not in reply


def test_a_body_over_the_cap_is_a_413_before_it_is_read(server: Any) -> None:
    reply = exchange(server, b"POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/pdf\r\nContent-Length: 400000000\r\n\r\nabc")
    status, body = status_and_body(reply)
    assert status == 413 and "limit" in body["error"]["message"]


def test_a_chunked_body_is_a_411(server: Any) -> None:
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    assert status_and_body(reply)[0] == 411


def test_a_tls_hello_on_the_plain_port_is_a_json_400(server: Any) -> None:
    hello = bytes.fromhex("16030100c4010000c00303") + b"\x00" * 64 + b"\r\n\r\n"
    reply = exchange(server, hello)
    assert reply.startswith(b"HTTP/1.1 400") and b"<html" not in reply.lower()


def headers_of(reply: bytes) -> dict[str, str]:
    head = reply.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")[1:]
    return {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in head)}


def test_a_json_reply_quoting_the_path_is_never_sniffed_framed_or_cached(server: Any) -> None:
    # a 404 quotes the path back (here a script tag); a browser sent to it must not run it as HTML, frame it or keep it
    reply = exchange(server, b"GET /v1/<script>alert(1)</script> HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Connection: close\r\n\r\n")
    headers = headers_of(reply)
    assert status_and_body(reply)[0] == 404 and headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff" and headers["cache-control"] == "no-store"
    assert headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'"


def test_a_refusal_before_the_body_carries_the_same_headers(server: Any) -> None:
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n")
    headers = headers_of(reply)
    assert status_and_body(reply)[0] == 400 and headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_the_web_page_keeps_its_own_policy(server: Any) -> None:
    reply = exchange(server, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    headers = headers_of(reply)
    assert reply.startswith(b"HTTP/1.1 200") and "script-src 'self'" in headers["content-security-policy"]
    assert reply.count(b"Content-Security-Policy") == 1 and reply.count(b"Cache-Control") == 1


@pytest.mark.usefixtures("short_timeouts")
def test_a_short_body_does_not_hold_a_thread(server: Any) -> None:
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 100\r\n\r\n{\"query\"")
    assert reply == b""  # the connection was closed: nobody is left waiting for the 90 missing bytes


@pytest.mark.usefixtures("short_timeouts")
def test_a_client_trickling_its_headers_is_cut_off(server: Any) -> None:
    with socket.create_connection(server.server_address[:2], timeout=15) as connection:
        connection.sendall(b"GET /v1/health HTTP/1.1\r\n")
        closed = False
        for _ in range(100):  # a header line every 0.2 s: each read is quick, the request never ends
            try:
                connection.sendall(b"X-Slow: 1\r\n")
            except OSError:
                closed = True
                break
            time.sleep(0.2)
        if not closed:
            connection.settimeout(5)
            closed = connection.recv(1024) == b""
    assert closed


@pytest.fixture
def full_server(local_deps) -> Iterator[tuple[Any, list[socket.socket]]]:  # type: ignore[no-untyped-def]
    """A server with room for two connections, and the two connections that fill it."""
    from voiceassist_local.server import ApiRequestHandler

    server = http_guard.GuardedServer(("127.0.0.1", 0), ApiRequestHandler, max_body_bytes=1000, max_connections=2)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    held = [socket.create_connection(server.server_address[:2], timeout=10) for _ in range(2)]
    yield server, held
    for connection in held:
        connection.close()
    server.shutdown()
    server.server_close()


def test_connections_beyond_the_limit_get_a_503_at_once_when_none_is_idle(
        full_server: tuple[Any, list[socket.socket]]) -> None:
    server, held = full_server
    for connection in held:  # each in the middle of a request: its body is still on its way
        connection.sendall(b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 100\r\n\r\n{")
    time.sleep(0.3)
    reply = exchange(server, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    status, body = status_and_body(reply)
    assert status == 503 and body["error"]["retry_after"] == 1


def test_idle_connections_are_closed_to_make_room_for_a_request(
        full_server: tuple[Any, list[socket.socket]]) -> None:
    server, held = full_server
    time.sleep(0.3)  # both accepted and each held by its thread, waiting for a request line
    reply = exchange(server, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert status_and_body(reply)[0] == 200
    assert held[0].recv(1) == b""  # the one idle the longest was closed


def test_fifty_simultaneous_connections_are_all_served(server: Any) -> None:
    def health(_: int) -> int:
        reply = exchange(server, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", wait_s=60)
        return status_and_body(reply)[0]

    with ThreadPoolExecutor(50) as pool:
        assert list(pool.map(health, range(50))) == [200] * 50


def test_trace_is_a_json_405_head_has_no_body_options_answers_cors(server: Any) -> None:
    # (Connection: close: without it the server keeps the connection open for the next request and the exchange
    # waits out the server's 10 s idle time-out)
    status, body = status_and_body(exchange(server, b"TRACE /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                    b"Connection: close\r\n\r\n"))
    assert status == 405 and body["error"]["code"] == "method_not_allowed"
    head = exchange(server, b"HEAD /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    headers, _, rest = head.partition(b"\r\n\r\n")
    assert headers.startswith(b"HTTP/1.1 200") and b"Content-Length:" in headers and rest == b""
    preflight = exchange(server, b"OPTIONS /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://localhost:5173\r\n"
                                 b"Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n")
    assert preflight.startswith(b"HTTP/1.1 204")
    assert b"Access-Control-Allow-Origin: http://localhost:5173" in preflight
    stranger = exchange(server, b"OPTIONS /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
                                b"Connection: close\r\n\r\n")
    assert b"Access-Control-Allow-Origin" not in stranger


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("TRACE", "/v1/mcp", "DELETE, GET, POST, HEAD, OPTIONS"), ("PUT", "/v1/query/stream", "POST, OPTIONS"),
    ("PATCH", "/", "GET, HEAD, OPTIONS"), ("DELETE", "/app.js", "GET, HEAD, OPTIONS"),
    ("PUT", "/v1/voice/stream", "GET, HEAD, OPTIONS"), ("TRACE", "/metrics", "GET, HEAD, OPTIONS"),
])
def test_a_method_a_local_face_does_not_take_is_a_405_naming_the_methods(server: Any, method: str, path: str,
                                                                        allow: str) -> None:
    """The local faces (the MCP endpoint, the event stream, the page) answered a 404 'no route' for any other
    method, as if the path did not exist (schemathesis: 'Wrong response to undeclared method')."""
    reply = exchange(server, f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    status, body = status_and_body(reply)
    assert status == 405 and body["error"]["code"] == "method_not_allowed"
    assert headers_of(reply)["allow"] == allow


def test_a_recording_sent_with_a_method_its_route_does_not_take_is_a_405_not_a_415(server: Any) -> None:
    status, body = status_and_body(exchange(server, b"PUT /v1/voice/transcribe HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                    b"Content-Type: audio/wav\r\nContent-Length: 4\r\n"
                                                    b"Connection: close\r\n\r\nRIFF"))
    assert status == 405 and body["error"]["code"] == "method_not_allowed"


def test_every_request_leaves_a_structured_access_line_without_its_query_string(server: Any) -> None:
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    http_guard.access_log.addHandler(handler)
    try:
        exchange(server, b"GET /v1/jobs?state=FAILED&title=Jane%20Doe HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Connection: close\r\n\r\n")
    finally:
        http_guard.access_log.removeHandler(handler)
    entry = json.loads(lines[-1])
    assert entry["method"] == "GET" and entry["path"] == "/v1/jobs" and entry["status"] == 200
    assert "Jane" not in lines[-1] and entry["ms"] >= 0


@pytest.mark.parametrize("sent", [b"/v1/sessions/Zebulon%20Quartermaine%201961-04-17",
                                  b"/v1/documents/" + b"x" * 5000 + b"/chunks/Zebulon%20Q"], ids=["name", "long"])
def test_the_access_line_keeps_a_path_segment_only_when_it_is_shaped_like_an_id(server: Any, sent: bytes) -> None:
    """A path carries what the client typed where an id goes (a patient's name, 5,000 characters): the access log
    wrote it whole (query strings were already left out)."""
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    http_guard.access_log.addHandler(handler)
    try:
        exchange(server, b"GET " + sent + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        exchange(server, b"GET /v1/sessions/ses_0123abcd HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    finally:
        http_guard.access_log.removeHandler(handler)
    refused, kept = (json.loads(line) for line in lines[-2:])
    assert refused["status"] == 404 and "Zebulon" not in refused["path"] and len(refused["path"]) < 200
    assert refused["path"].startswith(("/v1/sessions/", "/v1/documents/"))
    assert kept["path"] == "/v1/sessions/ses_0123abcd"


def test_listening_beyond_loopback_needs_a_token_and_then_requires_it(local_deps) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput, match="VOICEASSIST_LOCAL_TOKEN"):
        make_server("0.0.0.0", 0)  # noqa: S104 - the point of the test
    server = make_server("0.0.0.0", 0, token="s3cret")  # noqa: S104
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        request = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        target = type("Target", (), {"server_address": ("127.0.0.1", port)})()
        refused = exchange(target, request + b"\r\n")
        assert status_and_body(refused)[0] == 401 and headers_of(refused)["www-authenticate"].startswith("Bearer")
        assert status_and_body(exchange(target, request + b"Authorization: Bearer wrong\r\n\r\n"))[0] == 401
        assert status_and_body(exchange(target, request + b"Authorization: Bearer s3cret\r\n\r\n"))[0] == 200
        # a browser's CORS preflight never carries the token: answered as API Gateway answers it, data-free
        preflight = exchange(target, b"OPTIONS /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                     b"Origin: http://localhost:5173\r\nAccess-Control-Request-Method: POST\r\n\r\n")
        assert preflight.startswith(b"HTTP/1.1 204")
        assert headers_of(preflight)["access-control-allow-origin"] == "http://localhost:5173"
        post = b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        assert status_and_body(exchange(target, post + b"Connection: close\r\n\r\n{}"))[0] == 401
    finally:
        server.shutdown()
        server.server_close()


def test_concurrent_requests_each_get_their_own_answer(server: Any) -> None:
    """Powertools keeps the current event on a class attribute: concurrent API calls must not share it."""
    def create(n: int) -> tuple[int, str | None]:
        body = json.dumps({"clinical_context": f"context number {n}"}).encode()
        reply = exchange(server, b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                 b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
                                 + body, wait_s=60)
        status, answer = status_and_body(reply)
        return status, answer.get("clinical_context")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: a shared event would show at once
    try:
        with ThreadPoolExecutor(32) as pool:
            answers = list(pool.map(create, range(REQUESTS)))
    finally:
        sys.setswitchinterval(interval)
    assert answers == [(200, f"context number {n}") for n in range(REQUESTS)]


REQUESTS = 200


def test_questions_and_reads_at_once_each_get_their_own_answer(server: Any) -> None:
    """A question steps out of its API turn while its pipeline runs, and back in with its own event."""
    def ask(n: int) -> tuple[int, str]:
        body = json.dumps({"query": f"What is the dose of drug number {n} in renal failure?"}).encode()
        reply = exchange(server, b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                 b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
                                 + body, wait_s=120)
        status, answer = status_and_body(reply)
        # this question's own reply: its answer or, on a loaded machine where its PHI check passed the 2 s limit and
        # failed closed, its own timed-out 504 (what the test checks is whose reply each request gets)
        own = "answer" in answer or (status == 504 and answer.get("error", {}).get("code") == "timed_out")
        return status, "query" if own else json.dumps(answer)[:200]

    def read(n: int) -> tuple[int, str]:
        reply = exchange(server, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", wait_s=120)
        status, answer = status_and_body(reply)
        return status, "health" if answer.get("status") == "ok" else json.dumps(answer)[:200]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda n: ask(n) if n % 2 else read(n), range(24)))
    finally:
        sys.setswitchinterval(interval)
    assert [kind for _, kind in answers] == ["query" if n % 2 else "health" for n in range(24)]
    assert all(status == 200 for status, kind in answers if kind == "health")


def test_replies_go_out_without_waiting_for_the_clients_ack(server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A reply is two writes (headers, then body): with Nagle's algorithm on, the body of each reply on a kept-alive
    # connection waited for the client's delayed ACK (40 ms a request)
    from voiceassist_local.server import ApiRequestHandler

    seen: list[int] = []
    setup = ApiRequestHandler.setup

    def recording_setup(handler: Any) -> None:
        setup(handler)
        seen.append(handler.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    monkeypatch.setattr(ApiRequestHandler, "setup", recording_setup)
    reply = exchange(server, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert status_and_body(reply)[0] == 200
    assert seen and all(seen)


def replies_on_one_connection(server: Any, raw: bytes) -> list[tuple[str, dict[str, str], bytes]]:
    """The replies to the pipelined requests of `raw`, each read by its Content-Length, as a client does."""
    data = exchange(server, raw)
    replies = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        headers = headers_of(head + b"\r\n\r\n")
        length = 0 if replies_to_head(len(replies), raw) else int(headers.get("content-length", "0"))
        replies.append((head.split(b"\r\n", 1)[0].decode(), headers, rest[:length]))
        data = rest[length:]
    return replies


def replies_to_head(index: int, raw: bytes) -> bool:
    return raw.split(b"\r\n\r\n")[index].startswith(b"HEAD ")


@pytest.mark.parametrize("path", ["/", "/config.json", "/v1/health"])
def test_head_sends_no_body_and_the_next_request_on_the_connection_gets_its_own(server: Any, path: str) -> None:
    raw = (f"HEAD {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
           "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").encode()
    [(head_status, head_headers, head_body), (get_status, _, get_body)] = replies_on_one_connection(server, raw)
    assert head_status.endswith("200 OK") and int(head_headers["content-length"]) > 0 and head_body == b""
    assert get_status.endswith("200 OK") and json.loads(get_body)["status"] == "ok"


def test_an_http_0_9_request_gets_a_json_400_with_headers_not_a_bare_body(server: Any) -> None:
    reply = exchange(server, b"GET /v1/health\r\n\r\n")
    status, body = status_and_body(reply)
    assert status == 400 and body["error"]["code"] == "bad_request"
    assert headers_of(reply)["x-content-type-options"] == "nosniff"


def test_a_100_continue_is_bare_and_the_final_reply_carries_the_headers(server: Any) -> None:
    body = b'{"clinical_context": "ward round"}'
    reply = exchange(server, b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             b"Expect: 100-continue\r\nConnection: close\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\n\r\n" + body, wait_s=60)
    interim, _, final = reply.partition(b"\r\n\r\n")
    assert interim == b"HTTP/1.1 100 Continue"
    assert final.startswith(b"HTTP/1.1 200") and headers_of(final)["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("hosts", [b"Host: 127.0.0.1\r\nHost: evil.example\r\n", b""], ids=["two", "none"])
def test_an_http_1_1_request_names_exactly_one_host(server: Any, hosts: bytes) -> None:
    """RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host or with several; the
    server answered both (the first Host was checked, the second ignored)."""
    reply = exchange(server, b"GET /v1/health HTTP/1.1\r\n" + hosts + b"Connection: close\r\n\r\n")
    status, body = status_and_body(reply)
    assert status == 400 and "Host" in body["error"]["message"], body


def test_a_method_that_is_not_an_http_method_is_refused_without_an_echo(server: Any) -> None:
    """A 30,000-character method came back whole in the 405's message (and went to the access log)."""
    reply = exchange(server, b"A" * 30000 + b" /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    status, body = status_and_body(reply)
    assert status in (400, 405) and len(reply) < 2000, reply[:300]
    status, body = status_and_body(exchange(server, b"BREW /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                    b"Connection: close\r\n\r\n"))
    assert status == 405 and "BREW" in body["error"]["message"]  # a method's shape is still named
