"""One factory for every Lambda function, so they share the same defaults.

python3.12 on arm64, X-Ray tracing, JSON logs into an encrypted log group with the environment's retention,
environment variables named by voiceassist.settings constants (and encrypted with the environment key),
the app subnets and security group, and a role that starts empty: permissions come only from the grants
the stack gives for each catalogue entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import REPO_ROOT, EnvironmentConfig, SourcePaths
from infra.constructs.layers import ARCHITECTURE, ASSET_EXCLUDES, RUNTIME, Layers
from infra.constructs.log_groups import encrypted_log_group
from infra.constructs.network import Network
from infra.nag import acknowledge
from voiceassist.constants.functions import HANDLER, FunctionSpec, layers_of

# The container build context is the repository; only these paths are staged into the image asset.
PHI_IMAGE_CONTEXT = [
    "infra/images/phi",
    "layers/core/python/voiceassist",
    "layers/deps/requirements-deps.txt",
    "layers/deps/requirements-phi.txt",
    "layers/deps/requirements-auth.txt",  # cryptography: the sessions' encrypted clinical context
    "layers/deps/requirements-ml.txt",  # onnxruntime and tokenizers, for an image with ML_LAYER=true
    "requirements/models.txt",  # the spaCy and embedding models' pins and sha256
]
_ENI_ACTIONS = [
    "ec2:CreateNetworkInterface",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DeleteNetworkInterface",
    "ec2:AssignPrivateIpAddresses",
    "ec2:UnassignPrivateIpAddresses",
]


def image_build_args(spec: FunctionSpec) -> dict[str, str]:
    """The PHI Dockerfile's build arguments for a container function: its folder, and the ML layer's requirements
    and embedding model where it needs them (classify and rank, which run spaCy's parse readings beside the
    embedder: voiceassist/english_pipeline.py)."""
    return {"FUNCTION": spec.name, "ML_LAYER": "true" if spec.needs_ml_layer else "false"}


def function_id(name: str) -> str:
    """ingest_extract -> IngestExtractFunction (construct id; also the logical-id prefix)."""
    return "".join(part.capitalize() for part in name.split("_")) + "Function"


class FunctionFactory(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        paths: SourcePaths,
        layers: Layers,
        network: Network,
        key: kms.IKey,
        environment: Mapping[str, str],
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        self._config = config
        self._paths = paths
        self._layers = layers
        self._network = network
        self._key = key
        self._environment = dict(environment)
        self._removal_policy = removal_policy
        self.functions: dict[str, lambda_.Function] = {}
        # What the workflows invoke instead of the function: a warm alias (provisioned concurrency).
        self.aliases: dict[str, lambda_.Alias] = {}

    def create(self, spec: FunctionSpec) -> lambda_.Function:
        """An app function from functions/<name>/, with a role of its own."""
        role = iam.Role(
            self,
            f"{function_id(spec.name)}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{self._config.prefix} {spec.name}: {spec.description}",
        )
        code_dir = self._paths.functions_dir / spec.name
        function = self._build(spec, code_dir, role)
        self.functions[spec.name] = function
        warm = self._config.functions.phi_provisioned_concurrency
        if warm and spec.container_image and spec.name in WARM_PHI_FUNCTIONS:
            self.aliases[spec.name] = lambda_.Alias(
                self,
                f"{function_id(spec.name)}Live",
                alias_name="live",
                version=function.current_version,
                provisioned_concurrent_executions=warm,
            )
        return function

    def create_internal(self, spec: FunctionSpec, *, code_dir: Path, role: iam.IRole) -> lambda_.Function:
        """A custom-resource function (catalogued, code under functions/) running as a role created elsewhere."""
        return self._build(spec, code_dir, role)

    def _build(self, spec: FunctionSpec, code_dir: Path, role: iam.IRole) -> lambda_.Function:
        config = self._config
        construct_id = function_id(spec.name)
        log_group = encrypted_log_group(
            self,
            f"{construct_id}Logs",
            key=self._key,
            retention_days=config.retention.log_days,
            removal_policy=self._removal_policy,
            mask_phi=True,
        )
        log_group.grant_write(role)
        # Lambda creates the function's network interfaces with its role; these actions take no resource ARN.
        role.add_to_policy(iam.PolicyStatement(actions=_ENI_ACTIONS, resources=["*"]))
        common = {
            "description": spec.description,
            "architecture": ARCHITECTURE,
            "memory_size": spec.memory_mb or config.functions.memory_mb,
            "timeout": Duration.seconds(spec.timeout_seconds or config.functions.timeout_seconds),
            "tracing": lambda_.Tracing.ACTIVE,
            "logging_format": lambda_.LoggingFormat.JSON,
            "log_group": log_group,
            "environment": self._environment,
            "environment_encryption": self._key,
            "role": role,
            "vpc": self._network.vpc,
            "vpc_subnets": self._network.app_subnets,
            "security_groups": [
                self._network.function_security_group if has_internet_egress(spec, config)
                else self._network.internal_security_group
            ],
            "reserved_concurrent_executions": reserved_concurrency(spec, config),
        }
        if spec.container_image:
            function: lambda_.Function = lambda_.DockerImageFunction(
                self,
                construct_id,
                code=self._image_code(spec),
                **common,  # type: ignore[arg-type]
            )
        else:
            layers = [self._layers.by_name(name) for name in layers_of(spec)]
            function = lambda_.Function(
                self,
                construct_id,
                runtime=RUNTIME,
                handler=HANDLER,
                layers=layers,
                code=lambda_.Code.from_asset(str(code_dir), exclude=ASSET_EXCLUDES),
                **common,  # type: ignore[arg-type]
            )
            acknowledge(
                function,
                (
                    "AwsSolutions-L1",
                    "Pinned to python3.12: the dependency layers are built "
                    "for cp312 manylinux aarch64 wheels, and move with the runtime together.",
                ),
            )
        self._acknowledge_invocation_model(function, spec)
        return function

    def add_dead_letter_queue(self, function: lambda_.Function, construct_id: str) -> sqs.Queue:
        """For asynchronously invoked functions: events that fail every retry are kept, encrypted."""
        queue = sqs.Queue(
            self,
            construct_id,
            encryption=sqs.QueueEncryption.KMS,
            encryption_master_key=self._key,
            enforce_ssl=True,
            retention_period=Duration.days(14),
            removal_policy=self._removal_policy,
        )
        acknowledge(queue, ("AwsSolutions-SQS3", "This queue is itself a dead-letter queue."))
        cfn_function: lambda_.CfnFunction = function.node.default_child  # type: ignore[assignment]
        cfn_function.dead_letter_config = lambda_.CfnFunction.DeadLetterConfigProperty(
            target_arn=queue.queue_arn
        )
        queue.grant_send_messages(function)
        return queue

    def _image_code(self, spec: FunctionSpec) -> lambda_.DockerImageCode:
        function_name = spec.name
        return lambda_.DockerImageCode.from_image_asset(
            str(REPO_ROOT),
            file=str((self._paths.phi_dockerfile_dir / "Dockerfile").relative_to(REPO_ROOT)),
            platform=ecr_assets.Platform.LINUX_ARM64,
            build_args=image_build_args(spec),
            # Allow-list: stage only what the image copies, never .venv, node_modules or cdk.out.
            exclude=["*", *(f"!{path}" for path in [*PHI_IMAGE_CONTEXT, f"functions/{function_name}"]),
                     "**/__pycache__"],
        )

    def _acknowledge_invocation_model(self, function: lambda_.Function, spec: FunctionSpec) -> None:
        if reserved_concurrency(spec, self._config) is None:
            acknowledge(
                function,
                (
                    "HIPAA.Security-LambdaConcurrency",
                    f"{self._config.name}: on the request path (API Gateway throttling bounds it) or a custom "
                    "resource; the ingestion functions reserve theirs (functions.ingest_reserved_concurrency).",
                ),
            )
        if spec.name in SWEPT_FUNCTIONS:
            acknowledge(
                function,
                (
                    "HIPAA.Security-LambdaDLQ",
                    "An upload's event that fails every retry is not kept: a dead-letter queue would hold its "
                    "raw object key (a file name that may be PHI) for 14 days. The bucket is the queue: the "
                    "ingest reconciler's sweep of incoming/ starts every upload without an idempotency record "
                    "(ingest/upload_sweep.py, decision 0028); AsyncEventsDropped raises an alarm.",
                ),
            )
        elif spec.name not in ASYNC_FUNCTIONS:
            acknowledge(
                function,
                (
                    "HIPAA.Security-LambdaDLQ",
                    "Invoked synchronously (API Gateway or Step Functions): failures return to "
                    "the caller, which retries or records them; a DLQ would never receive one.",
                ),
            )


def has_internet_egress(spec: FunctionSpec, config: EnvironmentConfig) -> bool:
    """The catalogue's outside callers, and the workspace tools' functions where the environment configures
    the workspace servers or web search (the DNS firewall allows only their hosts)."""
    workspace = config.workspace.enabled or config.web_search.enabled
    return spec.internet_egress or (spec.runs_workspace_tools and workspace)


def reserved_concurrency(spec: FunctionSpec, config: EnvironmentConfig) -> int | None:
    if spec.name.startswith("ingest_") and config.functions.ingest_reserved_concurrency is not None:
        return config.functions.ingest_reserved_concurrency
    return config.functions.reserved_concurrency


# The PHI container functions on the query path, kept warm where the environment asks for it (classify, rank and
# tools: the image since they run spaCy's parse readings, voiceassist/english_pipeline.py).
WARM_PHI_FUNCTIONS: frozenset[str] = frozenset({"query_detect_phi", "query_classify", "query_rank", "query_generate",
                                                "query_tools", "query_assemble"})
# Functions invoked asynchronously (by EventBridge) whose events name nothing private: each gets a dead-letter queue.
ASYNC_FUNCTIONS: frozenset[str] = frozenset({"ingest_reconcile"})
# Invoked asynchronously with events that name an upload's raw key: no dead-letter queue (decision 0028); an event
# that fails every retry is dropped, and the reconciler's sweep of incoming/ starts its upload.
SWEPT_FUNCTIONS: frozenset[str] = frozenset({"ingest_trigger"})
