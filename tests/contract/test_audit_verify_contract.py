"""`verify` over both audit stores reads every record as stored: a record altered in storage until it no longer
reads as a record is a break naming it (never an exception), and the rest of the chain is still checked."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from tests.contract.test_audit_contract import T0, make_record
from voiceassist.adapters.aws.dynamodb_audit import DynamoDbAuditLog
from voiceassist.audit_chain import verify

if TYPE_CHECKING:
    from tests.contract.conftest import Stores


def corrupt(stores: Stores, audit_id: str) -> None:
    """Change the stored `sequence` of one record to a word, the way a hand edit of the store would."""
    audit: Any = stores.audit
    if isinstance(audit, DynamoDbAuditLog):
        table = audit._table  # noqa: SLF001 - the test edits the store behind the adapter's back
        client = table.client()
        item = client.get_item(TableName=table.name, Key={"audit_id": {"S": audit_id}})["Item"]
        item["sequence"] = {"S": "three"}
        client.put_item(TableName=table.name, Item=item)
        return
    with sqlite3.connect(audit._db.path) as connection:  # noqa: SLF001
        connection.execute("DROP TRIGGER IF EXISTS audit_no_update")
        body = json.loads(connection.execute("SELECT body FROM audit WHERE audit_id = ?", (audit_id,)).fetchone()[0])
        body["sequence"] = "three"
        connection.execute("UPDATE audit SET body = ? WHERE audit_id = ?", (json.dumps(body), audit_id))


def test_verify_names_a_record_that_no_longer_reads_and_checks_the_rest(stores: Stores) -> None:
    for n, user in enumerate(["u1", "u1", "u1", "u2"]):
        stores.audit.append(make_record(f"aud_{n}", user_id=user, at=T0 + timedelta(minutes=n)))
    corrupt(stores, "aud_1")

    report = verify(stores.audit)
    assert not report.ok and (report.partitions, report.records) == (2, 4)
    unreadable = [b for b in report.breaks if b.audit_id == "aud_1"]
    assert unreadable and "not an audit record" in unreadable[0].problem and "sequence" in unreadable[0].problem
    assert "three" not in json.dumps([b.problem for b in report.breaks])  # the stored value is not echoed
    assert {b.partition for b in report.breaks} == {"u1"}  # u2's chain still verified, and holds


def _edit_body(stores: Stores, audit_id: str, edit: Any) -> None:
    """Change one stored record's body with `edit` (a function of its JSON dict), behind the adapter's back."""
    audit: Any = stores.audit
    if isinstance(audit, DynamoDbAuditLog):
        table = audit._table  # noqa: SLF001 - the test edits the store behind the adapter's back
        client = table.client()
        item = client.get_item(TableName=table.name, Key={"audit_id": {"S": audit_id}})["Item"]
        client.put_item(TableName=table.name, Item=edit(item))
        return
    with sqlite3.connect(audit._db.path) as connection:  # noqa: SLF001
        connection.execute("DROP TRIGGER IF EXISTS audit_no_update")
        body = json.loads(connection.execute("SELECT body FROM audit WHERE audit_id = ?", (audit_id,)).fetchone()[0])
        connection.execute("UPDATE audit SET body = ? WHERE audit_id = ?", (json.dumps(edit(body)), audit_id))


def test_verify_keeps_records_written_before_the_plan_fields_and_covers_the_plan_after(stores: Stores) -> None:
    older = make_record("aud_old", at=T0)  # written before AuditRecord had plan_action/plan_confidence
    newer = make_record("aud_new", at=T0 + timedelta(minutes=1)).model_copy(
        update={"plan_action": "answer", "plan_confidence": 0.82})
    stores.audit.append(older)
    stores.audit.append(newer)

    def as_older_writer(body: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in body.items() if k not in ("plan_action", "plan_confidence")}

    _edit_body(stores, "aud_old", as_older_writer)
    assert verify(stores.audit).ok  # the older record hashes as it did before the fields existed
    assert [r.plan_action for r in stores.audit.list(user_id=older.user_id)] in (["answer", None], [None, "answer"])

    def edited_plan(body: dict[str, Any]) -> dict[str, Any]:
        edited = dict(body)
        edited["plan_action"] = {"S": "clarify"} if isinstance(body.get("plan_action"), dict) else "clarify"
        return edited

    _edit_body(stores, "aud_new", edited_plan)
    report = verify(stores.audit)
    assert not report.ok and [b.audit_id for b in report.breaks] == ["aud_new"]  # the plan is under the hash
