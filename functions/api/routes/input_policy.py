"""One input policy for every route, applied as a global middleware before any route (or its validation) runs.

- A body on a JSON route must be JSON: a Content-Type other than application/json (or `+json`) is a 415.
  A body without a Content-Type is read as JSON (curl -d with -H content-type is the common form).
- JSON nested deeper than MAX_JSON_DEPTH is a 400 before anything parses it (Python's parser would hit its
  recursion limit at ~1,000 levels, which 2 KB of brackets reach).
- Routes that take raw bytes (uploads) are listed in RAW_BODY_ROUTES; their JSON form gets the same depth rule.

A route added by anyone (tools, conversation, uploads) gets this without doing anything.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from routes.route_methods import allowed_methods
from voiceassist.errors import InvalidInput, UnsupportedMediaType

MAX_JSON_DEPTH = 32
JSON_TYPES = ("application/json",)
# (method, resource) of the routes whose body may be anything (the upload's own bytes)
RAW_BODY_ROUTES = {("POST", "/v1/documents"), ("POST", "/v1/voice/transcribe"), ("POST", "/v1/voice/query")}
BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def content_type_of(headers: dict[str, str] | None) -> str:
    headers = headers or {}
    value = next((v for k, v in headers.items() if k.lower() == "content-type"), "") or ""
    return value.split(";", 1)[0].strip().lower()


def is_json_type(media_type: str) -> bool:
    return not media_type or media_type in JSON_TYPES or media_type.endswith("+json")


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when arrays and objects nest deeper than `limit` (brackets inside strings do not count).
    Linear and without recursion; a body with few brackets is answered by counting alone."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def decoded_body(raw: str | None, is_base64: bool) -> str:
    if not raw:
        return ""
    if not is_base64:
        return raw
    try:
        return base64.b64decode(raw).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidInput("the body is not valid UTF-8 JSON") from exc


def parse_json_object(text: str, *, shape: str) -> dict[str, Any]:
    """A JSON object from a body, with the depth rule; `shape` tells the caller what to send instead."""
    if json_depth_exceeds(text):
        raise InvalidInput(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels; send a flatter document")
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"the body is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise InvalidInput(f"send a JSON object: {shape}")
    return value


def _judge_body(event: Any, method: str, body: str) -> None:
    """Refuse a body the route cannot read: JSON nested too deep, or not JSON where only JSON is taken."""
    media_type = content_type_of(event.headers)
    raw_route = (method, event.resource or event.path) in RAW_BODY_ROUTES or (method, event.path) in RAW_BODY_ROUTES
    if is_json_type(media_type):
        text = decoded_body(body, event.is_base64_encoded)
        if json_depth_exceeds(text):
            raise InvalidInput(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels; "
                               "send a flatter document")
    elif not raw_route:
        raise UnsupportedMediaType(f"{event.path} takes JSON: send the body with Content-Type: application/json "
                                   f"(got {media_type})")


def enforce(app: APIGatewayRestResolver, next_middleware: Callable[..., Response[Any]]) -> Response[Any]:
    event = app.current_event
    method = (event.http_method or "").upper()
    body = event.body
    if method in BODY_METHODS and body:
        try:
            _judge_body(event, method, body)
        except (InvalidInput, UnsupportedMediaType):
            # a method the path's routes do not take is a 405 (routes/errors.py) whatever its body; the routes are
            # read only here, on a refusal, not on every request (reading them builds the OpenAPI schema: ~0.1 s)
            routed = allowed_methods(app, event.path)
            if not routed or method in routed:
                raise
    return next_middleware(app)


def register(app: APIGatewayRestResolver) -> None:
    app.use(middlewares=[enforce])
