"""`voiceassist mcp` (MCP over stdio, in a subprocess) answers a line it cannot take as JSON-RPC asks (2.0, section
5.1): not JSON is a Parse error (-32700), JSON that is not a request, or an id that is not a string, an integer or
null, an Invalid Request (-32600), both with a null id; the client is never left waiting, the error never quotes the
line back, and the next request is answered as before. A blank line is no message and gets no reply."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from voiceassist.tools.mcp_errors import MESSAGES

PATIENT = "Zebulon Quartermaine 1961-04-17"
REPLY_WAIT_S = 120.0  # the first reply waits for the server's start (models loaded): generous on a slow machine


class StdioServer:
    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        return json.loads(self.lines.get(timeout=REPLY_WAIT_S))

    def ping(self, request_id: int) -> dict[str, Any]:
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}))
        return self.reply()


@pytest.fixture(scope="module")
def stdio_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioServer]:
    data = tmp_path_factory.mktemp("mcp-stdio") / "data"
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from voiceassist_local.cli import main; sys.exit(main())",
         "--data-dir", str(data), "mcp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    server = StdioServer(process)
    assert server.ping(1) == {"jsonrpc": "2.0", "id": 1, "result": {}}  # started
    yield server
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=60)


def test_a_line_that_is_not_json_is_a_parse_error_with_a_null_id(stdio_server: StdioServer) -> None:
    stdio_server.send(f"not json: {PATIENT}")

    error = stdio_server.reply()

    assert (error["id"], error["error"]["code"]) == (None, -32700)
    assert PATIENT not in json.dumps(error)
    assert stdio_server.ping(2)["id"] == 2  # still serving


@pytest.mark.parametrize("line", [
    '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}',  # the SDK took these two for notifications
    '{"jsonrpc": "2.0", "id": true, "method": "tools/list"}',
    '{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}',  # MCP's ids are strings or integers
    '{"jsonrpc": "2.0", "id": 3}',
    '[{"jsonrpc": "2.0", "id": 3, "method": "ping"}]',  # a batch: MCP has none since 2025-06-18
    '{"jsonrpc": "1.0", "id": 3, "method": "ping"}',  # not JSON-RPC 2.0 (over HTTP the SDK said -32602)
    '{"id": 3, "method": "ping"}',
    '7',
    f'{{"jsonrpc": "2.0", "id": 3, "method": 5, "params": {{"note": "{PATIENT}"}}}}',
])
def test_json_that_is_not_a_request_is_an_invalid_request_with_a_null_id(stdio_server: StdioServer,
                                                                         line: str) -> None:
    stdio_server.send(line)

    error = stdio_server.reply()

    assert (error["id"], error["error"]["code"]) == (None, -32600)
    assert PATIENT not in json.dumps(error)
    assert stdio_server.ping(4)["id"] == 4


def test_a_blank_line_gets_no_reply(stdio_server: StdioServer) -> None:
    stdio_server.send("   ")

    assert stdio_server.ping(5) == {"jsonrpc": "2.0", "id": 5, "result": {}}  # the next line is the ping's


def test_a_string_id_is_answered_with_that_id(stdio_server: StdioServer) -> None:
    stdio_server.send('{"jsonrpc": "2.0", "id": "req-6", "method": "ping"}')

    assert stdio_server.reply() == {"jsonrpc": "2.0", "id": "req-6", "result": {}}


@pytest.mark.parametrize(("line", "code"), [
    (f'{{"jsonrpc": "2.0", "id": 11, "method": "notes/{PATIENT}"}}', -32601),  # the data said the method back
    (f'{{"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {{"_meta": "{PATIENT}"}}}}', -32602),
])
def test_an_error_says_nothing_back_on_stdio_as_over_http(stdio_server: StdioServer, line: str, code: int) -> None:
    """Found by an MCP client probe: over stdio, 'Method not found' carried the method name (free text, a patient's
    name here) as its data; over HTTP every error has the specification's message, a hint and no data."""
    stdio_server.send(line)

    error = stdio_server.reply()

    assert (error["id"], error["error"]["code"]) == (11, code)
    assert "data" not in error["error"] and PATIENT not in json.dumps(error)
    assert error["error"]["message"] == MESSAGES[code]
    assert stdio_server.ping(12)["id"] == 12


def test_a_tool_call_with_its_arguments_as_a_json_string_is_told_which_member_on_stdio(
        stdio_server: StdioServer) -> None:
    stdio_server.send(json.dumps({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {
        "name": "calculate_medical_score", "arguments": json.dumps({"calculator": "bmi"})}}))

    error = stdio_server.reply()

    assert (error["id"], error["error"]["code"]) == (13, -32602)
    assert error["error"]["message"].startswith("Invalid params: params.arguments must be ")


def test_a_protocol_negotiation_error_keeps_the_versions_a_client_needs_to_connect() -> None:
    """The SDK's client re-probes with data.supported when its first probe timed out on a slow start (under load);
    an error without its data made test_mcp_over_stdio_serves_voiceassist_mcp fail once in a loaded run."""
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp_types import ErrorData, JSONRPCError

    from voiceassist.tools.mcp_stdio_lines import EchoFreeWrites

    sent: list[Any] = []

    class Inner:
        async def send(self, item: Any) -> None:
            sent.append(item)

    async def main() -> None:
        writes = EchoFreeWrites(Inner())
        for requested in ("2099-01-01", PATIENT):
            await writes.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=1, error=ErrorData(
                code=-32022, message=f"Unsupported protocol version {requested}",
                data={"supported": ["2025-06-18"], "requested": requested}))))
        await writes.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=2, error=ErrorData(
            code=-32601, message=f"Method not found: {PATIENT}", data=PATIENT))))

    anyio.run(main)
    kept, unshaped, other = (json.loads(m.message.model_dump_json(exclude_none=True))["error"] for m in sent)
    assert kept["data"] == {"supported": ["2025-06-18"], "requested": "2099-01-01"}
    assert unshaped["data"]["supported"] == ["2025-06-18"] and PATIENT not in json.dumps(unshaped)
    assert other == {"code": -32601, "message": MESSAGES[-32601]}
