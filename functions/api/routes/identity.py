"""Who is calling: the Cognito authorizer's subject (the local server supplies one for its single user)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from voiceassist.errors import VoiceAssistError


class Unauthorized(VoiceAssistError):
    status_code = 401
    code = "unauthorized"


def caller_id(router: Router) -> str:
    claims = (router.current_event.request_context.authorizer or {}).get("claims") or {}
    subject = claims.get("sub")
    if not subject:
        raise Unauthorized("no authenticated user: send a valid Cognito ID token in the Authorization header")
    return str(subject)


def trace_id(router: Router) -> str:
    return router.current_event.request_context.request_id or "local"
