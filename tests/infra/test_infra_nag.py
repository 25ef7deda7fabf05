"""cdk-nag (AwsSolutions + HIPAA Security) passes every environment, and every acknowledgment has a reason."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import Synthesized

from infra.nag import WILDCARD_ALLOWANCES, AcknowledgeAllowedWildcards, apply_nag_packs, flatten_reference


def test_no_environment_has_an_unacknowledged_finding(synthesized: Synthesized) -> None:
    report = json.loads((synthesized.outdir / "validation-report.json").read_text())
    nag_reports = [
        r for r in report["pluginReports"] if r["pluginName"] in ("AwsSolutions", "HIPAA.Security")
    ]
    assert all(r["conclusion"] == "success" for r in nag_reports) and all(
        not r["violations"] for r in nag_reports
    )


def test_every_acknowledgment_in_the_templates_carries_a_reason(synthesized: Synthesized) -> None:
    acknowledged = [
        rule
        for template in synthesized.templates.values()
        for resource in template["Resources"].values()
        for rule in resource.get("Metadata", {}).get("cdk_nag", {}).get("rules_to_suppress", [])
    ]
    assert acknowledged
    assert all(len(rule["reason"].split()) >= 5 for rule in acknowledged)


def test_nag_fails_synth_on_an_unencrypted_public_bucket(tmp_path: Path) -> None:
    from aws_cdk import App, Stack
    from aws_cdk import aws_s3 as s3

    app = App(outdir=str(tmp_path))
    s3.Bucket(Stack(app, "Careless"), "Open")
    apply_nag_packs(app)
    with pytest.raises(RuntimeError, match="AwsSolutions-S10"):
        app.synth()


def test_wildcard_aspect_acknowledges_only_covered_findings() -> None:
    aspect = AcknowledgeAllowedWildcards(WILDCARD_ALLOWANCES)
    assert aspect._covering("Resource::*", frozenset({"xray:PutTraceSegments"})) is not None
    assert aspect._covering("Resource::*", frozenset({"xray:PutTraceSegments", "s3:GetObject"})) is None
    assert aspect._covering("Action::iam:*", frozenset({"iam:*"})) is None


def test_flatten_reference_prints_references_as_cdk_nag_does() -> None:
    joined = {"Fn::Join": ["", [{"Fn::GetAtt": ["StorageDocumentsBucketAB12", "Arn"]}, "/*"]]}
    assert flatten_reference(joined) == "<StorageDocumentsBucketAB12.Arn>/*"
    assert flatten_reference({"Fn::Sub": "arn:${AWS::Partition}:s3:::x/*"}) == "arn:<AWS::Partition>:s3:::x/*"
    assert re.fullmatch(WILDCARD_ALLOWANCES[2].finding, "Resource::" + flatten_reference(joined))
