"""`voiceassist audit verify` on the local store: a chain of real API actions verifies; an edited, removed or
forged record is reported at the first break, and the command exits 1."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.cli import main
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.composition import Dependencies

TEXT = json.dumps({"filename": "note.md", "text": "# Zorbafen\nZorbafen is dosed 37 mg twice daily."}).encode()


@pytest.fixture
def audited(local_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Four audit records from the API (two refusals, an upload, a delete) in the local store."""
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(local_deps.settings.data_dir))

    def call(method: str, path: str, body: bytes = b"", groups: str = "admin") -> dict[str, object]:
        headers = {"content-type": "application/json"} if body else {}
        reply = invoke("api", to_api_gateway_event(method, path, headers, body, groups=groups))
        return json.loads(reply["body"])

    call("POST", "/v1/documents", TEXT, groups="clinician")
    accepted = call("POST", "/v1/documents", TEXT)
    call("GET", "/v1/jobs", groups="clinician")
    call("DELETE", f"/v1/documents/{accepted['doc_id']}")
    return local_deps.settings.db_path


def verify_report(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["audit", "verify", "--json"])
    return code, json.loads(capsys.readouterr().out)


def tamper(db: Path, sql: str, *parameters: object) -> None:
    connection = sqlite3.connect(db)
    connection.execute("DROP TRIGGER IF EXISTS audit_no_update")
    connection.execute("DROP TRIGGER IF EXISTS audit_no_delete")
    connection.execute(sql, parameters)
    connection.commit()
    connection.close()


