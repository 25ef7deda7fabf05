"""`voiceassist mcp`: the tools over MCP on stdin/stdout, for an MCP client that starts this process, as the
local single user."""

from __future__ import annotations

import argparse

import anyio

from voiceassist.tools.executor import Caller
from voiceassist.tools.mcp_server import serve_stdio
from voiceassist_local.http_api import LOCAL_USER


def run_stdio(args: argparse.Namespace) -> int:
    from voiceassist_local.cli.local import local_dependencies

    deps = local_dependencies()
    anyio.run(serve_stdio, deps.tool_executor, Caller(user_id=LOCAL_USER, channel="mcp"))
    return 0
