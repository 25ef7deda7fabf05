"""Roles and the audit of administrative actions.

Roles come from the caller's Cognito groups (`cognito:groups` in the ID token's claims): `admin` may change the
knowledge base (upload, delete, retry) and see the ingestion jobs; `clinician` asks questions and reads the
document catalogue. A signed-in user in no known group is a clinician: anyone the user pool admits may ask.
Every administrative action, and every refusal, leaves an audit record.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from voiceassist.errors import Forbidden
from voiceassist.models import AuditOutcome, AuditRecord
from voiceassist.ports import AuditLog


class Role(StrEnum):
    CLINICIAN = "clinician"
    ADMIN = "admin"


GROUPS_CLAIM = "cognito:groups"


@dataclass(frozen=True)
class Caller:
    user_id: str
    roles: frozenset[Role]

    @property
    def is_admin(self) -> bool:
        return Role.ADMIN in self.roles


def roles_from_groups(groups: Any) -> frozenset[Role]:
    """Cognito groups as API Gateway passes them ("admin,clinician", "[admin clinician]", or a list)."""
    if isinstance(groups, str):
        names: Iterable[Any] = groups.strip("[]").replace(",", " ").split()
    elif isinstance(groups, list | tuple):
        names = groups
    else:
        names = ()
    known = {role.value: role for role in Role}
    roles = frozenset(known[str(name).strip().lower()] for name in names if str(name).strip().lower() in known)
    return roles or frozenset({Role.CLINICIAN})


def record_action(audit: AuditLog, caller: Caller, action: str, target: str | None, outcome: AuditOutcome
                  ) -> None:
    audit.append(AuditRecord(user_id=caller.user_id, action=action, target=target, outcome=outcome,
                             roles=sorted(caller.roles)))


def require_admin(audit: AuditLog, caller: Caller, action: str, target: str | None = None) -> None:
    """Let an admin through; refuse anyone else with a 403, after recording the refusal."""
    if caller.is_admin:
        return
    record_action(audit, caller, action, target, AuditOutcome.DENIED)
    raise Forbidden(f"{action} needs the admin role; you are signed in as "
                    f"{', '.join(sorted(caller.roles))}. Ask an administrator")
