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
MAIN_OUTPUTS = {"RestApiUrl": "https://abc.execute-api.us-east-1.amazonaws.com/api/",
                "WebSocketUrl": "wss://ws.execute-api.us-east-1.amazonaws.com/v1", "UserPoolId": "us-east-1_pool",
                "SmokeClientId": "smoke", "DocumentsBucketName": "docs-bucket",
                "ModelArtifactsBucketName": DEV.model_artifacts_bucket_name, "AccessLogsBucketName": "logs-bucket",
                "AuditAnchorBucketName": "anchors-bucket",
                "VoiceBucketName": "voice-bucket", "WebBucketName": "web-bucket", "WebUrl": "https://d111.cloudfront.net/",
                "OpenAiSecretArn": "arn:aws:secretsmanager:us-east-1:111111111111:secret:openai-AbCd"}
SECRET_SET = {"VersionIdsToStages": {"v2": ["AWSCURRENT"], "v1": ["AWSPREVIOUS"]}}
SECRET_NEW = {"VersionIdsToStages": {"v1": ["AWSCURRENT"]}}  # the random string the stack created


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
        ("aws", "secretsmanager", "describe-secret"): SECRET_SET,
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
    assert urls == {k: MAIN_OUTPUTS[k] for k in ("WebUrl", "RestApiUrl", "WebSocketUrl", "UserPoolId")}


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


MISSING = Failure("An error occurred (ValidationError): Stack with id VoiceAssist-dev does not exist")


def test_destroy_stops_access_logging_then_the_stack_empties_its_own_buckets(capsys: pytest.CaptureFixture[str]
                                                                             ) -> None:
    shell = FakeShell({
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev-Models"): _stack({}),
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev"):
            sequence(_stack(MAIN_OUTPUTS), MISSING),
        ("aws", "s3api", "put-bucket-logging"): {},
        ("npx",): "",
    })
    assert destroy(shell, DEV) == []
    assert [call[4] for call in shell.ran("npx")] == ["VoiceAssist-dev-Models", "VoiceAssist-dev"]
    stopped = [call[call.index("--bucket") + 1] for call in shell.ran("aws", "s3api", "put-bucket-logging")]
    assert stopped == ["docs-bucket", DEV.model_artifacts_bucket_name, "anchors-bucket", "voice-bucket", "web-bucket"]
    main_destroy = shell.calls.index(shell.ran("npx")[1])
    assert all(shell.calls.index(call) < main_destroy for call in shell.ran("aws", "s3api", "put-bucket-logging"))
    assert shell.ran("aws", "s3api", "delete-objects") == []  # auto-delete in the template (test_infra_destroy.py)
    assert "everything in them are gone" in capsys.readouterr().out


def test_destroy_empties_the_access_logs_and_retries_when_late_deliveries_fail_the_delete() -> None:
    listed = {"Versions": [{"Key": "cloudfront/E1.2026-11-29.gz", "VersionId": "v1"}]}
    shell = FakeShell({
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev-Models"): MISSING,
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev"):
            sequence(_stack(MAIN_OUTPUTS), _stack(MAIN_OUTPUTS), MISSING),  # DELETE_FAILED, then gone
        ("aws", "s3api", "put-bucket-logging"): {},
        ("aws", "s3api", "list-object-versions"): sequence(listed, {}),
        ("aws", "s3api", "delete-objects"): {},
        ("npx",): "",
    })
    destroy(shell, DEV)
    assert [call[4] for call in shell.ran("npx")] == ["VoiceAssist-dev", "VoiceAssist-dev"]
    emptied = {call[call.index("--bucket") + 1] for call in shell.ran("aws", "s3api", "list-object-versions")}
    assert emptied == {"logs-bucket"}
    first, second = (i for i, call in enumerate(shell.calls) if call[0] == "npx")
    deletes = [i for i, call in enumerate(shell.calls) if call[:3] == ["aws", "s3api", "delete-objects"]]
    assert deletes and all(first < i < second for i in deletes)


