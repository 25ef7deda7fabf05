"""Who is calling: the Cognito authorizer's subject and groups (the local server supplies them for its user)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from voiceassist.access import GROUPS_CLAIM, Caller, record_action, require_admin, roles_from_groups
from voiceassist.composition import dependencies
from voiceassist.errors import VoiceAssistError
from voiceassist.models import AuditOutcome


class Unauthorized(VoiceAssistError):
    status_code = 401
    code = "unauthorized"


def _claims(router: Router) -> dict[str, object]:
    return (router.current_event.request_context.authorizer or {}).get("claims") or {}


def caller_id(router: Router) -> str:
    subject = _claims(router).get("sub")
    if not subject:
        raise Unauthorized("no authenticated user: send a valid Cognito ID token in the Authorization header")
    return str(subject)


def caller(router: Router) -> Caller:
    return Caller(user_id=caller_id(router), roles=roles_from_groups(_claims(router).get(GROUPS_CLAIM)))


def admin(router: Router, action: str, target: str | None = None) -> Caller:
    """The caller, if an admin; otherwise a 403 (and an audit record of the refusal)."""
    who = caller(router)
    require_admin(dependencies().audit, who, action, target)
    return who


def audit_accepted(who: Caller, action: str, target: str | None) -> None:
    record_action(dependencies().audit, who, action, target, AuditOutcome.ACCEPTED)


def trace_id(router: Router) -> str:
    return router.current_event.request_context.request_id or "local"
