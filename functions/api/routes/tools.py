"""Tools: list the definitions, invoke one through the executor (the same lifecycle and audit as the model's
tool loop), and confirm or cancel a pending action."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel, Field

from routes.errors import envelope
from routes.identity import caller, trace_id
from voiceassist.composition import dependencies
from voiceassist.models import ToolCall, ToolDefinition, ToolResult
from voiceassist.tools.executor import Caller

router = Router()


class Invocation(BaseModel):
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's parameters (its JSON Schema)")


def api_caller() -> Caller:
    """The signed-in user, with their Cognito groups as roles (routes.identity, the same as every route)."""
    who = caller(router)
    return Caller(user_id=who.user_id, roles=tuple(sorted(role.value for role in who.roles)), channel="api")


def reply(result: ToolResult) -> Response[Any]:
    """200 with the result, 202 with the pending action, or the refusal's status in the error envelope."""
    if result.ok:
        return Response(status_code=result.status, content_type="application/json",
                        body=result.model_dump(mode="json"))
    details = {"retry_after": result.retry_after} if result.retry_after is not None else None
    response = envelope(result.status, result.error or "tool_failed", result.content, trace_id(router), details)
    if result.retry_after is not None:
        response.headers["Retry-After"] = str(result.retry_after)
    return response


@router.get("/tools", summary="The tools a model, an API client or an MCP client may call (those the "
            "administrator has not turned off)")
def list_tools() -> list[ToolDefinition]:
    return dependencies().tool_executor.offered_definitions()


@router.post("/tools/<name>/invoke", summary="Run a tool: validated, authorized, PHI-checked, rate-limited, "
             "confirmed when it must be, timed out and audited", responses={200: {}, 202: {}})
def invoke_tool(name: str, body: Invocation) -> Response[Any]:
    return reply(dependencies().tool_executor.execute(ToolCall(name=name, arguments=body.arguments), api_caller()))


@router.post("/actions/<action_id>/confirm", summary="Run a pending action (410 once it has expired)")
def confirm_action(action_id: str) -> Response[Any]:
    return reply(dependencies().tool_executor.confirm(action_id, api_caller()))


@router.post("/actions/<action_id>/cancel", summary="Drop a pending action (410 once it has expired)")
def cancel_action(action_id: str) -> dict[str, str]:
    return {"cancelled": dependencies().tool_executor.cancel(action_id, api_caller())}
