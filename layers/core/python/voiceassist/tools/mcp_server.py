"""The tool registry over the Model Context Protocol (the official `mcp` SDK's low-level Server).

Tools are listed with their own JSON Schemas (the registry's, generated from pydantic), and every call goes
through the executor, so MCP gets the same validation, roles, PHI rule, rate limit, confirmation, time-out
and audit as the model's tool loop and the REST API; a tool that needs confirmation returns the pending
action. The low-level Server is used rather than MCPServer because MCPServer derives each schema from a
Python signature, and these tools already have theirs.

Two faces: stdio (`voiceassist mcp`; a line that is not a JSON-RPC request is answered, mcp_stdio_lines.py) and
streamable HTTP, stateless with JSON replies, one request at a time (`handle_http`: what POST /v1/mcp runs locally
and in its Lambda behind API Gateway).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from voiceassist import __version__
from voiceassist.models import ToolCall, ToolDefinition, ToolResult
from voiceassist.tools.executor import Caller, ToolExecutor
from voiceassist.tools.mcp_errors import (
    NO_SESSION_REPLY,
    NO_STREAM_REPLY,
    as_json_rpc,
    client_words,
    invalid_tool_call,
    refused_request,
)

SERVER_NAME = "voiceassist"
MAX_BODY_BYTES = 1_000_000


def mcp_tool(definition: ToolDefinition) -> types.Tool:
    risky = definition.requires_confirmation or definition.risk_level != "low"
    return types.Tool(name=definition.name, description=definition.description,
                      input_schema=definition.parameters,
                      annotations=types.ToolAnnotations(read_only_hint=not risky, destructive_hint=risky,
                                                        open_world_hint=not definition.requires_phi))


def mcp_result(result: ToolResult) -> types.CallToolResult:
    """The text the model reads, and the whole result as structured content (pending action included)."""
    structured = result.model_dump(mode="json", exclude={"sources"})
    structured["sources"] = [{"title": h.chunk.metadata.title, "doc_key": h.chunk.doc_key, "page": h.chunk.page}
                             for h in result.sources]
    return types.CallToolResult(content=[types.TextContent(type="text", text=result.content)],
                                structured_content=structured, is_error=not result.ok)


def build_server(executor: ToolExecutor, caller: Caller) -> Server[Any]:
    """An MCP server whose every call runs as `caller` through `executor`."""

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(d) for d in executor.offered_definitions()])

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        call = ToolCall(name=params.name, arguments=dict(params.arguments or {}))
        result = await anyio.to_thread.run_sync(executor.execute, call, caller)
        return mcp_result(result)

    return Server(SERVER_NAME, version=__version__, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(executor: ToolExecutor, caller: Caller) -> None:
    """The SDK's stdio transport, answering the lines it drops (mcp_stdio_lines.py)."""
    from mcp.server.stdio import stdio_server

    from voiceassist.tools.mcp_stdio_lines import (  # stdio only: not the Lambda's
        AnsweringUnreadable,
        EchoFreeWrites,
        checked_stdin,
    )

    server = build_server(executor, caller)
    with checked_stdin() as lines:
        async with stdio_server(stdin=lines) as (read_stream, write_stream):
            await server.run(AnsweringUnreadable(read_stream, write_stream), EchoFreeWrites(write_stream),
                             server.create_initialization_options())


@dataclass
class HttpReply:
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


def handle_http(executor: ToolExecutor, caller: Caller, *, method: str, path: str,
                headers: Mapping[str, str], body: bytes) -> HttpReply:
    """One streamable-HTTP request, stateless (each request stands alone: what a Lambda can serve). A request
    whose id is neither a string, a number nor null is answered as JSON-RPC's Invalid Request (the SDK took it
    for a notification: 202 and no body), and no error quotes the request back (mcp_errors.py)."""
    if method.upper() == "GET":  # a stateless server has no stream of its own to open: the SDK would wait for ever
        return HttpReply(status=405, headers={"content-type": "application/json", "allow": "POST"},
                         body=NO_STREAM_REPLY)
    if method.upper() == "DELETE":  # nor a session to end (MCP lets the server answer 405)
        return HttpReply(status=405, headers={"content-type": "application/json", "allow": "POST"},
                         body=NO_SESSION_REPLY)
    if method.upper() == "POST" and (refused := refused_request(body)) is not None:
        return HttpReply(status=400, headers={"content-type": "application/json"}, body=refused)
    if method.upper() == "POST" and (invalid := invalid_tool_call(body)) is not None:
        return HttpReply(status=200, headers={"content-type": "application/json"}, body=invalid)
    reply: HttpReply = anyio.run(_handle_http, executor, caller, method, path, headers, body)
    reply.body = as_json_rpc(reply.status, reply.headers, reply.body, client_words(headers, body))
    reply.headers = {k: v for k, v in reply.headers.items() if k.lower() not in ("content-length", "content-type")}
    if reply.body:
        reply.headers["content-type"] = "application/json"
    return reply


async def _handle_http(executor: ToolExecutor, caller: Caller, method: str, path: str,
                       headers: Mapping[str, str], body: bytes) -> HttpReply:
    manager = StreamableHTTPSessionManager(app=build_server(executor, caller), stateless=True, json_response=True,
                                           max_request_body_size=MAX_BODY_BYTES)
    reply = HttpReply()
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await anyio.sleep_forever()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            reply.status = message["status"]
            reply.headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in message.get("headers", [])}
        elif message["type"] == "http.response.body":
            reply.body += message.get("body", b"")

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method.upper(),
             "scheme": "https", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
             "client": ("127.0.0.1", 0), "server": ("voiceassist", 443)}
    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return reply
