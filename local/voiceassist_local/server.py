"""The local API server: http_api's request handler behind http_guard's hardened server, with every local face
registered (the web client, Server-Sent Events and chat completions, MCP over HTTP, the voice WebSocket). Faces
depend on http_api, never on this module, and http_api imports no face: this module is where they meet.

The local user is a clinician unless the operator asks for admin rights (VOICEASSIST_LOCAL_GROUPS=admin,clinician,
docs/security.md): a page on any website can send requests to 127.0.0.1, and the guard refuses cross-origin
writes, but the default identity should not be able to change the knowledge base at all."""

from __future__ import annotations

import json

from voiceassist_local import (  # noqa: F401 - importing registers the faces
    event_stream,
    mcp_face,
    metrics_face,
    voice_stream,
    web_face,
)
from voiceassist_local.http_api import (  # noqa: F401 - the names callers import from here
    ADMIN_GROUPS,
    LOCAL_GROUPS,
    LOCAL_USER,
    ApiRequestHandler,
    find_local_face,
    local_face,
    to_api_gateway_event,
)
from voiceassist_local.http_guard import BODY_OVERHEAD, GuardedServer, check_binding, configure_access_log
from voiceassist_local.request_checks import allowed_hosts

# the routes whose body is a file: a document (up to the upload limit, base64 in a JSON envelope) and a recording
# (its own limit, so that no more than it is read before the 413); every other is small
DOCUMENT_ROUTE = ("POST", "/v1/documents")
RECORDING_ROUTES = (("POST", "/v1/voice/transcribe"), ("POST", "/v1/voice/query"))


def body_limits(max_upload_bytes: int) -> dict[tuple[str, str], int]:
    """(method, path) -> the largest body the route reads."""
    from voiceassist.speech import MAX_AUDIO_BYTES

    upload = int(max_upload_bytes * BODY_OVERHEAD) + 64 * 1024
    return {DOCUMENT_ROUTE: upload, **dict.fromkeys(RECORDING_ROUTES, MAX_AUDIO_BYTES)}


def make_server(host: str = "127.0.0.1", port: int = 8080, *, groups: str | None = None,
                token: str | None = None) -> GuardedServer:
    """The local API server. Beyond the loopback interface it needs a token (http_guard.check_binding)."""
    from voiceassist.settings import settings_from_env

    settings = settings_from_env()
    token = token or settings.local_token
    check_binding(host, token)
    configure_access_log()
    server = GuardedServer((host, port), ApiRequestHandler, token=token, hosts=allowed_hosts(host),
                           max_body_bytes=int(settings.max_upload_bytes * BODY_OVERHEAD) + 64 * 1024,
                           large_bodies=body_limits(settings.max_upload_bytes))
    server.local_groups = groups or settings.local_groups  # type: ignore[attr-defined]
    return server


def example_request(url: str, *, token: bool = False) -> str:
    """The banner's curl line; with a token it sends it (from the variable, never printed)."""
    body = json.dumps({"query": "What is the first-line treatment for uncomplicated hypertension?"})
    auth = " -H \"Authorization: Bearer $VOICEASSIST_LOCAL_TOKEN\"" if token else ""
    return f"curl -s {url}/v1/query -H 'content-type: application/json'{auth} -d '{body}'"
