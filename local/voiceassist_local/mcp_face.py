"""MCP over HTTP locally: /v1/mcp on the local server turns the request into the API Gateway event the `mcp`
Lambda gets (stateless streamable HTTP), as the local user with the server's groups. (`voiceassist mcp`, over
stdio, is mcp_stdio.py.)"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

from voiceassist_local.handlers import invoke
from voiceassist_local.http_api import local_face, local_groups, to_api_gateway_event

MCP_PATH = "/v1/mcp"


def serve_http(request: BaseHTTPRequestHandler, body: bytes) -> None:
    headers = {name.lower(): value for name, value in request.headers.items()}
    event = to_api_gateway_event(request.command, request.path, headers, body, groups=local_groups(request))
    reply = invoke("mcp", event)
    data = (reply.get("body") or "").encode("utf-8")
    request.send_response(int(reply["statusCode"]))
    for name, value in (reply.get("headers") or {}).items():
        if name.lower() != "content-length":
            request.send_header(name, value)
    request.send_header("Content-Length", str(len(data)))
    request.end_headers()
    request.wfile.write(data)


for _method in ("POST", "GET", "DELETE"):
    local_face(_method, MCP_PATH)(serve_http)
