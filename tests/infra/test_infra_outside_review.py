"""The findings of the outside-rules review of session 11 (checkov and cfn-lint with informational and experimental
rules, decision 0030) that were real defects, each asserted fixed in every synthesized template."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Synthesized

ENVIRONMENTS = ["dev", "staging", "prod"]


def functions_without_their_log_group(template: dict[str, Any]) -> list[str]:
    """Functions Lambda would log for into a log group of its own making (`/aws/lambda/<name>`, unencrypted and
    never expiring): each function must name, in its LoggingConfig, a log group of the stack that is
    KMS-encrypted and has a retention."""
    resources = template["Resources"]
    missing = []
    for logical_id, resource in resources.items():
        if resource["Type"] != "AWS::Lambda::Function":
            continue
        target = resource["Properties"].get("LoggingConfig", {}).get("LogGroup")
        group = resources.get(target["Ref"], {}) if isinstance(target, dict) and "Ref" in target else {}
        properties = group.get("Properties", {})
        if not (
            group.get("Type") == "AWS::Logs::LogGroup" and "KmsKeyId" in properties and "RetentionInDays" in properties
        ):
            missing.append(logical_id)
    return missing


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_function_cdks_own_included_logs_into_an_encrypted_expiring_group(
    synthesized: Synthesized, env: str
) -> None:
    templates = synthesized.stacks(env)
    functions = [k for t in templates for k, r in t["Resources"].items() if r["Type"] == "AWS::Lambda::Function"]
    # CDK's own handlers are there (default security group restriction, the web deployment; the bucket
    # auto-delete outside prod) and are checked with ours
    assert any(k.startswith("CustomVpcRestrictDefaultSG") for k in functions)
    assert any(k.startswith("CustomCDKBucketDeployment") for k in functions)
    assert [f for t in templates for f in functions_without_their_log_group(t)] == []


def test_the_log_group_check_finds_a_function_without_one(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    name, function = next(
        (k, r)
        for k, r in template["Resources"].items()
        if r["Type"] == "AWS::Lambda::Function" and k.startswith("CustomS3AutoDeleteObjects")
    )
    bare = {**function, "Properties": {k: v for k, v in function["Properties"].items() if k != "LoggingConfig"}}
    assert functions_without_their_log_group({"Resources": {**template["Resources"], name: bare}}) == [name]
