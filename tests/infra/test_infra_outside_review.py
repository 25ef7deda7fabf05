"""The findings of the outside-rules review of session 11 (checkov and cfn-lint with informational and experimental
rules, decision 0030) that were real defects, each asserted fixed in every synthesized template."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Synthesized

from infra.constructs.web import DISTRIBUTION_LOGICAL_ID, INVALIDATION_ACTIONS

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


def _statements_of_role(template: dict[str, Any], role: str) -> list[dict[str, Any]]:
    return [
        statement
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::IAM::Policy" and {"Ref": role} in resource["Properties"]["Roles"]
        for statement in resource["Properties"]["PolicyDocument"]["Statement"]
    ]


def invalidation_targets(template: dict[str, Any]) -> dict[str, str]:
    """Action -> what CDK's web-deployment handler may invalidate: "any" unless a Deny on every other
    distribution (NotResource: one distribution's ARN) bounds an allow on "*", then that distribution's logical id."""
    handler = next(
        r
        for k, r in template["Resources"].items()
        if r["Type"] == "AWS::Lambda::Function" and k.startswith("CustomCDKBucketDeployment")
    )
    statements = _statements_of_role(template, handler["Properties"]["Role"]["Fn::GetAtt"][0])

    def actions(statement: dict[str, Any]) -> list[str]:
        return [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]

    targets = {}
    for action in INVALIDATION_ACTIONS:
        allowed = [s for s in statements if s["Effect"] == "Allow" and action in actions(s)]
        assert allowed, f"{action}: the handler must still be allowed to invalidate"
        if all(s["Resource"] != "*" for s in allowed):
            targets[action] = json.dumps([s["Resource"] for s in allowed])
            continue
        bounds = [
            s["NotResource"]
            for s in statements
            if s["Effect"] == "Deny" and action in actions(s) and "NotResource" in s
        ]
        arn = json.dumps(bounds[0]) if len(bounds) == 1 else ""
        targets[action] = (
            DISTRIBUTION_LOGICAL_ID
            if f'"Ref": "{DISTRIBUTION_LOGICAL_ID}"' in arn and ":distribution/" in arn
            else "any"
        )
    return targets


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_web_deployment_invalidates_its_own_distribution_only(synthesized: Synthesized, env: str) -> None:
    assert invalidation_targets(synthesized.main(env)) == dict.fromkeys(INVALIDATION_ACTIONS, DISTRIBUTION_LOGICAL_ID)


def test_the_invalidation_check_finds_a_handler_on_every_distribution(synthesized: Synthesized) -> None:
    template = json.loads(json.dumps(synthesized.main("dev")))
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::IAM::Policy":
            document = resource["Properties"]["PolicyDocument"]
            document["Statement"] = [s for s in document["Statement"] if s["Effect"] != "Deny"]
    assert invalidation_targets(template) == dict.fromkeys(INVALIDATION_ACTIONS, "any")
