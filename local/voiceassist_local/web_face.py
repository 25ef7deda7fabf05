"""The web client's files at `/` and `/<file>`, with the same security headers CloudFront adds on AWS.

A local face (server.py): the files are package data of the local runtime (voiceassist_local/web), found
through the import system, so an installed wheel serves them from any folder. `/config.json` tells the page
it talks to this server directly, signed in as the local user (no Cognito).
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from importlib.resources import files

from voiceassist.constants.web import PERMISSIONS_POLICY, content_security_policy
from voiceassist.speech import MAX_AUDIO_SECONDS
from voiceassist_local.http_api import LOCAL_GROUPS, LocalFace, local_face

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
# CloudFront's policy (infra/constructs/web.py) without the API, WebSocket and Cognito origins: here the page
# talks only to the server that served it.
SECURITY_HEADERS = {
    "Content-Security-Policy": content_security_policy(),
    "Permissions-Policy": PERMISSIONS_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
# voice_max_seconds: how long the Speak button records before it stops by itself (what /v1/voice/* takes);
# voice_stream: the voice socket's path (voice_stream.PATH; faces do not import each other), which the Speak
# button streams to while recording.
LOCAL_CONFIG = {"mode": "local", "api_base": "", "auth": None, "websocket_url": None,
                "voice_max_seconds": int(MAX_AUDIO_SECONDS), "voice_stream": "/v1/voice/stream"}
WEB_FILES = files("voiceassist_local") / "web"


def _reply(handler: BaseHTTPRequestHandler, status: int, content_type: str, data: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    for name, value in SECURITY_HEADERS.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _serve_file(name: str) -> LocalFace:
    """A face for one of the client's files (the same flat layout as the S3 bucket on AWS)."""
    content_type = CONTENT_TYPES[name[name.rfind("."):]]

    def serve(handler: BaseHTTPRequestHandler, _body: bytes) -> None:
        _reply(handler, 200, content_type, (WEB_FILES / name).read_bytes())
    return serve


@local_face("GET", "/config.json")
def client_config(handler: BaseHTTPRequestHandler, _body: bytes) -> None:
    """The local user's groups come along (VOICEASSIST_LOCAL_GROUPS), so a clinician sees no admin panel."""
    groups = str(getattr(handler.server, "local_groups", None) or LOCAL_GROUPS)
    config = {**LOCAL_CONFIG, "groups": [g.strip() for g in groups.split(",") if g.strip()]}
    _reply(handler, 200, CONTENT_TYPES[".json"], json.dumps(config).encode("utf-8"))


local_face("GET", "/")(_serve_file("index.html"))
for _file in WEB_FILES.iterdir():
    if _file.is_file() and _file.name[_file.name.rfind("."):] in CONTENT_TYPES:
        local_face("GET", f"/{_file.name}")(_serve_file(_file.name))
