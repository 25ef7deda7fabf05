"""The audit anchor on AWS (moto): write-once objects in an Object Lock bucket catch what rewriting the DynamoDB
table and its heads together hides, as the local anchor file does for SQLite (test_audit_verify_cli.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.contract.conftest import TABLE_NAMES
from tests.contract.test_audit_contract import T0, make_record
from voiceassist.adapters.aws.dynamodb_audit import HEAD_PREFIX, DynamoDbAuditLog
from voiceassist.adapters.aws.dynamodb_tables import AUDIT
from voiceassist.adapters.aws.s3_audit_anchor import S3AuditAnchor, anchor_key
from voiceassist.audit_chain import verify

ANCHOR_BUCKET = "voiceassist-contract-audit-anchors"


@pytest.fixture
def s3(aws: None, boto_session: boto3.Session) -> Any:
    """The anchor bucket as the stack makes it: Object Lock on, a default retention on every new version."""
    client = boto_session.client("s3")
    client.create_bucket(Bucket=ANCHOR_BUCKET, ObjectLockEnabledForBucket=True)
    client.put_object_lock_configuration(Bucket=ANCHOR_BUCKET, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 1}}})
    return client


@pytest.fixture
def audit(dynamodb_client: Any, s3: Any) -> DynamoDbAuditLog:
    log = DynamoDbAuditLog(TABLE_NAMES[AUDIT], client=dynamodb_client, anchor=S3AuditAnchor(ANCHOR_BUCKET, client=s3))
    for n in range(4):
        log.append(make_record(f"aud_{n}", user_id="dr-okafor", at=T0 + timedelta(minutes=n)))
    log.append(make_record("aud_9", user_id="dr-lee", at=T0))
    return log


def _truncate(dynamodb_client: Any, audit_id: str, head: tuple[int, str]) -> None:
    """What someone who can write the table does: delete the last record and rewrite the head to match."""
    name = TABLE_NAMES[AUDIT]
    dynamodb_client.delete_item(TableName=name, Key={"audit_id": {"S": audit_id}})
    dynamodb_client.put_item(TableName=name, Item={"audit_id": {"S": HEAD_PREFIX + "dr-okafor"},
                                                   "chain_sequence": {"N": str(head[0])},
                                                   "chain_hash": {"S": head[1]}})


def test_audit_anchor_an_untouched_log_verifies_clean(audit: DynamoDbAuditLog) -> None:
    report = verify(audit)

    assert report.ok, report.breaks
    assert (report.partitions, report.records) == (2, 5)
    assert audit.anchors() == {"dr-okafor": (4, audit.get("aud_3").record_hash),
                               "dr-lee": (1, audit.get("aud_9").record_hash)}


def test_audit_anchor_catches_the_last_record_deleted_with_the_head_rewritten(
        audit: DynamoDbAuditLog, dynamodb_client: Any) -> None:
    _truncate(dynamodb_client, "aud_3", (3, str(audit.get("aud_2").record_hash)))

    unanchored = DynamoDbAuditLog(TABLE_NAMES[AUDIT], client=dynamodb_client)
    assert verify(unanchored).ok  # the table alone cannot tell: this is what the anchor is for
    report = verify(audit)
    assert [(b.partition, b.sequence) for b in report.breaks] == [("dr-okafor", 4)]
    assert "removed" in report.breaks[0].problem


def test_audit_anchor_objects_cannot_be_deleted_or_overwritten(audit: DynamoDbAuditLog, s3: Any) -> None:
    key = anchor_key("dr-okafor", 4)
    version = s3.head_object(Bucket=ANCHOR_BUCKET, Key=key)["VersionId"]

    with pytest.raises(ClientError):
        s3.delete_object(Bucket=ANCHOR_BUCKET, Key=key, VersionId=version)
    s3.delete_object(Bucket=ANCHOR_BUCKET, Key=key)  # only a delete marker: the locked version stays
    assert s3.get_object(Bucket=ANCHOR_BUCKET, Key=key, VersionId=version)["Body"].read()


def test_audit_anchor_that_cannot_be_written_keeps_the_record_and_verifies(
        dynamodb_client: Any, s3: Any, caplog: pytest.LogCaptureFixture) -> None:
    anchor = S3AuditAnchor(ANCHOR_BUCKET, client=s3)
    log = DynamoDbAuditLog(TABLE_NAMES[AUDIT], client=dynamodb_client, anchor=anchor)
    log.append(make_record("aud_0", user_id="dr-okafor", at=T0))
    anchor.bucket = "voiceassist-no-such-bucket"  # S3 refuses the anchor after the record committed

    log.append(make_record("aud_1", user_id="dr-okafor", at=T0 + timedelta(minutes=1)))

    assert log.get("aud_1").sequence == 2 and "audit anchor not written" in caplog.text
    anchor.bucket = ANCHOR_BUCKET
    assert verify(log).ok  # one record past its anchor: an append interrupted between commit and anchor
