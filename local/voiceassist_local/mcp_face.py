"""MCP locally: `voiceassist mcp` over stdio, and the streamable-HTTP endpoint /v1/mcp on the local server (the
same stateless handling as the Lambda behind API Gateway). Both run as the local server's single user."""

from __future__ import annotations

import argparse
from http.server import BaseHTTPRequestHandler

import anyio

from voiceassist.composition import dependencies
from voiceassist.tools.executor import Caller
from voiceassist.tools.mcp_server import handle_http, serve_stdio
from voiceassist_local.server import LOCAL_USER, local_face

MCP_PATH = "/v1/mcp"


def local_caller() -> Caller:
    return Caller(user_id=LOCAL_USER, channel="mcp")


def run_stdio(args: argparse.Namespace) -> int:
    from voiceassist_local.cli.local import local_dependencies

    deps = local_dependencies()
    anyio.run(serve_stdio, deps.tool_executor, local_caller())
    return 0


def serve_http(request: BaseHTTPRequestHandler, body: bytes) -> None:
    headers = {name.lower(): value for name, value in request.headers.items()}
    reply = handle_http(dependencies().tool_executor, local_caller(), method=request.command, path=MCP_PATH,
                        headers=headers, body=body)
    request.send_response(reply.status)
    for name, value in reply.headers.items():
        if name.lower() != "content-length":
            request.send_header(name, value)
    request.send_header("Content-Length", str(len(reply.body)))
    request.end_headers()
    request.wfile.write(reply.body)


for _method in ("POST", "GET", "DELETE"):
    local_face(_method, MCP_PATH)(serve_http)
