"""`make destroy` leaves nothing in dev and staging (issue 26): CloudFormation deletes a bucket only when it is
empty, so every bucket is emptied by the stack (its auto-delete custom resource removes every version) and
every log group goes with it (the Object Lock audit-anchor bucket too: without a default retention there, every
version can be deleted); whatever writes into a bucket (a bucket's server access logs, a deployment's
files) is deleted before that bucket is emptied. prod keeps its data (infra/ops/lifecycle.py RETAINED)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Synthesized, resources

AUTO_DELETE = "Custom::S3AutoDeleteObjects"


def _references(value: Any) -> set[str]:
    if isinstance(value, dict):
        if "Ref" in value and isinstance(value["Ref"], str):
            return {value["Ref"]}
        if "Fn::GetAtt" in value:
            return {value["Fn::GetAtt"][0]}
        return set().union(*(_references(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_references(v) for v in value)) if value else set()
    return set()


def _dependencies(template: dict[str, Any]) -> dict[str, set[str]]:
    """Every resource -> all it depends on (DependsOn, Ref, GetAtt), transitively: it is deleted before them."""
    direct = {}
    for logical_id, resource in template["Resources"].items():
        depends = resource.get("DependsOn", [])
        direct[logical_id] = ({depends} if isinstance(depends, str) else set(depends)) | (
            _references(resource.get("Properties", {})) & template["Resources"].keys())
    closed: dict[str, set[str]] = {}

    def visit(node: str) -> set[str]:
        if node not in closed:
            closed[node] = set()
            closed[node] = set().union(*({d} | visit(d) for d in direct[node])) if direct[node] else set()
        return closed[node]

    for logical_id in direct:
        visit(logical_id)
    return closed


def _erasers(template: dict[str, Any]) -> dict[str, str]:
    """Bucket logical id -> its auto-delete custom resource."""
    return {p["BucketName"]["Ref"]: k for k, p in resources(template, AUTO_DELETE).items()}


@pytest.mark.parametrize("env", ["dev", "staging"])
def test_destroy_every_bucket_and_log_group_goes_with_the_stack(synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    buckets = {k for k, r in template["Resources"].items() if r["Type"] == "AWS::S3::Bucket"}
    assert buckets and all(template["Resources"][b].get("DeletionPolicy") == "Delete" for b in buckets)
    assert set(_erasers(template)) == buckets, "a bucket nobody empties fails the delete (BucketNotEmpty)"
    # The audit anchors are under Object Lock: the eraser deletes every version, which S3 refuses for a version
    # under retention, so a disposable environment's locked bucket has no default retention.
    locked = {k: p for k, p in resources(template, "AWS::S3::Bucket").items() if p.get("ObjectLockEnabled")}
    assert [k for k in locked if k.startswith("StorageAuditAnchors")], "the audit-anchor bucket"
    retained = [k for k, p in locked.items() if "Rule" in p.get("ObjectLockConfiguration", {})]
    assert not retained, f"{retained}: a locked version cannot be deleted, so the bucket cannot be emptied"
    groups = {k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::Logs::LogGroup"}
    assert groups and all(r.get("DeletionPolicy") == "Delete" for r in groups.values())
    deployments = resources(template, "Custom::CDKBucketDeployment").values()
    assert deployments and all(d["RetainOnDelete"] is False for d in deployments)


@pytest.mark.parametrize("env", ["dev", "staging"])
def test_destroy_writers_go_before_the_bucket_they_write_into_is_emptied(synthesized: Synthesized,
                                                                         env: str) -> None:
    template = synthesized.main(env)
    erasers, depends = _erasers(template), _dependencies(template)
    writers: list[tuple[str, str]] = []  # (writer, bucket written into)
    for bucket, properties in resources(template, "AWS::S3::Bucket").items():
        target = properties.get("LoggingConfiguration", {}).get("DestinationBucketName")
        if target:
            writers.append((erasers[bucket], target["Ref"]))  # its own emptying is logged into the target
    for deployment, properties in resources(template, "Custom::CDKBucketDeployment").items():
        writers.append((deployment, properties["DestinationBucketName"]["Ref"]))
    assert len(writers) >= 6  # documents, model artefacts, audit anchors, voice, web into the access logs; web files
    late = [f"{writer} -> {bucket}" for writer, bucket in writers if erasers[bucket] not in depends[writer]]
    assert not late, f"still writing after the bucket was emptied: {late}"


def test_destroy_prod_retains_its_data(synthesized: Synthesized) -> None:
    template = synthesized.main("prod")
    # kept on delete and update, deleted only when their own creation rolls back (a retried deploy starts clean)
    kept = {r["Type"] for r in template["Resources"].values() if r.get("DeletionPolicy") == "RetainExceptOnCreate"}
    assert {"AWS::S3::Bucket", "AWS::DynamoDB::GlobalTable", "AWS::OpenSearchService::Domain", "AWS::KMS::Key"} <= kept
    assert not resources(template, AUTO_DELETE)  # nothing of prod's is emptied
    locked = [k for k, p in resources(template, "AWS::S3::Bucket").items() if p.get("ObjectLockEnabled")]
    assert locked and all(template["Resources"][k]["DeletionPolicy"] == "RetainExceptOnCreate" for k in locked)
    assert not [k for k, r in template["Resources"].items() if r.get("DeletionPolicy") == "Retain"]
