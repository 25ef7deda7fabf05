"""A local HTTP server that turns real HTTP requests into API Gateway REST proxy events and calls the same
API handler Lambda runs. Single user ("local-user"), bound to 127.0.0.1; hardened in http_guard.py."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from voiceassist_local.api_turns import api_turn
from voiceassist_local.handlers import invoke
from voiceassist_local.http_guard import (
    BODY_OVERHEAD,
    GuardedRequestHandler,
    GuardedServer,
    check_binding,
    configure_access_log,
)

LOCAL_USER = "local-user"
LOCAL_GROUPS = "admin,clinician"
TEXT_TYPES = ("application/json", "text/", "application/x-www-form-urlencoded")

# Local faces that are not one API Gateway event and reply (the web client's files, Server-Sent Events). A
# handler takes the request and its body and writes the whole reply itself.
LocalFace = Callable[[BaseHTTPRequestHandler, bytes], None]
LOCAL_FACES: list[tuple[str, str, LocalFace]] = []  # (method, path or prefix ending in "/", handler)


def local_face(method: str, path: str) -> Callable[[LocalFace], LocalFace]:
    """Register a local face for `method` on `path` (an exact path, or a prefix when it ends in "/", except "/")."""
    def register(handler: LocalFace) -> LocalFace:
        LOCAL_FACES.append((method, path, handler))
        return handler
    return register


def find_local_face(method: str, target: str) -> LocalFace | None:
    path = urlsplit(target).path
    for face_method, face_path, handler in LOCAL_FACES:
        is_prefix = face_path.endswith("/") and face_path != "/"  # "/" itself is the page, not every path
        if face_method == method and (path == face_path or (is_prefix and path.startswith(face_path))):
            return handler
    return None


def to_api_gateway_event(method: str, target: str, headers: dict[str, str], body: bytes, *,
                         groups: str = LOCAL_GROUPS) -> dict[str, Any]:
    """Build the REST (v1) proxy event API Gateway would send for this request; the local user's Cognito
    groups are `groups` (VOICEASSIST_LOCAL_GROUPS: "clinician" runs the server as a clinician)."""
    url = urlsplit(target)
    query = parse_qs(url.query, keep_blank_values=True)
    content_type = headers.get("content-type", "")
    is_text = not body or any(content_type.startswith(t) for t in TEXT_TYPES)
    request_id = str(uuid.uuid4())
    return {
        "resource": url.path,
        "path": url.path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in query.items()} or None,
        "multiValueQueryStringParameters": query or None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "requestId": request_id, "stage": "local", "httpMethod": method, "path": url.path,
            "resourcePath": url.path, "identity": {"sourceIp": "127.0.0.1"},
            "authorizer": {"claims": {"sub": LOCAL_USER, "cognito:groups": groups}},
        },
        "body": (body.decode("utf-8", errors="replace") if is_text else base64.b64encode(body).decode("ascii"))
        if body else None,
        "isBase64Encoded": bool(body) and not is_text,
    }


class ApiRequestHandler(GuardedRequestHandler):
    def respond(self, body: bytes) -> None:
        face = find_local_face(self.command, self.path)
        if face is not None:
            face(self, body)
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        event = to_api_gateway_event(self.command, self.path, headers, body,
                                     groups=getattr(self.server, "local_groups", LOCAL_GROUPS))
        with api_turn():
            reply = invoke("api", event)
        payload = reply.get("body") or ""
        data = base64.b64decode(payload) if reply.get("isBase64Encoded") else payload.encode("utf-8")
        sent: list[tuple[str, str]] = []
        for name, values in (reply.get("multiValueHeaders") or {}).items():
            sent.extend((name, value) for value in values)
        names = {name.lower() for name, _ in sent}
        sent.extend((name, value) for name, value in (reply.get("headers") or {}).items() if name.lower() not in names)
        self.write_reply(int(reply.get("statusCode", 500)), sent, data)


def make_server(host: str = "127.0.0.1", port: int = 8080, *, groups: str | None = None,
                token: str | None = None) -> GuardedServer:
    """The local API server. Beyond the loopback interface it needs a token (http_guard.check_binding)."""
    import voiceassist_local.event_stream  # noqa: F401 - registers the streaming faces (SSE, chat completions)
    from voiceassist.settings import settings_from_env
    from voiceassist_local import mcp_face  # noqa: F401 - registers /v1/mcp (MCP over streamable HTTP)

    settings = settings_from_env()
    token = token or settings.local_token
    check_binding(host, token)
    configure_access_log()
    server = GuardedServer((host, port), ApiRequestHandler, token=token,
                           max_body_bytes=int(settings.max_upload_bytes * BODY_OVERHEAD) + 64 * 1024)
    server.local_groups = groups or settings.local_groups  # type: ignore[attr-defined]
    return server


def example_request(url: str) -> str:
    body = json.dumps({"query": "What is the first-line treatment for uncomplicated hypertension?"})
    return f"curl -s {url}/v1/query -H 'content-type: application/json' -d '{body}'"


from voiceassist_local import web_face  # noqa: E402, F401 - registers the web client's local faces
