"""AuditLog contract: the same calls give the same results on SQLite and on DynamoDB."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from voiceassist.audit_chain import CHAIN_FIELDS, GENESIS, digest, verify
from voiceassist.errors import Conflict, InvalidInput, NotFound
from voiceassist.models import AuditOutcome, AuditRecord

if TYPE_CHECKING:
    from tests.contract.conftest import Stores

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def make_record(audit_id: str, *, user_id: str = "dr-okafor", at: datetime = T0) -> AuditRecord:
    return AuditRecord(
        audit_id=audit_id,
        user_id=user_id,
        session_id="ses_1",
        query_redacted="Dosierung von Amoxicillin für <PERSON>, 4 Jahre? 剂量",
        query_sha256="9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        phi_detected=True,
        phi_entity_types=["PERSON"],
        intent="drug_info",
        model="llama-3.1-8b",
        sources=["knowledge_base", "pubmed"],
        outcome=AuditOutcome.ANSWERED,
        latency_ms={"detect_phi": 12.75, "retrieve": 180.125, "generate": 1432.0},
        created_at=at,
    )


def test_audit_get_missing_raises_not_found(stores: Stores) -> None:
    with pytest.raises(NotFound):
        stores.audit.get("aud_missing")


def test_audit_append_then_get_returns_the_same_record(stores: Stores) -> None:
    record = make_record("aud_1")

    stores.audit.append(record)

    stored = stores.audit.get("aud_1")
    assert stored.model_copy(update=dict.fromkeys(CHAIN_FIELDS)) == record
    assert stored.latency_ms["retrieve"] == pytest.approx(180.125)


def test_audit_append_is_append_only(stores: Stores) -> None:
    stores.audit.append(make_record("aud_1", user_id="first-user"))

    with pytest.raises(Conflict):
        stores.audit.append(make_record("aud_1", user_id="second-user"))

    assert stores.audit.get("aud_1").user_id == "first-user"


def test_audit_list_is_newest_first_across_users(stores: Stores) -> None:
    for minute, user in enumerate(["u1", "u2", "u1", "u3"]):
        stores.audit.append(make_record(f"aud_{minute}", user_id=user, at=T0 + timedelta(minutes=minute)))

    assert [r.audit_id for r in stores.audit.list()] == ["aud_3", "aud_2", "aud_1", "aud_0"]
    assert [r.audit_id for r in stores.audit.list(limit=2)] == ["aud_3", "aud_2"]


def test_audit_list_by_user_filters_newest_first(stores: Stores) -> None:
    for minute, user in enumerate(["u1", "u2", "u1", "u1"]):
        stores.audit.append(make_record(f"aud_{minute}", user_id=user, at=T0 + timedelta(minutes=minute)))

    assert [r.audit_id for r in stores.audit.list(user_id="u1")] == ["aud_3", "aud_2", "aud_0"]
    assert [r.audit_id for r in stores.audit.list(user_id="u1", limit=1)] == ["aud_3"]
    assert stores.audit.list(user_id="nobody") == []


def test_audit_list_orders_sub_second_records_by_time(stores: Stores) -> None:
    stores.audit.append(make_record("aud_whole", at=T0))
    stores.audit.append(make_record("aud_later", at=T0 + timedelta(microseconds=100_000)))

    assert [r.audit_id for r in stores.audit.list(user_id="dr-okafor")] == ["aud_later", "aud_whole"]
    assert [r.audit_id for r in stores.audit.list(user_id="dr-okafor", limit=1)] == ["aud_later"]


def test_audit_list_rejects_a_limit_below_one(stores: Stores) -> None:
    with pytest.raises(InvalidInput):
        stores.audit.list(limit=0)


def test_audit_records_form_a_hash_chain_per_user_that_verifies(stores: Stores) -> None:
    for minute, user in enumerate(["u1", "u2", "u1", "u1"]):
        stores.audit.append(make_record(f"aud_{minute}", user_id=user, at=T0 + timedelta(minutes=minute)))

    records, head = stores.audit.chain("u1")
    assert [(r.audit_id, r.sequence) for r in records] == [("aud_0", 1), ("aud_2", 2), ("aud_3", 3)]
    assert records[0].prev_hash == GENESIS and records[1].prev_hash == records[0].record_hash
    assert all(r.record_hash == digest(r) for r in records)
    assert head == (3, records[-1].record_hash)
    assert stores.audit.partitions() == ["u1", "u2"]
    report = verify(stores.audit)
    assert report.ok and (report.partitions, report.records) == (2, 4)


def test_audit_a_duplicate_id_does_not_advance_the_chain(stores: Stores) -> None:
    stores.audit.append(make_record("aud_1"))
    with pytest.raises(Conflict):
        stores.audit.append(make_record("aud_1"))
    stores.audit.append(make_record("aud_2"))

    assert [r.sequence for r in stores.audit.chain("dr-okafor")[0]] == [1, 2]
    assert verify(stores.audit).ok
