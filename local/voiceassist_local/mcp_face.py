"""MCP locally: `voiceassist mcp` over stdio, and /v1/mcp on the local server, which turns the request into the
API Gateway event the `mcp` Lambda gets (stateless streamable HTTP). Both run as the local single user."""

from __future__ import annotations

import argparse
from http.server import BaseHTTPRequestHandler

import anyio

from voiceassist.tools.executor import Caller
from voiceassist.tools.mcp_server import serve_stdio
from voiceassist_local.handlers import invoke
from voiceassist_local.server import LOCAL_USER, local_face, to_api_gateway_event

MCP_PATH = "/v1/mcp"


def run_stdio(args: argparse.Namespace) -> int:
    from voiceassist_local.cli.local import local_dependencies

    deps = local_dependencies()
    anyio.run(serve_stdio, deps.tool_executor, Caller(user_id=LOCAL_USER, channel="mcp"))
    return 0


def serve_http(request: BaseHTTPRequestHandler, body: bytes) -> None:
    headers = {name.lower(): value for name, value in request.headers.items()}
    reply = invoke("mcp", to_api_gateway_event(request.command, request.path, headers, body))
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
