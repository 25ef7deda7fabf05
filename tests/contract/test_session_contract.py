"""SessionStore contract: the same calls give the same results on SQLite and on DynamoDB."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from voiceassist.errors import Conflict, InvalidInput, NotFound
from voiceassist.models import Message, Session

if TYPE_CHECKING:
    from tests.contract.conftest import FakeClock, Stores


def make_session(clock: FakeClock, session_id: str = "ses_1", *, ttl: timedelta | None = timedelta(hours=1)
                 ) -> Session:
    return Session(session_id=session_id, user_id="dr-weiß",
                   clinical_context="Pädiatrie: 5-jähriges Kind, 発熱",
                   created_at=clock.now, expires_at=clock.now + ttl if ttl else None)


def add_messages(stores: Stores, clock: FakeClock, session_id: str, count: int) -> list[Message]:
    messages = [
        Message(session_id=session_id, message_id=f"msg_{n:03d}", role="user" if n % 2 == 0 else "assistant",
                content=f"Nachricht {n} — 問 {n}", created_at=clock.now + timedelta(seconds=n))
        for n in range(count)
    ]
    for message in messages:
        stores.sessions.add_message(message)
    return messages


def test_sessions_get_missing_raises_not_found(stores: Stores) -> None:
    with pytest.raises(NotFound):
        stores.sessions.get("ses_missing")


def test_sessions_create_then_get_returns_the_same_session(stores: Stores, clock: FakeClock) -> None:
    session = make_session(clock)

    stores.sessions.create(session)

    assert stores.sessions.get("ses_1") == session


def test_sessions_without_expiry_never_expire(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock, ttl=None))

    clock.advance(days=3650)

    assert stores.sessions.get("ses_1").expires_at is None


def test_sessions_duplicate_create_conflicts(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock))

    with pytest.raises(Conflict):
        stores.sessions.create(make_session(clock))


def test_sessions_expired_session_reads_as_not_found(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock, ttl=timedelta(minutes=30)))
    add_messages(stores, clock, "ses_1", 2)

    clock.advance(minutes=29)
    assert stores.sessions.get("ses_1").session_id == "ses_1"

    clock.advance(minutes=1)
    with pytest.raises(NotFound):
        stores.sessions.get("ses_1")
    with pytest.raises(NotFound):
        stores.sessions.messages("ses_1")
    with pytest.raises(NotFound):
        add_messages(stores, clock, "ses_1", 1)


def test_sessions_add_message_to_a_missing_session_raises_not_found(stores: Stores, clock: FakeClock) -> None:
    with pytest.raises(NotFound):
        add_messages(stores, clock, "ses_missing", 1)


def test_sessions_messages_are_the_most_recent_oldest_first(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock))
    sent = add_messages(stores, clock, "ses_1", 7)

    assert stores.sessions.messages("ses_1", limit=3) == sent[4:]
    assert stores.sessions.messages("ses_1") == sent


def test_sessions_messages_keep_order_within_a_second(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock))
    whole = Message(session_id="ses_1", message_id="msg_b", role="user", content="first",
                    created_at=clock.now)
    later = Message(session_id="ses_1", message_id="msg_a", role="assistant", content="second",
                    created_at=clock.now + timedelta(microseconds=1))
    stores.sessions.add_message(later)
    stores.sessions.add_message(whole)

    assert [m.content for m in stores.sessions.messages("ses_1")] == ["first", "second"]


def test_sessions_messages_belong_to_their_own_session(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock, "ses_1"))
    stores.sessions.create(make_session(clock, "ses_2"))
    add_messages(stores, clock, "ses_1", 2)

    assert stores.sessions.messages("ses_2") == []


def test_sessions_storing_the_same_message_twice_conflicts(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock))
    [message] = add_messages(stores, clock, "ses_1", 1)

    with pytest.raises(Conflict):
        stores.sessions.add_message(message)


def test_sessions_messages_reject_a_limit_below_one(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock))

    with pytest.raises(InvalidInput):
        stores.sessions.messages("ses_1", limit=0)


def test_sessions_delete_removes_the_session_and_every_message(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(make_session(clock, "ses_1"))
    stores.sessions.create(make_session(clock, "ses_2"))
    add_messages(stores, clock, "ses_1", 30)  # more than one DynamoDB batch of 25
    kept = add_messages(stores, clock, "ses_2", 2)

    stores.sessions.delete("ses_1")

    with pytest.raises(NotFound):
        stores.sessions.get("ses_1")
    stores.sessions.create(make_session(clock, "ses_1"))  # the same id again starts empty
    assert stores.sessions.messages("ses_1", limit=100) == []
    assert stores.sessions.messages("ses_2") == kept


def test_sessions_delete_of_a_missing_session_is_a_no_op(stores: Stores) -> None:
    stores.sessions.delete("ses_missing")

    with pytest.raises(NotFound):
        stores.sessions.get("ses_missing")


# ---- DynamoDB key design: one item per message, every item swept by TTL -----------------------------


def test_dynamodb_sessions_store_one_item_per_message_with_the_session_ttl(
    dynamodb_stores: Stores, dynamodb_client: Any, table_names: dict[str, str], clock: FakeClock
) -> None:
    session = make_session(clock)
    dynamodb_stores.sessions.create(session)
    add_messages(dynamodb_stores, clock, "ses_1", 3)

    items = dynamodb_client.query(
        TableName=table_names["sessions"], KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "SESSION#ses_1"}},
    )["Items"]

    assert [item["sk"]["S"].split("#")[0] for item in items] == ["META", "MSG", "MSG", "MSG"]
    expiry = str(int((clock.now + timedelta(hours=1)).timestamp()))
    assert [item["expires_at_epoch"]["N"] for item in items] == [expiry] * 4
