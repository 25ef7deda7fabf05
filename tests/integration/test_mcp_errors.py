"""MCP over HTTP answers malformed JSON-RPC with JSON-RPC errors that say what was wrong without saying it back:
an id that is an object or an array is an Invalid Request (not a 202 with no body), and no error quotes the
request (a method name, a tool argument) or names pydantic's types."""

from __future__ import annotations

import json
from typing import Any

import pytest

from voiceassist.composition import Dependencies
from voiceassist.tools.executor import Caller
from voiceassist.tools.mcp_errors import MESSAGES, client_words, without_echo
from voiceassist.tools.mcp_server import handle_http

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
PATIENT = "Zebulon Quartermaine 1961-04-17"


def post(deps: Dependencies, message: Any) -> tuple[int, dict[str, Any]]:
    raw = message if isinstance(message, bytes) else json.dumps(message).encode()
    reply = handle_http(deps.tool_executor, Caller(user_id="dr-okafor", channel="mcp"), method="POST",
                        path="/v1/mcp", headers=HEADERS, body=raw)
    return reply.status, json.loads(reply.body)


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], True, 1.5, 2.0])  # MCP ids: a string or an integer
def test_an_id_that_is_not_a_string_or_number_is_an_invalid_request(local_deps: Dependencies, bad_id: Any) -> None:
    status, reply = post(local_deps, {"jsonrpc": "2.0", "id": bad_id, "method": "tools/list"})
    assert status == 400 and reply["id"] is None and reply["error"]["code"] == -32600


@pytest.mark.parametrize("message", [
    {"jsonrpc": "2.0", "id": 1, "method": f"notes/{PATIENT}"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": {"patient": PATIENT}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x", "arguments": PATIENT}},
    f"{{not json {PATIENT}".encode(),
])
def test_errors_never_echo_the_request_nor_pydantic(local_deps: Dependencies, message: Any) -> None:
    status, reply = post(local_deps, message)
    text = json.dumps(reply)
    assert "error" in reply and "data" not in reply["error"]
    assert "Quartermaine" not in text and "1961" not in text
    assert not any(word in text for word in ("pydantic", "ValidationError", "validation error", "Input should"))
    assert status in (200, 400)


def test_a_valid_request_still_lists_the_tools(local_deps: Dependencies) -> None:
    status, reply = post(local_deps, {"jsonrpc": "2.0", "id": "list-1", "method": "tools/list"})
    assert status == 200 and reply["id"] == "list-1" and reply["result"]["tools"]


def test_get_opens_no_stream_and_answers_at_once(local_deps: Dependencies) -> None:
    reply = handle_http(local_deps.tool_executor, Caller(user_id="dr-okafor", channel="mcp"), method="GET",
                        path="/v1/mcp", headers=HEADERS, body=b"{}")  # the SDK held this open for ever
    assert reply.status == 405 and json.loads(reply.body)["error"]["code"] == -32600


def test_delete_ends_no_session_and_says_so(local_deps: Dependencies) -> None:
    """A stateless server has no session to end (MCP lets it answer 405): it said 'Invalid Request: send a JSON-RPC
    2.0 request object', and the GET's 405 advertised DELETE as allowed."""
    caller = Caller(user_id="dr-okafor", channel="mcp")
    delete = handle_http(local_deps.tool_executor, caller, method="DELETE", path="/v1/mcp", headers=HEADERS, body=b"")
    get = handle_http(local_deps.tool_executor, caller, method="GET", path="/v1/mcp", headers=HEADERS, body=b"")

    assert delete.status == 405 and "no session to end" in json.loads(delete.body)["error"]["message"]
    assert delete.headers["allow"] == get.headers["allow"] == "POST"


def test_the_published_api_documents_every_method_the_mcp_path_answers(local_deps: Dependencies) -> None:
    from voiceassist_local.handlers import invoke
    from voiceassist_local.server import to_api_gateway_event

    spec = json.loads(invoke("api", to_api_gateway_event("GET", "/v1/openapi.json", {}, b""))["body"])
    assert set(spec["paths"]["/v1/mcp"]) == {"post", "get", "delete"}
    assert set(spec["paths"]["/v1/mcp"]["delete"]["responses"]) == {"405"}


@pytest.mark.parametrize(("headers", "status"), [({"content-type": "application/json"}, 406),
                                                 ({"content-type": "application/json", "accept": "text/html"}, 406)])
def test_a_request_without_the_transports_accept_header_is_told_which_to_send(
        local_deps: Dependencies, headers: dict[str, str], status: int) -> None:
    reply = handle_http(local_deps.tool_executor, Caller(user_id="dr-okafor", channel="mcp"), method="POST",
                        path="/v1/mcp", headers=headers, body=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}')
    error = json.loads(reply.body)["error"]
    assert reply.status == status and error["code"] == -32600
    assert "Accept: application/json, text/event-stream" in error["message"]


@pytest.mark.parametrize("body", [b"[" * 5000 + b"]" * 5000,
                                  b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": '
                                  + b'{"a": ' * 3000 + b"1" + b"}" * 3001], ids=["array", "object"])
def test_a_request_nested_too_deeply_is_a_parse_error_not_a_dropped_connection(local_deps: Dependencies,
                                                                              body: bytes) -> None:
    status, reply = post(local_deps, body)  # Python's json raised RecursionError: no reply at all
    assert status == 400 and reply["error"]["code"] == -32700