def test_destroy_of_prod_keeps_its_data_and_says_what_stays(capsys: pytest.CaptureFixture[str]) -> None:
    prod_outputs = {**MAIN_OUTPUTS, "DocumentsBucketName": "prod-docs"}
    shell = FakeShell({
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-prod-Models"): MISSING,
        ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-prod"):
            sequence(_stack(prod_outputs), Failure("Stack with id VoiceAssist-prod does not exist")),
        ("npx",): "",
    })
    kept = destroy(shell, load("prod"), allow_protected=True)
    assert any("OpenSearch" in item for item in kept) and any("buckets" in item for item in kept)
    assert shell.ran("aws", "s3api") == []  # nothing emptied, logging left as it is
    assert "prod keeps (removal: retain)" in capsys.readouterr().out


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


def _deploying(overrides: dict[tuple[str, ...], Any] | None = None) -> FakeShell:
    main_stack = ("aws", "cloudformation", "describe-stacks", "--stack-name", "VoiceAssist-dev")
    return FakeShell(healthy_account() | (overrides or {}) | {main_stack: sequence(
        Failure("Stack with id VoiceAssist-dev does not exist"), _stack(MAIN_OUTPUTS))})


def test_deploy_bootstraps_a_new_account_only_when_the_operator_agrees() -> None:
    toolkit = ("aws", "cloudformation", "describe-stacks", "--stack-name", "CDKToolkit")
    missing = Failure("Stack with id CDKToolkit does not exist")
    asked: list[str] = []
    shell = _deploying({toolkit: sequence(missing, _stack({"BootstrapVersion": "28"}))})
    deploy(shell, DEV, ask=lambda q: asked.append(q) or "y", ask_secret=lambda q: "")
    (bootstrap,) = [c for c in shell.ran("npx") if c[3] == "bootstrap"]
    assert bootstrap[4] == f"aws://{DEV.account}/{DEV.region}" and len(asked) == 1 and "Bootstrap it now?" in asked[0]
    assert shell.calls.index(bootstrap) < shell.calls.index(shell.ran("make", "layers")[0])

    refused = _deploying({toolkit: missing})
    with pytest.raises(OperationRefused, match="cdk bootstrap"):
        deploy(refused, DEV, ask=lambda q: "", ask_secret=lambda q: "")
    assert refused.ran("npx") == [] and refused.ran("make") == []


def test_deploy_creates_the_opensearch_service_linked_role_when_missing() -> None:
    role = ("aws", "iam", "get-role")
    shell = _deploying({role: sequence(Failure("An error occurred (NoSuchEntity)"),
                                         {"Role": {"RoleName": "AWSServiceRoleForAmazonOpenSearchService"}}),
                          ("aws", "iam", "create-service-linked-role"): {}})
    deploy(shell, DEV, ask_secret=lambda q: "")
    (created,) = shell.ran("aws", "iam", "create-service-linked-role")
    assert created[3:5] == ["--aws-service-name", "opensearchservice.amazonaws.com"]


def test_deploy_asks_for_the_openai_key_once_and_never_puts_it_on_the_command_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    stored: list[str] = []

    def put(argv: list[str]) -> dict[str, Any]:
        stored.append(Path(argv[argv.index("--secret-string") + 1].removeprefix("file://")).read_text())
        return {}

    shell = _deploying({("aws", "secretsmanager", "describe-secret"): SECRET_NEW,
                          ("aws", "secretsmanager", "put-secret-value"): put})
    prompts: list[str] = []
    urls = deploy(shell, DEV, ask_secret=lambda q: prompts.append(q) or "sk-test-123")
    assert stored == ["sk-test-123"] and len(prompts) == 1
    assert not any("sk-test-123" in " ".join(call) for call in shell.calls)
    out = capsys.readouterr().out
    assert urls["WebUrl"] == "https://d111.cloudfront.net/" and "Web client: https://d111.cloudfront.net/" in out
    assert "admin-create-user" in out  # the next step

    already = _deploying()  # the key was set before (two versions): not asked again
    deploy(already, DEV, ask_secret=lambda q: pytest.fail("asked again"))
    assert already.ran("aws", "secretsmanager", "put-secret-value") == []


def test_deploy_says_how_to_set_the_openai_key_when_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    shell = _deploying({("aws", "secretsmanager", "describe-secret"): SECRET_NEW})
    deploy(shell, DEV, ask_secret=lambda q: "")
    assert shell.ran("aws", "secretsmanager", "put-secret-value") == []
    assert "aws secretsmanager put-secret-value --secret-id arn:aws:secretsmanager" in capsys.readouterr().out
