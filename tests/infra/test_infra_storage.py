"""Documents are encrypted, versioned, private and TLS-only; tables follow the shared design."""

from __future__ import annotations

import pytest
from conftest import Synthesized, resources

from voiceassist.adapters.aws.dynamodb_tables import TABLE_DESIGNS

ENVIRONMENTS = ("dev", "staging", "prod")


def _buckets(synthesized: Synthesized, env: str) -> dict[str, dict]:
    return resources(synthesized.main(env), "AWS::S3::Bucket")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_data_buckets_use_the_environment_kms_key_and_versioning(synthesized: Synthesized, env: str) -> None:
    # The web client's bucket holds its static files only (tests/infra/test_infra_web.py).
    data_buckets = {k: v for k, v in _buckets(synthesized, env).items()
                    if "AccessLogs" not in k and "WebFiles" not in k}
    assert len(data_buckets) == 4  # documents, model artefacts, audit anchors, voice (Transcribe's transient files)
    for props in data_buckets.values():
        rule = props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]
        assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms"
        assert "KMSMasterKeyID" in rule["ServerSideEncryptionByDefault"]
        assert props["VersioningConfiguration"] == {"Status": "Enabled"}
        assert props["LoggingConfiguration"]["DestinationBucketName"]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_bucket_blocks_public_access_and_refuses_plain_http(synthesized: Synthesized, env: str) -> None:
    buckets = _buckets(synthesized, env)
    for props in buckets.values():
        assert set(props["PublicAccessBlockConfiguration"].values()) == {True}
    policies = resources(synthesized.main(env), "AWS::S3::BucketPolicy").values()
    tls_denied = {
        policy["Bucket"]["Ref"]
        for policy in policies
        for statement in policy["PolicyDocument"]["Statement"]
        if statement["Effect"] == "Deny"
        and statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    }
    assert tls_denied == set(buckets)


def test_uploads_reach_eventbridge_without_a_notifications_lambda(synthesized: Synthesized) -> None:
    documents = next(v for k, v in _buckets(synthesized, "dev").items() if k.startswith("StorageDocuments"))
    assert documents["NotificationConfiguration"] == {
        "EventBridgeConfiguration": {"EventBridgeEnabled": True}
    }


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_tables_are_kms_encrypted_with_point_in_time_recovery(synthesized: Synthesized, env: str) -> None:
    tables = resources(synthesized.main(env), "AWS::DynamoDB::GlobalTable")
    assert len(tables) == len(TABLE_DESIGNS) + 1  # + the Powertools idempotency table
    for props in tables.values():
        assert props["SSESpecification"]["SSEType"] == "KMS"
        replica = props["Replicas"][0]
        assert replica["SSESpecification"]["KMSMasterKeyId"]
        assert replica["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
        assert replica["DeletionProtectionEnabled"] is (env == "prod")


def test_tables_match_the_shared_key_design(synthesized: Synthesized) -> None:
    tables = resources(synthesized.main("dev"), "AWS::DynamoDB::GlobalTable")
    by_id = {
        logical.removeprefix("Storage").split("Table")[0].lower(): props for logical, props in tables.items()
    }
    for logical, design in TABLE_DESIGNS.items():
        props = by_id[logical]
        keys = {k["AttributeName"]: k["KeyType"] for k in props["KeySchema"]}
        expected = {
            design.partition_key.name: "HASH",
            **({design.sort_key.name: "RANGE"} if design.sort_key else {}),
        }
        assert keys == expected
        assert {i["IndexName"] for i in props.get("GlobalSecondaryIndexes", [])} == {
            i.name for i in design.indexes
        }
        ttl = props.get("TimeToLiveSpecification", {}).get("AttributeName")
        assert ttl == design.ttl_attribute
    idempotency = by_id["idempotency"]
    assert idempotency["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]
    assert idempotency["TimeToLiveSpecification"]["AttributeName"] == "expiration"


def test_audit_anchors_are_write_once_where_the_environment_keeps_its_data(synthesized: Synthesized) -> None:
    template = synthesized.main("prod")
    anchors = next(v for k, v in _buckets(synthesized, "prod").items() if k.startswith("StorageAuditAnchors"))
    assert anchors["ObjectLockEnabled"] is True
    assert anchors["ObjectLockConfiguration"]["Rule"]["DefaultRetention"] == {"Mode": "COMPLIANCE", "Days": 2192}
    dev = next(v for k, v in _buckets(synthesized, "dev").items() if k.startswith("StorageAuditAnchors"))
    assert dev["ObjectLockEnabled"] is True and "Rule" not in dev.get("ObjectLockConfiguration", {})  # destroyable
    # the audit writers may add anchors, never delete them
    audit_writer = [s for p in resources(template, "AWS::IAM::Policy").values()
                    for s in p["PolicyDocument"]["Statement"]
                    if "s3:PutObject" in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])
                    and "AuditAnchors" in str(s["Resource"])]
    assert audit_writer and not any("Delete" in str(s["Action"]) for s in audit_writer)


def test_uploads_left_under_incoming_expire_a_day_after_their_move(synthesized: Synthesized) -> None:
    documents = next(v for k, v in _buckets(synthesized, "dev").items() if k.startswith("StorageDocuments"))
    rule = next(r for r in documents["LifecycleConfiguration"]["Rules"] if r.get("Prefix") == "incoming/")
    assert rule["NoncurrentVersionExpiration"] == {"NoncurrentDays": 1} and rule["ExpiredObjectDeleteMarker"]
