"""JSON-RPC errors of the MCP face that say what was wrong without saying it back.

- An `id` must be a string, an integer (MCP's RequestId) or null (JSON-RPC 2.0, section 4): the SDK reads a
  request with an object, array or float id as a notification and answers 202 with no body, so the client waits
  for ever. Such a request is an Invalid Request (-32600) with a null id, as the specification asks when the id
  cannot be read.
- A batch (a JSON array) is an Invalid Request: MCP dropped batches in 2025-06-18, and the SDK answered one with
  Invalid params (-32602), as if a parameter were wrong.
- A message that is not a JSON-RPC 2.0 Request object (section 4: an object with "jsonrpc": "2.0" and a string
  method; MCP's client responses, with a result or an error and no method, are taken too) is an Invalid Request
  (-32600, section 5.1) with a null id: the SDK answered `"jsonrpc": "1.0"` or a number for a method with
  Invalid params (-32602). The reply says which member is wrong, never its value.
- GET opens a server-initiated stream, which a stateless server (one request per Lambda invocation) does not
  have: the SDK would hold the request open for ever; it is a 405 (the MCP transport's answer for "no stream").
- An error's message and data come from the SDK and can quote the request (a method name, a tool argument) or
  name pydantic's types; a tool's arguments and a method name can hold PHI. Every error leaves with the
  specification's message for its code and a hint, and no data; but an Invalid params (-32602) keeps the SDK's
  own message when it says something (not only "Invalid request parameters") and quotes nothing the client sent:
  no value of its body or headers, no word of one (of three characters or more, or with a digit), no key
  not shaped like a field's name (errors.field_path's rule), and no pydantic wording. A bad MCP-Protocol-Version
  header is told "params._meta must be an object carrying the required ... envelope keys", not only to check
  the schema. A tools/call whose params, name or arguments have the wrong shape is told which member, as
  'params.arguments must be an object' (a client sending its arguments as a JSON string heard only the hint).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from voiceassist.errors import UNSHOWN_FIELD, field_path

INVALID_ID_REPLY = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32600, "message": "Invalid Request: the id must be a string, an integer or null"}}).encode()
TRANSPORT = ("Invalid Request: POST a JSON-RPC message with Content-Type: application/json and Accept: "
             "application/json, text/event-stream")
BATCH_REPLY = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32600, "message": "Invalid Request: MCP has no batches: send one message per request"}}).encode()
NO_STREAM_REPLY = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32600, "message": "this MCP server is stateless: it opens no stream (GET); POST each message"}}).encode()
NO_SESSION_REPLY = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32600, "message": "this MCP server is stateless: there is no session to end (DELETE); POST each "
                               "message"}}).encode()
MESSAGES = {
    -32700: "Parse error: the body is not JSON",
    -32600: "Invalid Request: send a JSON-RPC 2.0 request object",
    -32601: "Method not found: see tools/list and the MCP specification's methods",
    -32602: "Invalid params: check the parameters against the method's (or the tool's) input schema",
    -32603: "Internal error",
}


def refused_request(body: bytes) -> bytes | None:
    """The reply to a batch (MCP has had none since 2025-06-18), to a message that is not a JSON-RPC 2.0 request
    object, or to a request with an id that is not a string, an integer or null, the body parsed once; None for
    any other body."""
    parsed = _parsed(body)
    if parsed is None:
        return None
    if isinstance(parsed[0], list):
        return BATCH_REPLY
    if (problem := request_problem(parsed[0])) is not None:
        return json.dumps({"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": f"Invalid Request: {problem}"}}).encode()
    return INVALID_ID_REPLY if _any_invalid_id(parsed[1]) else None


def invalid_tool_call(body: bytes) -> bytes | None:
    """The Invalid params (-32602) reply to a tools/call whose params are not an object with a string `name` and an
    object `arguments` (when given), naming the member, never its value; None for any other body. The SDK said only
    to check the schema, where a client that sent its arguments as a JSON string needs to hear which member."""
    parsed = _parsed(body)
    message = parsed[0] if parsed is not None else None
    if not isinstance(message, dict) or message.get("method") != "tools/call" or not _valid_id(message.get("id")):
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        problem = "params must be an object with the tool's name and its arguments"
    elif not isinstance(params.get("name"), str):
        problem = "params.name must be a string: a tool's name from tools/list"
    elif "arguments" in params and params["arguments"] is not None and not isinstance(params["arguments"], dict):
        problem = "params.arguments must be an object (the tool's input, not a JSON string)"
    else:
        return None
    return json.dumps({"jsonrpc": "2.0", "id": message.get("id"),
                       "error": {"code": -32602, "message": f"Invalid params: {problem}"}}).encode()


def request_problem(message: Any) -> str | None:
    """What keeps `message` from being a JSON-RPC 2.0 request, notification or response (None: nothing), named by
    member, never quoting its value."""
    if not isinstance(message, dict):
        return "send a JSON-RPC 2.0 request object"
    if message.get("jsonrpc") != "2.0":
        return 'jsonrpc must be the string "2.0"'
    if "method" in message:
        return None if isinstance(message["method"], str) else "method must be a string"
    if "id" in message and ("result" in message or "error" in message):  # the client's answer to a server request
        return None
    return "a request needs a method (a string)"


def has_invalid_id(body: bytes) -> bool:
    """Whether the body is a JSON-RPC request (or batch) with an id that is not a string, an integer or null."""
    parsed = _parsed(body)
    return parsed is not None and _any_invalid_id(parsed[1])


def _any_invalid_id(messages: list[Any]) -> bool:
    return any(isinstance(m, dict) and "id" in m and not _valid_id(m["id"]) for m in messages)


def _parsed(body: bytes) -> tuple[Any, list[Any]] | None:
    """The body's JSON and its messages (a batch's items, or the one message); None when it is not JSON."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):  # nested past Python's recursion limit: the SDK's parse error says so
        return None
    return value, value if isinstance(value, list) else [value]


