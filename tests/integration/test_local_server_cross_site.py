"""A website cannot drive the local server: a foreign Host (DNS rebinding) is refused, a state-changing request
from another origin is refused, a body a browser sends cross-site without a preflight (text/plain, a form) is
refused, and the default local user is a clinician (admin rights only when the operator asks)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from voiceassist_local.server import ADMIN_GROUPS, make_server

from tests.integration.test_local_server_hardening import exchange, headers_of, status_and_body

PLANTED = b"Metformin maximum daily dose is 25 g."


def serve(groups: str | None = None) -> Any:
    server = make_server("127.0.0.1", 0, groups=groups)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


@pytest.fixture
def admin_server(local_deps) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    server = serve(ADMIN_GROUPS)
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def default_server(local_deps) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    server = serve()
    yield server
    server.shutdown()
    server.server_close()


def post(server: Any, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    port = server.server_address[1]
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return status_and_body(exchange(server, ("\r\n".join(lines) + "\r\n\r\n").encode() + body))


def get(server: Any, path: str, host: str) -> tuple[int, dict[str, Any]]:
    return status_and_body(exchange(server, f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                                    .encode()))


def test_a_cross_site_text_plain_upload_plants_nothing(admin_server: Any, local_deps) -> None:  # type: ignore[no-untyped-def]
    # what <form enctype="text/plain"> or fetch(..., {mode: "no-cors"}) on any website sends: no preflight
    status, body = post(admin_server, "/v1/documents?filename=dose.txt", PLANTED,
                        {"Content-Type": "text/plain", "Origin": "https://evil.example",
                         "Sec-Fetch-Site": "cross-site"})
    assert (status, body["error"]["code"]) == (403, "cross_origin")
    # a raw upload of a file's own type from another site is refused too (a browser would preflight it first)
    status, body = post(admin_server, "/v1/documents?filename=dose.pdf", PLANTED,
                        {"Content-Type": "application/pdf", "Origin": "https://evil.example"})
    assert (status, body["error"]["code"]) == (403, "cross_origin")
    # without an Origin header (an older browser), Sec-Fetch-Site tells
    status, _ = post(admin_server, "/v1/documents?filename=dose.txt", PLANTED,
                     {"Content-Type": "application/pdf", "Sec-Fetch-Site": "cross-site"})
    assert status == 403
    # and the body type alone is refused, whoever sends it
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"Content-Type": content_type} if content_type else {}
        status, body = post(admin_server, "/v1/documents?filename=dose.txt", PLANTED, headers)
        assert (status, body["error"]["code"]) == (415, "unsupported_media_type"), content_type
    assert local_deps.documents.list(limit=10) == []


@pytest.mark.parametrize("path", ["/v1/query", "/v1/query/stream", "/v1/chat/completions", "/v1/mcp"])
def test_every_json_route_refuses_text_plain_and_other_origins(admin_server: Any, path: str) -> None:
    body = json.dumps({"query": "What is the maximum daily dose of metformin?"}).encode()
    assert post(admin_server, path, body, {"Content-Type": "text/plain"})[0] == 415
    assert post(admin_server, path, body, {"Content-Type": "application/json",
                                           "Origin": "https://evil.example"})[0] == 403


def test_the_servers_own_page_and_the_dev_origins_may_write(admin_server: Any, local_deps) -> None:  # type: ignore[no-untyped-def]
    port = admin_server.server_address[1]
    envelope = json.dumps({"filename": "guide.md", "text": "# Sepsis\n\nGive fluids early."}).encode()
    for origin in (f"http://127.0.0.1:{port}", "http://localhost:5173"):
        status, body = post(admin_server, "/v1/documents", envelope,
                            {"Content-Type": "application/json", "Origin": origin, "Sec-Fetch-Site": "same-origin"})
        assert status in (200, 202), body
    assert post(admin_server, "/v1/documents?filename=guide.pdf", b"%PDF-1.4 not really",
                {"Content-Type": "application/pdf"})[0] != 415  # a raw upload of the file's own type


def test_a_foreign_host_is_refused_and_the_loopback_names_are_served(default_server: Any) -> None:
    port = default_server.server_address[1]
    status, body = get(default_server, "/v1/health", f"rebind.evil.example:{port}")  # DNS rebinding
    assert (status, body["error"]["code"]) == (421, "misdirected_request")
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "LOCALHOST"):
        assert get(default_server, "/v1/health", host)[0] == 200, host


def test_the_default_local_user_is_a_clinician(default_server: Any, local_deps) -> None:  # type: ignore[no-untyped-def]
    envelope = json.dumps({"filename": "guide.md", "text": "# Sepsis\n\nGive fluids early."}).encode()
    status, body = post(default_server, "/v1/documents", envelope, {"Content-Type": "application/json"})
    assert status == 403 and "admin" in body["error"]["message"]
    port = default_server.server_address[1]
    config = exchange(default_server, f"GET /config.json HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close"
                      "\r\n\r\n".encode())
    assert json.loads(config.partition(b"\r\n\r\n")[2])["groups"] == ["clinician"]  # the page shows no admin panel
    assert local_deps.documents.list(limit=10) == []


@pytest.mark.parametrize(("path", "method"), [("/v1/query/stream", "POST"), ("/v1/mcp", "POST"),
                                              ("/v1/chat/completions", "POST"), ("/v1/query", "POST")])
def test_a_dev_origins_preflight_is_answered_on_the_local_servers_own_routes_too(default_server: Any, path: str,
                                                                                 method: str) -> None:
    # a dev server's page (Vite on :5173) posting JSON is preflighted first; a 404 there and the browser never posts
    preflight = exchange(default_server, f"OPTIONS {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://localhost:5173"
                         f"\r\nAccess-Control-Request-Method: {method}\r\nConnection: close\r\n\r\n".encode())
    headers = headers_of(preflight)

    assert preflight.startswith(b"HTTP/1.1 204")
    assert headers["access-control-allow-origin"] == "http://localhost:5173"
    assert method in headers["allow"] and "OPTIONS" in headers["allow"]
    stranger = exchange(default_server, f"OPTIONS {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example"
                        "\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n".encode())
    assert b"Access-Control-Allow-Origin" not in stranger  # never for another site
