"""The web client's files at `/` and `/web/...`, with the same security headers CloudFront adds on AWS.

A local face (server.py): the files are package data of the local runtime (voiceassist_local/web), found
through the import system, so an installed wheel serves them from any folder. `/config.json` tells the page
it talks to this server directly, signed in as the local user (no Cognito).
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from importlib.resources import files
from urllib.parse import urlsplit

from voiceassist_local.server import local_face

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
# The same policy as infra/constructs/web.py, minus the Cognito domain the local page never calls.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
LOCAL_CONFIG = {"mode": "local", "api_base": "", "auth": None, "websocket_url": None}
_ASSET_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*\.(html|js|css|svg)$")


def _reply(handler: BaseHTTPRequestHandler, status: int, content_type: str, data: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    for name, value in SECURITY_HEADERS.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _asset(name: str) -> bytes | None:
    if not _ASSET_NAME.match(name):  # one flat folder: no "..", no sub-paths
        return None
    resource = files("voiceassist_local") / "web" / name
    return resource.read_bytes() if resource.is_file() else None


@local_face("GET", "/")
def index_page(handler: BaseHTTPRequestHandler, _body: bytes) -> None:
    _reply(handler, 200, CONTENT_TYPES[".html"], _asset("index.html") or b"")


@local_face("GET", "/config.json")
def client_config(handler: BaseHTTPRequestHandler, _body: bytes) -> None:
    _reply(handler, 200, CONTENT_TYPES[".json"], json.dumps(LOCAL_CONFIG).encode("utf-8"))


@local_face("GET", "/web/")
def web_asset(handler: BaseHTTPRequestHandler, _body: bytes) -> None:
    name = urlsplit(handler.path).path.removeprefix("/web/")
    data = _asset(name)
    if data is None:
        _reply(handler, 404, "text/plain; charset=utf-8", b"not found\n")
        return
    _reply(handler, 200, CONTENT_TYPES["." + name.rsplit(".", 1)[1]], data)