def _valid_id(value: Any) -> bool:
    """MCP's ids are strings or integers (its schema's RequestId); the SDK reads a request with a float id (even
    2.0), like one with an object id, as a notification, which is never answered."""
    return value is None or (isinstance(value, str | int) and not isinstance(value, bool))


# The SDK's words for an Invalid params that says nothing more, and pydantic's, which name its types
_SAYS_NOTHING = frozenset({"invalid request parameters", "invalid params"})
_PYDANTIC = re.compile(r"(?i)pydantic|validation error|input should|type=|errors\.pydantic")
_WORD = re.compile(r"\w+")
MAX_SDK_MESSAGE = 300


@dataclass(frozen=True)
class Sent:
    """What the client sent that a message must not quote, lower-cased: whole values, and their words."""

    values: frozenset[str]
    words: frozenset[str]


def client_words(headers: Mapping[str, str], body: bytes) -> Sent:
    """Each header's value and each value (and key not shaped like a field's name) of the body, whole and word by
    word (words of three characters or more, or with a digit). A body that is not JSON counts whole."""
    values: list[str] = [str(v) for v in headers.values()]
    parsed = _parsed(body)
    if parsed is None:
        values.append(body.decode("utf-8", "replace"))
    else:
        _collect(parsed[0], values)
    return Sent(values=frozenset(value.lower() for value in values if value.strip()),
                words=frozenset(word.lower() for value in values for word in _WORD.findall(value)
                                if len(word) >= 3 or any(c.isdigit() for c in word)))


def _collect(value: Any, into: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if field_path([str(key)]) in (UNSHOWN_FIELD, ""):
                into.append(str(key))
            _collect(item, into)
    elif isinstance(value, list):
        for item in value:
            _collect(item, into)
    elif value is not None:
        into.append(str(value))


def _sdk_message_kept(message: Any, sent: Sent | None) -> str | None:
    """The SDK's Invalid params message, when it says something and quotes nothing sent (see the module's notes)."""
    if sent is None or not isinstance(message, str) or len(message) > MAX_SDK_MESSAGE or not message.isprintable():
        return None
    lowered = message.lower().strip()
    if not lowered or lowered.rstrip(".") in _SAYS_NOTHING or _PYDANTIC.search(message):
        return None
    words = {word.lower() for word in _WORD.findall(message)}
    if words & sent.words or words & sent.values or any(value in lowered for value in sent.values if len(value) >= 3):
        return None
    return message.strip()


def as_json_rpc(status: int, headers: dict[str, str], body: bytes, sent: Sent | None = None) -> bytes:
    """The reply's body as JSON: the SDK's refusals of the transport (a missing or wrong Content-Type or Accept
    header, in plain text or as a JSON-RPC error) become JSON-RPC errors saying which headers to send; other JSON
    errors lose any echo."""
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    # 406 (Accept) and 415 (Content-Type) refuse the transport, whatever the SDK's body says: say which headers
    if status in (406, 415) or (status >= 400 and not content_type.startswith("application/json")):
        return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": TRANSPORT}}).encode()
    return without_echo(body, sent)


def without_echo(body: bytes, sent: Sent | None = None) -> bytes:
    """The reply with each JSON-RPC error's message replaced by the specification's and its data dropped; an
    Invalid params keeps the SDK's message when it quotes none of `sent` (client_words of the request)."""
    parsed = _parsed(body)
    if parsed is None:
        return body
    reply, replies = parsed
    changed = False
    for item in replies:
        error = item.get("error") if isinstance(item, dict) else None
        if isinstance(error, dict):
            code = error.get("code")
            kept = _sdk_message_kept(error.get("message"), sent) if code == -32602 else None
            if kept is not None:
                error["message"] = f"Invalid params: {kept}"
            else:
                error["message"] = MESSAGES.get(code, "Server error") if isinstance(code, int) else "Server error"
            error.pop("data", None)
            changed = True
    return json.dumps(reply).encode() if changed else body
