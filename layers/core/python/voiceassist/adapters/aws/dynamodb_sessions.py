"""SessionStore on DynamoDB: a META item per session and one item per message under the same partition.

A whole session in one item would hit DynamoDB's 400 KB item limit; one item per message never does.
Message items carry the session's TTL so the sweeper removes them with it, and a session past its
expiry reads as missing even before the sweeper (which can lag by days) deletes it. With a FieldCipher (the
composition root always gives one) the clinical context is stored encrypted under a KMS data key.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from voiceassist.adapters.aws.dynamodb_tables import (
    CONDITION_FAILED,
    MESSAGE_SK_PREFIX,
    SESSION_META_SK,
    SESSION_PK_PREFIX,
    DynamoTable,
    as_utc,
    check_limit,
    epoch_seconds,
    error_code,
    from_item,
    timestamp_key,
    to_item,
)
from voiceassist.adapters.aws.envelope_cipher import open_field, seal_field
from voiceassist.errors import Conflict, NotFound, quoted_id
from voiceassist.models import Message, Session, utc_now

if TYPE_CHECKING:
    from voiceassist.ports import FieldCipher

_CONTEXT = "clinical_context"
_TTL_ATTRIBUTE = "expires_at_epoch"
_STORAGE_ATTRIBUTES = ("pk", "sk", _TTL_ATTRIBUTE)  # on the items, not in the models


def _session_pk(session_id: str) -> str:
    return f"{SESSION_PK_PREFIX}{session_id}"


def _message_sk(message: Message) -> str:
    return f"{MESSAGE_SK_PREFIX}{timestamp_key(message.created_at)}#{message.message_id}"


def _model_fields(item: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in from_item(item).items() if name not in _STORAGE_ATTRIBUTES}


class DynamoDbSessionStore:
    def __init__(self, table_name: str, *, client: Any = None, region_name: str | None = None,
                 clock: Callable[[], datetime] = utc_now, cipher: FieldCipher | None = None) -> None:
        self._table = DynamoTable(table_name, client=client, region_name=region_name)
        self._clock = clock
        self._cipher = cipher  # a FieldCipher; None stores the context as given (tests of other concerns)

    def create(self, session: Session) -> None:
        item = to_item(seal_field(self._cipher, session.model_dump(mode="json"), _CONTEXT, session.session_id))
        item.update(pk=_session_pk(session.session_id), sk=SESSION_META_SK,
                    created_at=timestamp_key(session.created_at))  # the by_user sort key must sort as time
        if session.expires_at is not None:
            item[_TTL_ATTRIBUTE] = epoch_seconds(session.expires_at)
        self._put_new(item, f"session {session.session_id!r} already exists")

    def get(self, session_id: str) -> Session:
        return self._live(session_id, open_context=True)

    def _live(self, session_id: str, *, open_context: bool) -> Session:
        """The session, unless missing or expired; without open_context its clinical context stays sealed (None):
        no KMS call and no cryptography, for the readers of messages only (constants/functions.py)."""
        item = self._table.get({"pk": _session_pk(session_id), "sk": SESSION_META_SK})
        fields = _model_fields(item) if item else None
        if fields is not None and not open_context:
            fields[_CONTEXT] = None
        session = Session.model_validate(
            open_field(self._cipher, fields, _CONTEXT, session_id)) if fields is not None else None
        if session is None or self._expired(session):
            raise NotFound(f"session {quoted_id(session_id)} does not exist or has expired")
        return session

    def delete(self, session_id: str) -> None:
        keys = self._table.query(
            key_condition="pk = :pk",
            names={},
            values={":pk": _session_pk(session_id)},
            consistent=True,
            projection="pk, sk",
        )
        self._table.batch_delete(keys)

    def add_message(self, message: Message) -> None:
        """Raises NotFound unless the session exists and has not expired."""
        session = self.get(message.session_id)
        item = to_item(message.model_dump(mode="json"))
        item.update(pk=_session_pk(message.session_id), sk=_message_sk(message))
        if session.expires_at is not None:
            item[_TTL_ATTRIBUTE] = epoch_seconds(session.expires_at)
        self._put_new(item, f"message {message.message_id!r} is already stored")

    def messages(self, session_id: str, *, limit: int = 20) -> list[Message]:
        check_limit(limit)
        self._live(session_id, open_context=False)  # the messages are redacted, never encrypted
        newest_first = self._table.query(
            key_condition="pk = :pk AND begins_with(sk, :messages)",
            names={},
            values={":pk": _session_pk(session_id), ":messages": MESSAGE_SK_PREFIX},
            newest_first=True,
            consistent=True,
            limit=limit,
        )
        return [Message.model_validate(_model_fields(item)) for item in reversed(list(newest_first))]

    def _put_new(self, item: dict[str, Any], conflict: str) -> None:
        try:
            self._table.put(item, condition="attribute_not_exists(pk)")
        except ClientError as exc:
            if error_code(exc) == CONDITION_FAILED:
                raise Conflict(conflict) from exc
            raise

    def _expired(self, session: Session) -> bool:
        return session.expires_at is not None and as_utc(session.expires_at) <= as_utc(self._clock())
