"""make preflight / deploy / destroy / models for an environment whose in-boundary model is on Bedrock (dev,
decision 0016): no GPU quota, weights or Models stack; the model must be usable in the account instead."""

from __future__ import annotations

from typing import Any

import pytest
from fake_shell import Failure, FakeShell, sequence
from test_ops_deploy import MAIN_OUTPUTS, _stack, healthy_account

from infra.ops.__main__ import main
from infra.ops.environment import Stacks, load
from infra.ops.lifecycle import deploy, destroy
from infra.ops.preflight import bedrock_access, preflight

DEV = load("dev")
PROFILE = DEV.llm.bedrock.model_id
AVAILABLE = {"modelId": "meta.llama3-1-8b-instruct-v1:0", "authorizationStatus": "AUTHORIZED",
             "entitlementAvailability": "AVAILABLE", "regionAvailability": "AVAILABLE",
             "agreementAvailability": {"status": "AVAILABLE"}}


def _profile(*regions: str) -> dict[str, Any]:
    return {"inferenceProfileId": PROFILE, "status": "ACTIVE", "type": "SYSTEM_DEFINED", "models": [
        {"modelArn": f"arn:aws:bedrock:{region}::foundation-model/meta.llama3-1-8b-instruct-v1:0"}
        for region in regions]}


def bedrock_account(**overrides: Any) -> dict[tuple[str, ...], Any]:
    answers = healthy_account()
    del answers[("aws", "service-quotas", "list-service-quotas")], answers[("aws", "s3api", "list-objects-v2")]
    answers[("aws", "bedrock", "get-foundation-model-availability")] = AVAILABLE
    answers[("aws", "bedrock", "get-inference-profile")] = _profile("us-east-1", "us-east-2", "us-west-2")
    answers.update(overrides)
    return answers


def test_dev_is_on_bedrock_and_has_no_models_stack() -> None:
    assert DEV.llm.on_bedrock and not DEV.llm.on_sagemaker and not Stacks(DEV).has_models
    assert DEV.llm.bedrock.is_inference_profile and DEV.llm.bedrock.foundation_model_id == AVAILABLE["modelId"]


def test_preflight_checks_the_model_instead_of_gpu_quota_and_weights() -> None:
    shell = FakeShell(bedrock_account())  # no quota or weights answers: asking for them would fail the test

    findings = {f.check: f for f in preflight(shell, DEV)}

    assert [name for name, f in findings.items() if not f.ok] == []
    assert "Bedrock" in findings["sagemaker quota"].detail and "Bedrock" in findings["model weights"].detail
    assert findings["bedrock model"].detail == f"{PROFILE} via us-east-1, us-east-2, us-west-2"
    (asked,) = shell.ran("aws", "bedrock", "get-foundation-model-availability")
    assert asked[asked.index("--model-id") + 1] == "meta.llama3-1-8b-instruct-v1:0"


@pytest.mark.parametrize(("field", "value"), [("authorizationStatus", "NOT_AUTHORIZED"),
                                              ("entitlementAvailability", "NOT_AVAILABLE"),
                                              ("regionAvailability", "NOT_AVAILABLE"),
                                              ("agreementAvailability", {"status": "PENDING"})])
def test_a_model_the_account_cannot_use_is_named_with_the_fix(field: str, value: Any) -> None:
    shell = FakeShell(bedrock_account() | {("aws", "bedrock", "get-foundation-model-availability"):
                                               AVAILABLE | {field: value}})

    finding = bedrock_access(shell, DEV)

    assert not finding.ok and "Model access" in finding.detail


def test_a_profile_that_routes_outside_the_granted_regions_is_refused() -> None:
    shell = FakeShell(bedrock_account() | {("aws", "bedrock", "get-inference-profile"):
                                           _profile("us-east-1", "us-east-2", "us-west-1")})

    finding = bedrock_access(shell, DEV)

    assert not finding.ok and "lacks us-west-1" in finding.detail


def test_sagemaker_environments_skip_the_bedrock_check() -> None:
    finding = bedrock_access(FakeShell({}), load("prod"))
    assert finding.ok and finding.detail == "no Bedrock model in this environment"


def test_deploy_deploys_the_main_stack_only_and_destroy_tears_down_only_it() -> None:
    main_stack = ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev")
    shell = FakeShell(bedrock_account() | {main_stack: _stack(MAIN_OUTPUTS)})  # read once, after its deploy
    smoked: list[dict[str, str]] = []

    deploy(shell, DEV, smoke=lambda _shell, _config, outputs: smoked.append(outputs))

    assert [call[4] for call in shell.ran("npx")] == ["VoiceAssist-dev"] and smoked == [MAIN_OUTPUTS]
    gone = Failure("Stack with id VoiceAssist-dev does not exist")
    teardown = FakeShell({main_stack: sequence(_stack(MAIN_OUTPUTS), gone), ("aws", "s3api", "put-bucket-logging"): {},
                          ("npx",): ""})
    destroy(teardown, DEV)
    assert [call[4] for call in teardown.ran("npx")] == ["VoiceAssist-dev"]
    assert teardown.ran("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev-Models") == []


def test_make_models_refuses_an_environment_without_an_endpoint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "--env", "dev", "--source", "/nonexistent"]) == 1
    assert "no SageMaker endpoint" in capsys.readouterr().err