def test_the_chain_of_real_actions_verifies(audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = verify_report(capsys)
    assert code == 0 and report["ok"] is True and report["records"] == 4


def test_the_log_refuses_updates_and_deletes(audited: Path) -> None:
    connection = sqlite3.connect(audited)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        connection.execute("UPDATE audit SET user_id = 'someone-else'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        connection.execute("DELETE FROM audit")
    connection.close()


def test_an_edited_record_is_the_first_break(audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(audited, "UPDATE audit SET body = replace(body, '\"outcome\":\"denied\"', '\"outcome\":\"accepted\"') "
                    "WHERE body LIKE '%\"sequence\":1,%'")
    code, report = verify_report(capsys)
    assert code == 1
    [found] = report["breaks"]  # type: ignore[misc]
    assert found["sequence"] == 1 and "altered" in found["problem"]


def test_a_removed_record_and_a_removed_last_record_are_found(audited: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    tamper(audited, "DELETE FROM audit WHERE body LIKE '%\"sequence\":4,%'")
    code, report = verify_report(capsys)
    assert code == 1 and "removed" in report["breaks"][0]["problem"]  # type: ignore[index]
    tamper(audited, "DELETE FROM audit WHERE body LIKE '%\"sequence\":2,%'")
    code, report = verify_report(capsys)
    assert code == 1 and report["breaks"][0]["sequence"] == 3  # type: ignore[index]


def test_the_plain_report_names_the_break(audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(audited, "UPDATE audit SET body = replace(body, 'document.delete', 'document.upload')")
    assert main(["audit", "verify"]) == 1
    assert "BROKEN  partition local-user, sequence 4" in capsys.readouterr().out


# ---- corruption of any kind: a break naming the record, in text and JSON, never a traceback ----------------


def record_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as connection:
        return [key for (key,) in connection.execute("SELECT audit_id FROM audit ORDER BY rowid")]


@pytest.mark.parametrize(("edit", "problem"), [
    ("UPDATE audit SET body = CAST(x'7b22ff22' AS BLOB) WHERE audit_id = ?", "not valid JSON"),  # bytes
    ("UPDATE audit SET body = '{\"audit_id\": ' WHERE audit_id = ?", "not valid JSON"),  # JSON cut short
    ("UPDATE audit SET body = '[]' WHERE audit_id = ?", "not an audit record"),
    ("UPDATE audit SET created_at = '2020-01-01T00:00:00.000000+00:00' WHERE audit_id = ?", "created_at column"),
    ("UPDATE audit SET audit_id = 'aud_forged' WHERE audit_id = ?", "key does not match"),
])
def test_any_corruption_is_a_break_naming_the_record(audited: Path, capsys: pytest.CaptureFixture[str],
                                                     edit: str, problem: str) -> None:
    target = record_ids(audited)[1]
    tamper(audited, edit, target)
    code, report = verify_report(capsys)
    assert code == 1
    named = [b for b in report["breaks"] if problem in b["problem"]]  # type: ignore[union-attr, index]
    assert named and named[0]["audit_id"] in (target, "aud_forged"), report
    assert main(["audit", "verify"]) == 1
    text = capsys.readouterr().out
    assert "BROKEN  partition local-user" in text and problem in text and "Traceback" not in text


def test_rows_reinserted_in_another_order_still_verify_and_a_swapped_body_does_not(
        audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite3.connect(audited) as connection:
        rows = connection.execute("SELECT audit_id, user_id, created_at, body FROM audit ORDER BY rowid").fetchall()
    tamper(audited, "DELETE FROM audit")
    for row in reversed(rows):  # the same records, stored in reverse order
        tamper(audited, "INSERT INTO audit (audit_id, user_id, created_at, body) VALUES (?, ?, ?, ?)", *row)
    assert verify_report(capsys)[0] == 0
    tamper(audited, "UPDATE audit SET body = ? WHERE audit_id = ?", rows[2][3], rows[1][0])  # two with one body
    code, report = verify_report(capsys)
    assert code == 1 and any(b["audit_id"] == rows[1][0] for b in report["breaks"])  # type: ignore[union-attr, index]


def test_truncation_with_a_rewritten_head_is_found_by_the_anchor(audited: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite3.connect(audited) as connection:
        third = json.loads(connection.execute("SELECT body FROM audit ORDER BY rowid LIMIT 1 OFFSET 2").fetchone()[0])
    tamper(audited, "DELETE FROM audit WHERE body LIKE '%\"sequence\":4,%'")
    tamper(audited, "UPDATE audit_heads SET sequence = 3, hash = ?", third["record_hash"])  # the head agrees
    code, report = verify_report(capsys)
    assert code == 1
    [found] = report["breaks"]  # type: ignore[misc]
    assert "anchor names sequence 4" in found["problem"] and "removed" in found["problem"]


def test_a_missing_anchor_file_is_a_break(audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path(str(audited) + ".audit-anchor.json").unlink()
    code, report = verify_report(capsys)
    assert code == 1 and "no anchor" in report["breaks"][0]["problem"]  # type: ignore[index]


@pytest.fixture
def mocked_aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto's AWS in us-east-1, with test credentials and none of the machine's profile or endpoint."""
    from moto import mock_aws

    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        yield


@pytest.mark.usefixtures("mocked_aws")
def test_verify_aws_reads_the_dynamodb_table(capsys: pytest.CaptureFixture[str]) -> None:
    import boto3

    from tests.contract.test_audit_contract import make_record
    from voiceassist.adapters.aws.dynamodb_audit import DynamoDbAuditLog
    from voiceassist.adapters.aws.dynamodb_tables import AUDIT, create_tables

    client = boto3.client("dynamodb")
    create_tables(client, {AUDIT: "audit-test"})
    log = DynamoDbAuditLog("audit-test", client=client)
    for n in range(3):
        log.append(make_record(f"aud_{n}"))
    assert main(["audit", "verify", "--aws", "--table", "audit-test", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 3
    client.delete_item(TableName="audit-test", Key={"audit_id": {"S": "aud_1"}})
    assert main(["audit", "verify", "--aws", "--table", "audit-test"]) == 1
    assert "BROKEN  partition dr-okafor, sequence 3 (aud_2)" in capsys.readouterr().out


@pytest.mark.usefixtures("mocked_aws")
def test_verify_aws_with_the_anchor_bucket_finds_a_truncated_chain(capsys: pytest.CaptureFixture[str]) -> None:
    import boto3

    from tests.contract.test_audit_contract import make_record
    from voiceassist.adapters.aws.dynamodb_audit import HEAD_PREFIX, DynamoDbAuditLog
    from voiceassist.adapters.aws.dynamodb_tables import AUDIT, create_tables
    from voiceassist.adapters.aws.s3_audit_anchor import S3AuditAnchor

    client, s3 = boto3.client("dynamodb"), boto3.client("s3")
    create_tables(client, {AUDIT: "audit-test"})
    s3.create_bucket(Bucket="anchors", ObjectLockEnabledForBucket=True)
    log = DynamoDbAuditLog("audit-test", client=client, anchor=S3AuditAnchor("anchors", client=s3))
    for n in range(3):
        log.append(make_record(f"aud_{n}"))
    # the last record deleted and the head rewritten to match: the table alone verifies clean
    client.delete_item(TableName="audit-test", Key={"audit_id": {"S": "aud_2"}})
    client.put_item(TableName="audit-test", Item={"audit_id": {"S": HEAD_PREFIX + "dr-okafor"},
                                                  "chain_sequence": {"N": "2"},
                                                  "chain_hash": {"S": str(log.get("aud_1").record_hash)}})
    assert main(["audit", "verify", "--aws", "--table", "audit-test"]) == 0
    capsys.readouterr()
    assert main(["audit", "verify", "--aws", "--table", "audit-test", "--anchor-bucket", "anchors"]) == 1
    assert "anchor names sequence 3" in capsys.readouterr().out


def test_an_answer_is_anchored_without_waiting_for_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The anchor follows the table's own durability (WAL, synchronous NORMAL: no fsync per commit): an fsync per
    question was its slowest step on a shared disk (docs/benchmarks.md, Query pipeline)."""
    import os

    from voiceassist.adapters.local.sqlite_audit import SqliteAuditLog
    from voiceassist.models import AuditOutcome, AuditRecord

    flushed: list[int] = []
    monkeypatch.setattr(os, "fsync", flushed.append)
    log = SqliteAuditLog(tmp_path / "audit.db")
    log.append(AuditRecord(user_id="u1", query_redacted="metformin dose?", outcome=AuditOutcome.ANSWERED))
    log.append(AuditRecord(user_id="u1", query_redacted="and in renal failure?", outcome=AuditOutcome.ANSWERED))
    anchors = log.anchors()
    assert anchors is not None and anchors["u1"][0] == 2
    assert flushed == []
