"""The local server's limits, as an attacker meets them over real sockets: a body over its route's limit is
refused before it is read (a 60 MB question does not grow the server), one Content-Length only, 65 idle
sockets do not turn everyone away, invalid UTF-8 in JSON and a NUL in the path are 400s, and an empty upload
says what is wrong."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.server import ADMIN_GROUPS, make_server

from tests.integration.test_local_server_hardening import exchange, status_and_body

HOST = b"Host: 127.0.0.1\r\n"
SIXTY_MB = 60 * 1024 * 1024


@pytest.fixture
def server(local_deps) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    server = make_server("127.0.0.1", 0, groups=ADMIN_GROUPS)  # the default 50 MiB upload limit
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def send_big_question(server: Any) -> int:
    """POST 60 MB to /v1/query as fast as the server takes it; the status it answered."""
    chunk = b"a" * (1024 * 1024)
    with socket.create_connection(server.server_address[:2], timeout=30) as connection:
        connection.sendall(b"POST /v1/query HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                           b"Content-Length: " + str(SIXTY_MB).encode() + b"\r\n\r\n{\"query\": \"")
        try:
            for _ in range(60):
                connection.sendall(chunk)
        except OSError:  # refused and closed: what we hope for
            pass
        reply = b""
        with_deadline = time.monotonic() + 30
        while time.monotonic() < with_deadline:
            try:
                piece = connection.recv(65536)
            except OSError:
                break
            if not piece:
                break
            reply += piece
    return int(reply.split(b" ", 2)[1]) if reply else 0


def test_a_60_mb_question_is_refused_unread_and_ten_at_once_leave_the_memory_flat(server: Any) -> None:
    before = rss_bytes()
    with ThreadPoolExecutor(10) as pool:
        statuses = list(pool.map(lambda _: send_big_question(server), range(10)))
    grown = rss_bytes() - before
    assert statuses == [413] * 10
    assert grown < 40 * 1024 * 1024, f"the server grew by {grown / 1e6:.0f} MB reading bodies it refuses"


def test_the_upload_route_keeps_its_own_limit(server: Any) -> None:
    document = b"# Sepsis\n\n" + b"Give fluids early. " * 150_000  # 2.9 MB: too big for a question, not a file
    status, body = status_and_body(exchange(server, b"POST /v1/documents?filename=a.md HTTP/1.1\r\n" + HOST
                                            + b"Content-Type: text/markdown\r\nConnection: close\r\n"
                                            + b"Content-Length: " + str(len(document)).encode() + b"\r\n\r\n"
                                            + document))
    assert status == 202, body
    status, body = status_and_body(exchange(server, b"POST /v1/query HTTP/1.1\r\n" + HOST
                                            + b"Content-Type: application/json\r\nContent-Length: 3000000\r\n\r\n"))
    assert status == 413 and "1048576" in body["error"]["message"]


@pytest.mark.parametrize("headers", [
    b"Content-Length: 2\r\nContent-Length: 40\r\n",  # conflicting: which body does a proxy forward?
    b"Content-Length: 2\r\nContent-Length: 2\r\n",  # duplicated
    b"Transfer-Encoding: chunked\r\nContent-Length: 2\r\n",  # smuggling's classic pair
])
def test_one_content_length_only(server: Any, headers: bytes) -> None:
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                     + headers + b"\r\n{}")
    status, body = status_and_body(reply)
    assert status == 400 and body["error"]["code"] == "bad_request"


def test_65_idle_sockets_do_not_turn_everyone_away(server: Any) -> None:
    idle = [socket.create_connection(server.server_address[:2], timeout=10) for _ in range(65)]
    try:
        time.sleep(0.5)
        for _ in range(3):
            reply = exchange(server, b"GET /v1/health HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")
            assert status_and_body(reply)[0] == 200
    finally:
        for connection in idle:
            connection.close()


def test_invalid_utf8_in_json_is_a_400_not_a_replaced_question(server: Any) -> None:
    body = b'{"query": "dose of metformin \xff\xfe in renal failure"}'
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                     b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    status, answer = status_and_body(reply)
    assert status == 400 and "UTF-8" in answer["error"]["message"]


@pytest.mark.parametrize("coding", [b"gzip", b"br", b"deflate, gzip"])
def test_a_compressed_body_is_a_415_that_says_to_send_it_uncompressed(server: Any, coding: bytes) -> None:
    """RFC 9110 section 8.4.1: a content coding the server does not take is a 415. A gzipped question was read as
    JSON and refused as 'not valid UTF-8' (found by a client probe)."""
    body = b"\x1f\x8b\x08\x00compressed"
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                     b"Content-Encoding: " + coding + b"\r\nConnection: close\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)
    status, answer = status_and_body(reply)
    assert status == 415 and answer["error"]["code"] == "unsupported_media_type"
    assert "uncompressed" in answer["error"]["message"]


def test_an_identity_coded_body_is_read(server: Any) -> None:
    body = b'{"query": "  "}'
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                     b"Content-Encoding: identity\r\nConnection: close\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)
    assert status_and_body(reply)[0] == 400  # the question's own refusal: the body was read


@pytest.mark.parametrize("path", [b"/v1/health%00", b"/v1/documents/%00x"])
def test_a_nul_in_the_path_is_a_400(server: Any, path: bytes) -> None:
    status, body = status_and_body(exchange(server, b"GET " + path + b" HTTP/1.1\r\n" + HOST
                                            + b"Connection: close\r\n\r\n"))
    assert status == 400 and "NUL" in body["error"]["message"]


def test_an_empty_upload_is_a_400_that_says_so(server: Any, local_deps) -> None:  # type: ignore[no-untyped-def]
    for request in (b"POST /v1/documents?filename=guide.pdf HTTP/1.1\r\n" + HOST + b"Content-Type: application/pdf"
                    b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    b"POST /v1/documents HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\nContent-Length: "
                    + str(len(envelope := json.dumps({"filename": "a.md", "text": ""}).encode())).encode()
                    + b"\r\nConnection: close\r\n\r\n" + envelope):
        status, body = status_and_body(exchange(server, request))
        assert status == 400 and "empty" in body["error"]["message"], body
    assert local_deps.jobs.list(limit=10) == []


@pytest.mark.parametrize("route", [b"/v1/voice/transcribe", b"/v1/voice/query"])
def test_a_recording_over_the_voice_limit_is_a_413_before_a_byte_of_it_is_read(server: Any, route: bytes) -> None:
    # Given headers announcing one byte more than a recording may have, and no body sent at all
    from voiceassist.speech import MAX_AUDIO_BYTES

    request = (b"POST " + route + b" HTTP/1.1\r\n" + HOST + b"Content-Type: audio/wav\r\nConnection: close\r\n"
               b"Content-Length: " + str(MAX_AUDIO_BYTES + 1).encode() + b"\r\n\r\n")
    # When the server answers: it must not wait for the 4 MiB (it read up to the 50 MiB upload limit before)
    status, body = status_and_body(exchange(server, request, wait_s=60))
    # Then a 413 naming the recording's limit, not the document upload's
    assert status == 413 and str(MAX_AUDIO_BYTES) in body["error"]["message"], body


@pytest.mark.parametrize("headers", [
    # a space before the colon: Python's parser stopped reading headers there and read the rest as body, so this
    # Transfer-Encoding was not seen beside the Content-Length (a proxy reading it as chunked smuggles a request)
    b"Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding : chunked\r\n",
    # a name with a space: every header after it (Origin, Authorization) was silently dropped
    b"Content-Type: application/json\r\nContent-Length: 2\r\nX Forwarded: a\r\nOrigin: http://evil.example\r\n",
    # a bare CR inside a value (RFC 9110 5.5): the line was cut there and the rest dropped
    b"Content-Type: application/json\r\nContent-Length: 2\r\nX-Note: a\rb\r\n",
    # a NUL inside a value
    b"Content-Type: application/json\r\nContent-Length: 2\r\nX-Note: a\x00b\r\n",
    # obs-fold: a value continued on the next line (RFC 9112 5.2)
    b"Content-Type: application/json\r\nContent-Length:\r\n 2\r\n",
], ids=["space-before-colon", "space-in-name", "bare-cr", "nul", "obs-fold"])
def test_a_header_line_http_does_not_allow_is_a_400_before_anything_else(server: Any, headers: bytes) -> None:
    """RFC 9112 5.1 and 5.2, RFC 9110 5.5: a server MUST reject these (or, for obs-fold and CR/NUL, replace them);
    read leniently, two parsers (a proxy's and this one) see different requests."""
    reply = exchange(server, b"POST /v1/query HTTP/1.1\r\n" + HOST + headers + b"\r\n{}")
    status, body = status_and_body(reply)
    assert status == 400 and body["error"]["code"] == "bad_request", reply[:300]
    assert "header" in body["error"]["message"]
    assert b"evil" not in reply and b"Forwarded" not in reply  # what was sent is not said back


@pytest.mark.parametrize("target", [b"http://evil.example/v1/health", b"http://evil.example:80/v1/documents",
                                    b"HTTP://EVIL.EXAMPLE/v1/health"])
def test_an_absolute_form_target_naming_another_host_is_a_421(server: Any, target: bytes) -> None:
    """RFC 9112 3.2.2: a server takes the host of an absolute-form target, not the Host header; the Host check
    (DNS rebinding: 421) read only the header, and the request was answered."""
    status, body = status_and_body(exchange(server, b"GET " + target + b" HTTP/1.1\r\n" + HOST
                                            + b"Connection: close\r\n\r\n"))
    assert status == 421 and body["error"]["code"] == "misdirected_request"


def test_an_absolute_form_target_naming_this_server_is_served(server: Any) -> None:
    port = str(server.server_address[1]).encode()
    status, body = status_and_body(exchange(server, b"GET http://127.0.0.1:" + port + b"/v1/health HTTP/1.1\r\n"
                                            + HOST + b"Connection: close\r\n\r\n"))
    assert status == 200 and body["status"] == "ok"
