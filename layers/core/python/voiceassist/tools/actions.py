"""Pending actions: a tool call that waits for the person's confirmation, kept in the shared state store.

`POST /v1/actions/{id}/confirm` runs it, `/cancel` drops it; after `expires_at` both get a 410. The record
stays readable for a day after its expiry so that a late confirmation is told "expired", not "unknown". The
compare-and-set of the store makes a double confirmation run the tool once.

The call (its arguments: a file name, an event's summary) and the action's summary are PHI at rest: they are
stored sealed by the field cipher with the action's id as the encryption context (a sealed value copied onto
another action does not open), beside the plain fields the checks need (owner, status, expiry). They are
opened only for the owner's confirmation or cancellation, after the ownership, status and expiry checks; a
record without a sealed call (planted in the clear, or written before sealing) runs nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from voiceassist.errors import Conflict, InvalidInput, NotFound, quoted_id
from voiceassist.models import PendingAction, ToolCall, new_id, utc_now
from voiceassist.ports import FieldCipher, KeyValueState
from voiceassist.tools.errors import ActionExpired

DEFAULT_EXPIRY = timedelta(minutes=10)
KEEP_AFTER_EXPIRY_S = 86_400
PENDING, CONFIRMED, CANCELLED = "pending", "confirmed", "cancelled"


@dataclass(frozen=True)
class StoredAction:
    action: PendingAction
    call: ToolCall
    user_id: str
    caller: dict[str, Any]  # the Caller's fields, so the confirmed call runs as the one who proposed it


class PendingActions:
    def __init__(self, state: KeyValueState, *, cipher: Callable[[], FieldCipher],
                 expiry: timedelta = DEFAULT_EXPIRY, clock: Any = utc_now) -> None:
        """`cipher` gives the field cipher when an action is first stored or opened (a function whose tools
        never need confirmation never builds it)."""
        self._state = state
        self._cipher = cipher
        self._expiry = expiry
        self._clock = clock

    def create(self, call: ToolCall, *, summary: str, user_id: str, caller: dict[str, Any]) -> PendingAction:
        action = PendingAction(action_id=new_id("act"), tool=call.name, summary=summary,
                               expires_at=self._clock() + self._expiry)
        plain = json.dumps({"action": action.model_dump(mode="json"), "call": call.model_dump(mode="json")})
        record = {"sealed": self._cipher().encrypt(plain, context=action.action_id),
                  "expires_at": action.expires_at.isoformat(), "user_id": user_id, "caller": caller,
                  "status": PENDING}
        self._state.put(_key(action.action_id), record, expected_version=0,
                        ttl_seconds=int(self._expiry.total_seconds()) + KEEP_AFTER_EXPIRY_S)
        return action

    def take(self, action_id: str, *, user_id: str, confirm: bool) -> StoredAction:
        """Mark the action confirmed or cancelled (once) and return it; NotFound for another user's action."""
        record, version = self._state.get(_key(action_id))
        if record is None or record["user_id"] != user_id:
            raise NotFound(f"no pending action {quoted_id(action_id)}")
        if record["status"] != PENDING:
            raise Conflict(f"action {action_id!r} was already {record['status']}")
        if "sealed" not in record or "expires_at" not in record:  # planted in the clear, or written before sealing
            raise InvalidInput(f"action {action_id!r} is not sealed; ask for it again")
        expires_at = datetime.fromisoformat(record["expires_at"])
        if _expired(expires_at, self._clock()):
            raise ActionExpired(f"action {action_id!r} expired at {expires_at.isoformat()}; ask for it again")
        opened = self._open(action_id, record)
        stored = StoredAction(action=PendingAction.model_validate(opened["action"]),
                              call=ToolCall.model_validate(opened["call"]), user_id=record["user_id"],
                              caller=record["caller"])
        record["status"] = CONFIRMED if confirm else CANCELLED
        self._state.put(_key(action_id), record, expected_version=version,
                        ttl_seconds=KEEP_AFTER_EXPIRY_S)  # a racing second confirmation gets a Conflict
        return stored

    def _open(self, action_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The sealed call and action (InvalidInput, or DependencyError from KMS, when they do not open for this
        action: moved or tampered)."""
        opened: dict[str, Any] = json.loads(self._cipher().decrypt(record["sealed"], context=action_id))
        return opened


def _key(action_id: str) -> str:
    return f"action:{action_id}"


def _expired(expires_at: datetime, now: datetime) -> bool:
    return now >= expires_at
