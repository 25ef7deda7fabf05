"""MCP over stdio answers every line a client sends, as JSON-RPC 2.0 (section 5.1) asks, where the SDK's transport
drops some without a word and leaves the client waiting:

- A line that is not JSON is a Parse error (-32700), and JSON that is not a JSON-RPC message (a batch, which MCP
  has not had since 2025-06-18; a message with no method, or a method that is not a string) an Invalid Request
  (-32600); the SDK's reader hands both on as exceptions, and its dispatcher only logs them.
- A request whose id is neither a string, an integer nor null is an Invalid Request too: the SDK reads it as a
  notification (the id dropped), which is never answered. Only the raw line shows it, so stdin is read here
  (`checked_stdin`) and such a line goes on as `{}`, which the SDK rejects as the Invalid Request it is.
- Both errors carry a null id (the request's could not be read) and the specification's message, never the line
  (it can hold a tool argument, so PHI). A blank line is no message: skipped, as it was.
- As over HTTP, every error the SDK sends leaves with the specification's message for its code and no data
  (`EchoFreeWrites`: its 'Method not found' carried the method name), but a protocol negotiation's data (the
  versions the server takes: the SDK's client re-probes with them), and a tools/call whose params, name or
  arguments have the wrong shape is an Invalid params naming the member (mcp_errors.invalid_tool_call).

stdin is taken as the SDK takes it: the process's fd 0 points at the null device while serving, so a child process
(OCR, speech) never reads the client's messages, and is restored after.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any, cast

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION, ErrorData, JSONRPCError, JSONRPCRequest
from pydantic import ValidationError

from voiceassist.tools.mcp_errors import MESSAGES, has_invalid_id, invalid_tool_call

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
NOT_JSON = {"json_invalid", "string_unicode"}  # pydantic's error types for text that is not (well-formed) JSON
REJECTED_LINE = "{}\n"  # not a request, a notification nor a response: the SDK rejects it


class CheckedLines:
    """stdin's lines for the SDK's reader, but blank ones; a request with an invalid id becomes REJECTED_LINE."""

    def __init__(self, stdin: anyio.AsyncFile[str]) -> None:
        self._stdin = stdin

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while line := await self._stdin.readline():
            if line.strip():
                return REJECTED_LINE if has_invalid_id(line.encode("utf-8", "replace")) else line
        raise StopAsyncIteration


@contextmanager
def checked_stdin() -> Iterator[anyio.AsyncFile[str]]:
    """stdin's checked lines, in the type the SDK's stdio_server takes (it only iterates over them)."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        text = io.TextIOWrapper(os.fdopen(wire, "rb", closefd=False), encoding="utf-8", errors="replace")
        yield cast("anyio.AsyncFile[str]", CheckedLines(anyio.wrap_file(text)))
    finally:
        os.dup2(wire, 0)
        os.close(wire)


def error_reply(exc: Exception) -> SessionMessage:
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    code = PARSE_ERROR if any(e["type"] in NOT_JSON for e in errors) else INVALID_REQUEST
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=code, message=MESSAGES[code])))


def _invalid_tool_call(item: Any) -> SessionMessage | None:
    """The Invalid params naming the member of a tools/call whose params have the wrong shape (as over HTTP)."""
    message = getattr(item, "message", None)
    if not isinstance(message, JSONRPCRequest) or message.method != "tools/call":
        return None
    reply = invalid_tool_call(json.dumps(message.model_dump(mode="json", by_alias=True, exclude_none=True)).encode())
    return None if reply is None else SessionMessage(JSONRPCError.model_validate_json(reply))


# The errors whose data a client needs to connect: the versions (-32022) or capabilities (-32021) the server takes.
# The SDK's client re-probes with data.supported when a slow start made its first probe time out (under load).
NEGOTIATION = {UNSUPPORTED_PROTOCOL_VERSION: "Unsupported protocol version: use one of data.supported",
               -32021: "Missing a required client capability: see data"}
_VERSION = re.compile(r"\d{4}-\d{2}-\d{2}")


def _negotiation(error: ErrorData) -> Any:
    """The data a negotiation error keeps (the server's own versions or capabilities; the version the client asked
    for only when shaped like one); None for any other error."""
    if error.code not in NEGOTIATION or not isinstance(error.data, dict):
        return None
    data = dict(error.data)
    if "requested" in data and not (isinstance(data["requested"], str) and _VERSION.fullmatch(data["requested"])):
        data["requested"] = "(not a protocol version)"
    return data


class EchoFreeWrites:
    """The SDK's write stream, each JSON-RPC error leaving with the specification's message for its code and no data,
    as over HTTP (mcp_errors.without_echo): the SDK's 'Method not found' carried the method name, free text."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCError):
            code = message.error.code
            data = _negotiation(message.error)
            clean = ErrorData(code=code, message=MESSAGES.get(code, NEGOTIATION.get(code, "Server error")),
                              **({} if data is None else {"data": data}))
            item = SessionMessage(JSONRPCError(jsonrpc="2.0", id=message.id, error=clean), metadata=item.metadata)
        await self._inner.send(item)

    def __getattr__(self, name: str) -> Any:  # aclose, clone, statistics, ...: the stream's own
        return getattr(self._inner, name)

    async def __aenter__(self) -> EchoFreeWrites:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> Any:
        return await self._inner.__aexit__(exc_type, exc, tb)


class AnsweringUnreadable:
    """The SDK's read stream without the exceptions its reader puts in for unreadable lines: each is answered on
    the write stream, in its place among the replies, and the next message is read."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner = inner
        self._write = write_stream

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK's dispatcher reads from its stream
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if isinstance(item, Exception):
                await self._write.send(error_reply(item))
            elif (refused := _invalid_tool_call(item)) is not None:
                await self._write.send(refused)
            else:
                return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringUnreadable:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringUnreadable:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
