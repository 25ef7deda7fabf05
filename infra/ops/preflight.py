"""What must hold before a deploy can succeed, checked against the account (never changed by the check).

Each check answers ok or a problem with its fix; `make preflight ENV=dev` prints them all and fails on any.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from infra.config import EnvironmentConfig
from infra.ops.environment import Stacks, stack_outputs
from infra.ops.shell import CommandFailed, Shell
from voiceassist.constants.functions import FUNCTIONS

OPENSEARCH_ROLE = "AWSServiceRoleForAmazonOpenSearchService"
OPENSEARCH_SERVICE = "opensearchservice.amazonaws.com"  # the service-linked role's service (VPC domains)
# The function count times a few concurrent requests; new accounts start at 10, which cannot run the app.
MIN_LAMBDA_CONCURRENCY = 100
MIN_BOOTSTRAP_VERSION = 6
# The catalogue's ingestion functions, each reserving functions.ingest_reserved_concurrency.
INGEST_FUNCTIONS = sum(1 for spec in FUNCTIONS if spec.name.startswith("ingest_"))


@dataclass(frozen=True)
class Finding:
    check: str
    ok: bool
    detail: str


Check = Callable[[Shell, EnvironmentConfig], Finding]


def credentials(shell: Shell, config: EnvironmentConfig) -> Finding:
    account = shell.aws("sts", "get-caller-identity")["Account"]
    if account != config.account:
        return Finding("credentials", False, f"signed in to {account}, cdk.json says {config.account} for "
                                              f"{config.name}: switch profile (AWS_PROFILE) or fix cdk.json")
    return Finding("credentials", True, f"account {account}")


def cdk_bootstrap(shell: Shell, config: EnvironmentConfig) -> Finding:
    outputs = stack_outputs(shell, "CDKToolkit")
    fix = f"npx {'aws-cdk@2.1148.x'} bootstrap aws://{config.account}/{config.region}"
    if outputs is None:
        return Finding("cdk bootstrap", False, f"not bootstrapped: {fix}")
    version = int(outputs.get("BootstrapVersion", "0"))
    if version < MIN_BOOTSTRAP_VERSION:
        return Finding("cdk bootstrap", False, f"bootstrap version {version} < {MIN_BOOTSTRAP_VERSION}: {fix}")
    return Finding("cdk bootstrap", True, f"version {version}")


def opensearch_role(shell: Shell, config: EnvironmentConfig) -> Finding:
    try:
        shell.aws("iam", "get-role", "--role-name", OPENSEARCH_ROLE)
    except CommandFailed as failure:
        if "NoSuchEntity" not in failure.output:
            raise
        return Finding("opensearch role", False, "missing: aws iam create-service-linked-role "
                                                  "--aws-service-name opensearchservice.amazonaws.com")
    return Finding("opensearch role", True, OPENSEARCH_ROLE)


def sagemaker_quota(shell: Shell, config: EnvironmentConfig) -> Finding:
    if not config.llm.on_sagemaker:
        return Finding("sagemaker quota", True, _NO_ENDPOINT[config.llm.on_bedrock])
    name = f"{config.llm.instance_type} for endpoint usage"
    quotas = shell.aws("service-quotas", "list-service-quotas", "--service-code", "sagemaker")["Quotas"]
    value = next((q["Value"] for q in quotas if q["QuotaName"] == name), 0)
    if value < config.llm.max_capacity:
        return Finding("sagemaker quota", False, f"'{name}' is {value:g}, the endpoint scales to "
                                                  f"{config.llm.max_capacity}: request an increase in Service Quotas")
    return Finding("sagemaker quota", True, f"'{name}' {value:g}")


def lambda_concurrency(shell: Shell, config: EnvironmentConfig) -> Finding:
    limit = shell.aws("lambda", "get-account-settings")["AccountLimit"]["ConcurrentExecutions"]
    # AWS keeps 100 unreserved; the ingestion functions reserve theirs on top.
    needed = MIN_LAMBDA_CONCURRENCY + INGEST_FUNCTIONS * (config.functions.ingest_reserved_concurrency or 0)
    if limit < needed:
        return Finding("lambda concurrency", False, f"account limit {limit} < {needed}: "
                                                     "request 'Concurrent executions' in Service Quotas")
    return Finding("lambda concurrency", True, f"account limit {limit}")


def docker_arm64(shell: Shell, config: EnvironmentConfig) -> Finding:
    try:
        output = shell.run(["docker", "buildx", "inspect", "--bootstrap"])
    except (CommandFailed, FileNotFoundError):
        return Finding("docker buildx", False, "docker buildx is not available: the PHI images are built locally")
    if "linux/arm64" not in output:
        return Finding("docker buildx", False, "the builder cannot build linux/arm64: install QEMU binfmt "
                                                "(docker run --privileged --rm tonistiigi/binfmt --install arm64)")
    return Finding("docker buildx", True, "linux/arm64")


def prefix_lists(shell: Shell, config: EnvironmentConfig) -> Finding:
    """The gateway endpoints' prefix lists in cdk.json are this region's (security groups allow only them)."""
    expected = {"s3": config.network.s3_prefix_list_id, "dynamodb": config.network.dynamodb_prefix_list_id}
    for service, configured in expected.items():
        name = f"com.amazonaws.{config.region}.{service}"
        lists = shell.aws("ec2", "describe-prefix-lists", "--filters", f"Name=prefix-list-name,Values={name}")
        found = [item["PrefixListId"] for item in lists.get("PrefixLists", [])]
        if found != [configured]:
            return Finding("prefix lists", False, f"{name} is {found}, cdk.json network.{service}_prefix_list_id "
                                                   f"is {configured}: fix cdk.json")
    return Finding("prefix lists", True, ", ".join(expected.values()))


def weights(shell: Shell, config: EnvironmentConfig) -> Finding:
    if not config.llm.on_sagemaker:
        return Finding("model weights", True, _NO_ENDPOINT[config.llm.on_bedrock])
    if stack_outputs(shell, Stacks(config).main) is None:
        return Finding("model weights", True, "first deploy: the main stack creates the bucket, then "
                                               "`make models` stages the weights before the Models stack")
    listed = shell.aws("s3api", "list-objects-v2", "--bucket", config.model_artifacts_bucket_name,
                       "--prefix", config.llm.model_data_prefix + "SHA256SUMS", "--max-items", "1")
    if not listed.get("Contents"):
        return Finding("model weights", False, f"no staged weights under s3://{config.model_artifacts_bucket_name}/"
                                                f"{config.llm.model_data_prefix}: make models ENV={config.name} "
                                                "SOURCE=/path/to/weights")
    return Finding("model weights", True, config.llm.model_data_prefix)


def bedrock_access(shell: Shell, config: EnvironmentConfig) -> Finding:
    """Where Bedrock serves the in-boundary model: the account may invoke it here, and an inference profile
    routes only to the Regions the IAM grant names (cdk.json llm.bedrock.destination_regions)."""
    if not config.llm.on_bedrock:
        return Finding("bedrock model", True, "no Bedrock model in this environment")
    model = config.llm.bedrock
    available = shell.aws("bedrock", "get-foundation-model-availability", "--model-id", model.foundation_model_id)
    states = (available.get("authorizationStatus"), available.get("entitlementAvailability"),
              available.get("regionAvailability"), (available.get("agreementAvailability") or {}).get("status"))
    if states[:3] != ("AUTHORIZED", "AVAILABLE", "AVAILABLE") or states[3] not in (None, "AVAILABLE", "NOT_REQUIRED"):
        return Finding("bedrock model", False, f"{model.foundation_model_id} is not usable in {config.region} "
                                                f"({', '.join(str(s) for s in states)}): enable model access in "
                                                "the Bedrock console (Model access), or pick another model_id")
    if not model.is_inference_profile:
        return Finding("bedrock model", True, model.model_id)
    profile = shell.aws("bedrock", "get-inference-profile", "--inference-profile-identifier", model.model_id)
    routed = sorted({str(m["modelArn"]).split(":")[3] for m in profile.get("models", [])})
    outside = sorted(set(routed) - set(model.destination_regions))
    if outside:
        return Finding("bedrock model", False, f"{model.model_id} routes to {', '.join(routed)}; cdk.json "
                                                f"llm.bedrock.destination_regions lacks {', '.join(outside)}")
    return Finding("bedrock model", True, f"{model.model_id} via {', '.join(routed)}")


_NO_ENDPOINT = {True: "not needed: the in-boundary model is on Bedrock", False: "no LLM endpoint in this environment"}

CHECKS: tuple[Check, ...] = (credentials, cdk_bootstrap, opensearch_role, sagemaker_quota, lambda_concurrency,
                             docker_arm64, prefix_lists, weights, bedrock_access)


def preflight(shell: Shell, config: EnvironmentConfig, checks: tuple[Check, ...] = CHECKS) -> list[Finding]:
    return [check(shell, config) for check in checks]


def report(findings: list[Finding]) -> str:
    return "\n".join(json.dumps({"check": f.check, "ok": f.ok, "detail": f.detail}) for f in findings)
