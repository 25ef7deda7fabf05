"""A local HTTP server that turns real HTTP requests into API Gateway REST proxy events and calls the same
API handler Lambda runs. Single user ("local-user"), bound to 127.0.0.1."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from voiceassist_local.handlers import invoke

LOCAL_USER = "local-user"
LOCAL_GROUPS = "admin,clinician"
TEXT_TYPES = ("application/json", "text/", "application/x-www-form-urlencoded")

# Local faces that are not one API Gateway event and reply (the web client's files, Server-Sent Events). A
# handler takes the request and its body and writes the whole reply itself.
LocalFace = Callable[[BaseHTTPRequestHandler, bytes], None]
LOCAL_FACES: list[tuple[str, str, LocalFace]] = []  # (method, path or prefix ending in "/", handler)


def local_face(method: str, path: str) -> Callable[[LocalFace], LocalFace]:
    """Register a local face for `method` on `path` (an exact path, or a prefix when it ends in "/")."""
    def register(handler: LocalFace) -> LocalFace:
        LOCAL_FACES.append((method, path, handler))
        return handler
    return register


def find_local_face(method: str, target: str) -> LocalFace | None:
    path = urlsplit(target).path
    for face_method, face_path, handler in LOCAL_FACES:
        if face_method == method and (path == face_path or (face_path.endswith("/") and path.startswith(face_path))):
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


class ApiRequestHandler(BaseHTTPRequestHandler):
    server_version = "VoiceAssistLocal/0.1"
    protocol_version = "HTTP/1.1"

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        face = find_local_face(self.command, self.path)
        if face is not None:
            face(self, body)
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        event = to_api_gateway_event(self.command, self.path, headers, body,
                                     groups=getattr(self.server, "local_groups", LOCAL_GROUPS))
        reply = invoke("api", event)
        payload = reply.get("body") or ""
        data = base64.b64decode(payload) if reply.get("isBase64Encoded") else payload.encode("utf-8")
        self.send_response(int(reply.get("statusCode", 500)))
        sent = set()
        for name, values in (reply.get("multiValueHeaders") or {}).items():
            for value in values:
                self.send_header(name, value)
            sent.add(name.lower())
        for name, value in (reply.get("headers") or {}).items():
            if name.lower() not in sent:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (a malformed request line, an unknown method) as the API's JSON envelope,
        never its HTML page. An unsupported method is a 405: the resource exists, the method does not."""
        if code == 501:
            code, message = 405, f"the method {self.command} is not supported; see /v1/openapi.json"
        error = {"code": "method_not_allowed" if code == 405 else "bad_request",
                 "message": message or "the request could not be read", "trace_id": "local"}
        data = json.dumps({"error": error}).encode("utf-8")
        self.close_connection = True
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            pass  # the client went away

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return  # request lines carry query strings; the API logs what it needs, redacted


def make_server(host: str = "127.0.0.1", port: int = 8080, *, groups: str | None = None) -> ThreadingHTTPServer:
    from voiceassist.settings import settings_from_env

    server = ThreadingHTTPServer((host, port), ApiRequestHandler)
    server.daemon_threads = True
    server.local_groups = groups or settings_from_env().local_groups  # type: ignore[attr-defined]
    return server


def example_request(url: str) -> str:
    body = json.dumps({"query": "What is the first-line treatment for uncomplicated hypertension?"})
    return f"curl -s {url}/v1/query -H 'content-type: application/json' -d '{body}'"
