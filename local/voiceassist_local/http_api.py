"""The local server's core: real HTTP requests become API Gateway REST proxy events for the same API handler
Lambda runs, and local faces (the web client's files, Server-Sent Events, MCP) answer the paths they registered.
Faces import this module; this module imports no face (server.py assembles them). Hardened in http_guard.py."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from voiceassist_local.api_turns import api_turn
from voiceassist_local.handlers import invoke
from voiceassist_local.http_guard import GuardedRequestHandler
from voiceassist_local.http_replies import error_json

LOCAL_USER = "local-user"
LOCAL_GROUPS = "clinician"  # the default identity; "admin,clinician" when the operator asks
ADMIN_GROUPS = "admin,clinician"
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


def _faces_on(target: str) -> list[tuple[str, LocalFace]]:
    path = urlsplit(target).path
    found = []
    for face_method, face_path, handler in LOCAL_FACES:
        is_prefix = face_path.endswith("/") and face_path != "/"  # "/" itself is the page, not every path
        if path == face_path or (is_prefix and path.startswith(face_path)):
            found.append((face_method, handler))
    return found


def find_local_face(method: str, target: str) -> LocalFace | None:
    return next((handler for face_method, handler in _faces_on(target) if face_method == method), None)


def preflight_allow(target: str) -> str | None:
    """The Allow header of an OPTIONS on a local face's path (the API answers only for its own routes), so a
    configured dev origin's CORS preflight of /v1/query/stream or /v1/mcp passes as it does for /v1/query."""
    methods = sorted({method for method, _ in _faces_on(target)})
    return ", ".join([*methods, *(["HEAD"] if "GET" in methods else []), "OPTIONS"]) if methods else None


def to_api_gateway_event(method: str, target: str, headers: dict[str, str], body: bytes, *,
                         groups: str = ADMIN_GROUPS) -> dict[str, Any]:
    """Build the REST (v1) proxy event API Gateway would send for this request; the local user's Cognito
    groups are `groups` (the server passes its own: VOICEASSIST_LOCAL_GROUPS, a clinician by default; tests
    building events by hand get an admin)."""
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


def local_groups(request: BaseHTTPRequestHandler) -> str:
    """The local user's groups on the server answering `request` (make_server sets them)."""
    return str(getattr(request.server, "local_groups", None) or LOCAL_GROUPS)


class ApiRequestHandler(GuardedRequestHandler):
    def respond(self, body: bytes) -> None:
        allow = preflight_allow(self.path) if self.command == "OPTIONS" else None
        if allow is not None:
            self.write_reply(204, [("Allow", allow)], b"")  # with the CORS headers of a configured dev origin
            return
        face = find_local_face(self.command, self.path)
        if face is not None:
            face(self, body)
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        event = to_api_gateway_event(self.command, self.path, headers, body, groups=local_groups(self))
        with api_turn():
            reply = invoke("api", event)
        payload = reply.get("body") or ""
        data = base64.b64decode(payload) if reply.get("isBase64Encoded") else payload.encode("utf-8")
        sent: list[tuple[str, str]] = []
        for name, values in (reply.get("multiValueHeaders") or {}).items():
            sent.extend((name, value) for value in values)
        names = {name.lower() for name, _ in sent}
        sent.extend((name, value) for name, value in (reply.get("headers") or {}).items() if name.lower() not in names)
        status = int(reply.get("statusCode", 500))
        face_methods = preflight_allow(self.path)
        if status == 404 and face_methods is not None:  # a local face's path, with a method it does not take
            path = urlsplit(self.path).path
            status, data = 405, error_json("method_not_allowed", f"{path} takes {face_methods}, not {self.command}; "
                                                                 "see /v1/openapi.json")
            sent = [("Content-Type", "application/json"), ("Allow", face_methods)]
        self.write_reply(status, sent, data)
