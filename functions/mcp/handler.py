"""MCP over streamable HTTP behind API Gateway (POST /v1/mcp, Cognito authorizer): one stateless request per
invocation, every tool call through the executor as the signed-in user. Wiring only."""

from __future__ import annotations

import base64
from typing import Any

from voiceassist.access import GROUPS_CLAIM, roles_from_groups
from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer
from voiceassist.tools.executor import Caller
from voiceassist.tools.mcp_server import handle_http


def caller_of(event: dict[str, Any]) -> Caller | None:
    """The signed-in user, with roles from their Cognito groups by the same rule as every REST route."""
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("claims") or {}
    if not claims.get("sub"):
        return None
    roles = roles_from_groups(claims.get(GROUPS_CLAIM))
    return Caller(user_id=str(claims["sub"]), roles=tuple(sorted(role.value for role in roles)), channel="mcp")


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # tool arguments and results: PHI
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    caller = caller_of(event)
    if caller is None:
        return {"statusCode": 401, "headers": {"content-type": "application/json"},
                "body": '{"error": {"code": "unauthorized", "message": "send a valid Cognito ID token"}}'}
    body = event.get("body") or ""
    raw = base64.b64decode(body) if event.get("isBase64Encoded") else body.encode("utf-8")
    headers = {name.lower(): value for name, value in (event.get("headers") or {}).items()}
    reply = handle_http(dependencies().tool_executor, caller, method=event.get("httpMethod", "POST"),
                        path=event.get("path") or "/v1/mcp", headers=headers, body=raw)
    return {"statusCode": reply.status, "headers": reply.headers, "body": reply.body.decode("utf-8"),
            "isBase64Encoded": False}
