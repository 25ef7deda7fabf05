"""make preflight / deploy / destroy, offline: the AWS CLI, CDK CLI, Docker and make are a scripted shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dev_on_sagemaker
from fake_shell import Failure, FakeShell, sequence

from infra.ops.__main__ import main
from infra.ops.environment import load
from infra.ops.lifecycle import OperationRefused, deploy, destroy, empty_bucket
from infra.ops.preflight import lambda_concurrency, preflight
from voiceassist.constants.functions import FUNCTIONS_BY_NAME

DEV = dev_on_sagemaker()  # the Models stack, its weights and GPU quota (dev itself is on Bedrock)
MAIN_OUTPUTS = {"RestApiUrl": "https://abc.execute-api.us-east-1.amazonaws.com/v1/",
                "WebSocketUrl": "wss://ws.execute-api.us-east-1.amazonaws.com/v1", "UserPoolId": "us-east-1_pool",
                "SmokeClientId": "smoke", "DocumentsBucketName": "docs-bucket",
                "ModelArtifactsBucketName": DEV.model_artifacts_bucket_name, "AccessLogsBucketName": "logs-bucket"}


def _stack(outputs: dict[str, str]) -> dict[str, Any]:
    return {"Stacks": [{"Outputs": [{"OutputKey": k, "OutputValue": v} for k, v in outputs.items()]}]}


def healthy_account(**overrides: Any) -> dict[tuple[str, ...], Any]:
    missing = Failure("An error occurred (ValidationError): Stack with id VoiceAssist-dev does not exist")
    answers: dict[tuple[str, ...], Any] = {
        ("aws", "sts", "get-caller-identity"): {"Account": DEV.account},
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "CDKToolkit"):
            _stack({"BootstrapVersion": "28"}),
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev"): missing,
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev-Models"): missing,
        ("aws", "iam", "get-role"): {"Role": {"RoleName": "AWSServiceRoleForAmazonOpenSearchService"}},
        ("aws", "service-quotas", "list-service-quotas"): {"Quotas": [
            {"QuotaName": "ml.g5.2xlarge for endpoint usage", "Value": 2.0}]},
        ("aws", "lambda", "get-account-settings"): {"AccountLimit": {"ConcurrentExecutions": 1000}},
        ("docker", "buildx", "inspect"): "Platforms: linux/amd64, linux/arm64\n",
        ("aws", "ec2", "describe-prefix-lists"): lambda argv: {"PrefixLists": [{"PrefixListId": (
            DEV.network.s3_prefix_list_id if argv[4].endswith(".s3") else DEV.network.dynamodb_prefix_list_id)}]},
        ("aws", "s3api", "list-objects-v2"): {"Contents": [{"Key": "llama-3.1-8b-instruct/SHA256SUMS"}]},
        ("make", "layers"): "",
        ("npx",): "",
        ("aws", "s3", "cp"): "",
    }
    answers.update(overrides)
    return answers


def test_preflight_passes_on_a_ready_account() -> None:
    findings = preflight(FakeShell(healthy_account()), DEV)
    assert [f.check for f in findings if not f.ok] == []
    assert {f.check for f in findings} == {"credentials", "cdk bootstrap", "opensearch role", "sagemaker quota",
                                           "lambda concurrency", "docker buildx", "prefix lists", "model weights",
                                           "bedrock model"}


@pytest.mark.parametrize(("override", "check", "fix"), [
    ({("aws", "sts", "get-caller-identity"): {"Account": "999999999999"}}, "credentials", "AWS_PROFILE"),
    ({("aws", "cloudformation", "describe-stacks", "--stack-name", "CDKToolkit"):
      Failure("Stack with id CDKToolkit does not exist")}, "cdk bootstrap", "bootstrap aws://111111111111"),
    ({("aws", "iam", "get-role"): Failure("An error occurred (NoSuchEntity)")}, "opensearch role",
     "create-service-linked-role"),
    ({("aws", "service-quotas", "list-service-quotas"): {"Quotas": []}}, "sagemaker quota", "Service Quotas"),
    ({("aws", "lambda", "get-account-settings"): {"AccountLimit": {"ConcurrentExecutions": 10}}},
     "lambda concurrency", "Concurrent executions"),
    ({("docker", "buildx", "inspect"): "Platforms: linux/amd64\n"}, "docker buildx", "binfmt"),
    ({("aws", "ec2", "describe-prefix-lists"): {"PrefixLists": [{"PrefixListId": "pl-00000000"}]}},
     "prefix lists", "cdk.json"),
])
def test_each_preflight_problem_is_named_with_its_fix(override: dict, check: str, fix: str) -> None:
    findings = {f.check: f for f in preflight(FakeShell(healthy_account() | override), DEV)}
    assert not findings[check].ok and fix in findings[check].detail
    assert [name for name, f in findings.items() if not f.ok] == [check]


def test_weights_are_checked_once_the_main_stack_exists() -> None:
    shell = FakeShell(healthy_account() | {
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev"): _stack(MAIN_OUTPUTS),
        ("aws", "s3api", "list-objects-v2"): {}})
    (weights,) = [f for f in preflight(shell, DEV) if f.check == "model weights"]
    assert not weights.ok and "make models ENV=dev" in weights.detail


def test_deploy_runs_preflight_layers_both_stacks_samples_and_smoke_then_prints_urls() -> None:
    main_stack = ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev")
    shell = FakeShell(healthy_account() | {main_stack: sequence(
        Failure("Stack with id VoiceAssist-dev does not exist"), _stack(MAIN_OUTPUTS))})
    smoked: list[dict[str, str]] = []
    urls = deploy(shell, DEV, smoke=lambda _shell, _config, outputs: smoked.append(outputs))
    commands = [" ".join(call[:4]) for call in shell.calls if call[0] in ("make", "npx")]
    assert commands == ["make layers", "npx -y aws-cdk@2.1148.x deploy", "npx -y aws-cdk@2.1148.x deploy"]
    deployed = [call[4] for call in shell.ran("npx")]
    assert deployed == ["VoiceAssist-dev", "VoiceAssist-dev-Models"]
    assert all(call[-2:] == ["-c", "env=dev"] for call in shell.ran("npx"))
    (upload,) = shell.ran("aws", "s3", "cp")
    assert upload[3].endswith("samples/corpus") and upload[4] == "s3://docs-bucket/incoming/"
    assert smoked == [MAIN_OUTPUTS]
    assert urls == {k: MAIN_OUTPUTS[k] for k in ("RestApiUrl", "WebSocketUrl", "UserPoolId")}


def test_deploy_deploys_nothing_when_preflight_fails() -> None:
    shell = FakeShell(healthy_account() | {("aws", "lambda", "get-account-settings"):
                                                        {"AccountLimit": {"ConcurrentExecutions": 10}}})
    with pytest.raises(OperationRefused, match="lambda concurrency"):
        deploy(shell, DEV)
    assert shell.ran("npx") == [] and shell.ran("make") == []


def test_deploy_stops_before_the_models_stack_without_weights() -> None:
    main_stack = ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev")
    shell = FakeShell(healthy_account() | {main_stack: sequence(
        Failure("Stack with id VoiceAssist-dev does not exist"), _stack(MAIN_OUTPUTS)),
        ("aws", "s3api", "list-objects-v2"): {}})
    with pytest.raises(OperationRefused, match="make models ENV=dev"):
        deploy(shell, DEV)
    assert [call[4] for call in shell.ran("npx")] == ["VoiceAssist-dev"]


def test_destroy_empties_every_bucket_then_tears_both_stacks_down() -> None:
    listed = {"Versions": [{"Key": "incoming/a.pdf", "VersionId": "v1"}],
              "DeleteMarkers": [{"Key": "incoming/a.pdf", "VersionId": "d1"}]}
    shell = FakeShell({
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev-Models"): _stack({}),
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev"): _stack(MAIN_OUTPUTS),
        ("aws", "s3api", "list-object-versions"): sequence(listed, {}, listed, {}, {}),
        ("aws", "s3api", "delete-objects"): {"Deleted": []},
        ("npx",): "",
    })
    destroy(shell, DEV)
    assert [call[4] for call in shell.ran("npx")] == ["VoiceAssist-dev-Models", "VoiceAssist-dev"]
    emptied = [call[call.index("--bucket") + 1] for call in shell.ran("aws", "s3api", "list-object-versions")]
    assert emptied == ["docs-bucket", "docs-bucket", DEV.model_artifacts_bucket_name,
                       DEV.model_artifacts_bucket_name, "logs-bucket"]
    npx_index = shell.calls.index(shell.ran("npx")[1])
    assert all(shell.calls.index(call) < npx_index for call in shell.ran("aws", "s3api", "delete-objects"))


def test_empty_bucket_deletes_versions_and_markers() -> None:
    batches: list[dict[str, Any]] = []

    def record(argv: list[str]) -> dict[str, Any]:
        batches.append(json.loads(Path(argv[argv.index("--delete") + 1].removeprefix("file://")).read_text()))
        return {}

    listed = {"Versions": [{"Key": "k", "VersionId": "1"}], "DeleteMarkers": [{"Key": "k", "VersionId": "2"}]}
    shell = FakeShell({("aws", "s3api", "list-object-versions"): sequence(listed, {}),
                       ("aws", "s3api", "delete-objects"): record})
    assert empty_bucket(shell, "b") == 2
    assert batches == [{"Objects": [{"Key": "k", "VersionId": "1"}, {"Key": "k", "VersionId": "2"}], "Quiet": True}]


def test_destroy_refuses_prod_without_the_explicit_flag(capsys: pytest.CaptureFixture[str]) -> None:
    shell = FakeShell({})
    with pytest.raises(OperationRefused, match="CONFIRM=prod"):
        destroy(shell, load("prod"))
    assert shell.calls == []
    assert main(["destroy", "--env", "prod"]) == 1 and "CONFIRM=prod" in capsys.readouterr().err


def test_the_concurrency_check_counts_what_prod_reserves_for_ingestion() -> None:
    prod = load("prod")
    assert prod.functions.ingest_reserved_concurrency == 10
    settings = {("aws", "lambda", "get-account-settings"): {"AccountLimit": {"ConcurrentExecutions": 150}}}
    needed = 100 + 10 * sum(1 for name in FUNCTIONS_BY_NAME if name.startswith("ingest_"))  # 100 kept unreserved
    concurrency = lambda_concurrency(FakeShell(settings), prod)
    assert not concurrency.ok and f"< {needed}" in concurrency.detail
    settings[("aws", "lambda", "get-account-settings")]["AccountLimit"]["ConcurrentExecutions"] = needed
    assert lambda_concurrency(FakeShell(settings), prod).ok


def test_deploy_skips_the_smoke_test_where_there_is_no_smoke_client() -> None:
    outputs = {k: v for k, v in MAIN_OUTPUTS.items() if k != "SmokeClientId"}
    main_stack = ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev")
    shell = FakeShell(healthy_account() | {main_stack: sequence(
        Failure("Stack with id VoiceAssist-dev does not exist"), _stack(outputs))})
    smoked: list[dict[str, str]] = []
    deploy(shell, DEV, smoke=lambda _shell, _config, found: smoked.append(found))
    assert smoked == [] and [call[4] for call in shell.ran("npx")] == ["VoiceAssist-dev", "VoiceAssist-dev-Models"]