def test_a_batch_is_an_invalid_request_not_invalid_params(local_deps: Dependencies) -> None:
    # MCP dropped JSON-RPC batches in 2025-06-18; the SDK answered one with -32602, as if a parameter were wrong
    status, reply = post(local_deps, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert (status, reply["id"], reply["error"]["code"]) == (400, None, -32600)
    assert "one message" in reply["error"]["message"]


@pytest.mark.parametrize("message", [
    {"jsonrpc": "1.0", "id": 1, "method": "tools/list"},
    {"id": 1, "method": "tools/list"},
    {"jsonrpc": 2.0, "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 1},
    {"jsonrpc": "2.0", "id": 1, "method": 7},
    {"jsonrpc": "2.0", "id": 1, "method": None},
    {"jsonrpc": "2.0", "method": ["tools/list"]},
    1,
    "tools/list",
    None,
], ids=["jsonrpc-1.0", "no-jsonrpc", "jsonrpc-number", "no-method", "method-number", "method-null",
        "notification-method-array", "number", "string", "null"])
def test_a_message_that_is_not_a_json_rpc_2_request_is_an_invalid_request(local_deps: Dependencies,
                                                                         message: Any) -> None:
    """JSON-RPC 2.0, section 5.1: "The JSON sent is not a valid Request object" is -32600 (the SDK said -32602,
    Invalid params), with a null id when the request could not be read."""
    status, reply = post(local_deps, message)
    assert (status, reply["id"], reply["error"]["code"]) == (400, None, -32600)
    assert reply["error"]["message"].startswith("Invalid Request")


def test_an_invalid_request_never_quotes_it(local_deps: Dependencies) -> None:
    status, reply = post(local_deps, {"jsonrpc": PATIENT, "id": 1, "method": {"name": PATIENT}})
    assert reply["error"]["code"] == -32600 and "Quartermaine" not in json.dumps(reply)


def test_a_client_response_is_still_taken(local_deps: Dependencies) -> None:
    """A message without a method may be the client's response to a server request: not an Invalid Request."""
    raw = json.dumps({"jsonrpc": "2.0", "id": 5, "result": {}}).encode()
    reply = handle_http(local_deps.tool_executor, Caller(user_id="dr-okafor", channel="mcp"), method="POST",
                        path="/v1/mcp", headers=HEADERS, body=raw)
    assert reply.status == 202


@pytest.mark.parametrize("version", ["1999-01-01", PATIENT])
def test_the_sdks_own_invalid_params_message_is_kept_when_it_quotes_nothing_sent(local_deps: Dependencies,
                                                                                version: str) -> None:
    """A bad MCP-Protocol-Version header: the SDK says what to send ("params._meta must be an object carrying the
    required ... envelope keys"), in its own words only; it was replaced by the generic "Invalid params" (found by
    a client probe). The header's value is never said back."""
    reply = handle_http(local_deps.tool_executor, Caller(user_id="dr-okafor", channel="mcp"), method="POST",
                        path="/v1/mcp", headers={**HEADERS, "mcp-protocol-version": version},
                        body=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}')
    error = json.loads(reply.body)["error"]
    assert error["code"] == -32602 and error["message"].startswith("Invalid params: params._meta must be an object")
    assert "data" not in error and "Quartermaine" not in reply.body.decode() and "1999" not in reply.body.decode()


@pytest.mark.parametrize("message", [
    f"unknown tool {PATIENT}",  # a value sent, whole
    "unknown tool Quartermaine",  # or a word of it
    "1 validation error for CallToolRequest: Input should be a valid dictionary",  # pydantic's words
    "Invalid request parameters",  # the SDK's own generic words: the hint says more
])
def test_an_invalid_params_message_that_could_quote_the_request_is_replaced(message: str) -> None:
    sent = client_words({"mcp-protocol-version": "2025-06-18"}, json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": PATIENT}}).encode())
    reply = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": message, "data": PATIENT}})

    error = json.loads(without_echo(reply.encode(), sent))["error"]

    assert error == {"code": -32602, "message": MESSAGES[-32602]}


@pytest.mark.parametrize(("params", "field"), [
    ({"name": "calculate_medical_score", "arguments": '{"calculator": "bmi"}'}, "params.arguments"),  # JSON as text
    ({"name": "calculate_medical_score", "arguments": [PATIENT]}, "params.arguments"),
    ({"name": {"patient": PATIENT}}, "params.name"),
    ({"arguments": {}}, "params.name"),
    ([1, 2], "params"),
    (None, "params"),
])
def test_a_tool_call_with_malformed_params_is_told_which_member(local_deps: Dependencies, params: Any,
                                                                  field: str) -> None:
    """Found by an MCP client probe: every such call got only 'Invalid params: check the parameters against the
    method's (or the tool's) input schema', where a client sending its arguments as a JSON string (a common slip)
    needs to hear that params.arguments must be an object."""
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"} | ({} if params is None else {"params": params})
    status, reply = post(local_deps, message)
    assert status == 200 and reply["id"] == 7 and reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith(f"Invalid params: {field} must be ")
    assert "Quartermaine" not in json.dumps(reply) and "data" not in reply["error"]
