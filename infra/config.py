"""Typed per-environment configuration, read from cdk.json context (`-c env=dev|staging|prod`).

cdk.json holds one block per environment under the context key `voiceassist`; this module validates it
into frozen models so a typo in an instance type or a missing e-mail fails at synth, not at deploy.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from voiceassist.constants.environment import InBoundaryProvider, PhiDetectorKind, PhiMode, RoutingMode

REPO_ROOT = Path(__file__).resolve().parent.parent
CONTEXT_KEY = "voiceassist"
ENVIRONMENT_NAMES: tuple[str, ...] = ("dev", "staging", "prod")

EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
NCBI_EUTILS_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
BRAVE_SEARCH_URL = "https://api.search.brave.com"

# CloudWatch Logs accepts only these retention periods (days).
LOG_RETENTION_DAYS: frozenset[int] = frozenset(
    {1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}
)


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RemovalChoice(StrEnum):
    """What CloudFormation does with stateful resources when the stack or resource goes away."""

    RETAIN = "retain"
    DESTROY = "destroy"


class NetworkConfig(_Frozen):
    cidr: str = "10.40.0.0/16"
    # Explicit zones keep synth offline: a zone lookup would need AWS credentials.
    availability_zones: tuple[str, ...] = Field(min_length=2, max_length=3)
    nat_gateways: int = Field(default=1, ge=1, le=3)
    # The region's S3 prefix list (com.amazonaws.<region>.s3): the gateway endpoint's addresses, which the
    # network-isolated SageMaker containers reach for their weights. `make preflight` checks it against AWS.
    s3_prefix_list_id: str = Field(pattern=r"^pl-[0-9a-f]{8,17}$")
    # The region's DynamoDB prefix list: functions without internet egress reach DynamoDB through its gateway.
    dynamodb_prefix_list_id: str = Field(pattern=r"^pl-[0-9a-f]{8,17}$")
    # The zones that hold an interface endpoint's network interfaces (the first N of availability_zones; None:
    # all). Private DNS answers with every interface, so a function in another zone still reaches it (across
    # zones): fewer zones trade the endpoints' zone redundancy for $7.30 a month per endpoint and zone.
    endpoint_zones: int | None = Field(default=None, ge=1, le=3)


class SearchConfig(_Frozen):
    engine_version: str = "OpenSearch_2.19"
    data_node_type: str = "r7g.large.search"
    data_node_count: int = Field(default=2, ge=1)
    master_node_type: str | None = None
    master_node_count: int = Field(default=0, ge=0)
    volume_gb: int = Field(default=50, ge=10)
    zone_awareness: bool = False
    index_alias: str = "voiceassist-chunks"
    pipeline_name: str = "voiceassist-hybrid"
    embedding_dimension: int = Field(default=384, ge=8)

    @model_validator(mode="after")
    def _masters_come_in_threes(self) -> SearchConfig:
        if self.master_node_count not in (0, 3, 5):
            raise ValueError("master_node_count must be 0, 3 or 5 (a quorum)")
        if self.master_node_count and not self.master_node_type:
            raise ValueError("master_node_type is required when master_node_count > 0")
        return self


class ScaleDownSchedule(_Frozen):
    """Off-hours capacity for the LLM endpoint (UTC cron, as Application Auto Scaling reads it)."""

    scale_down_cron: str = "cron(0 20 ? * MON-FRI *)"
    scale_up_cron: str = "cron(0 6 ? * MON-FRI *)"
    # A real-time variant cannot go below one instance; stopping fully means removing the Models stack.
    # It must be below the working-hours minimum, or the schedule would change nothing (LlmConfig checks).
    off_hours_capacity: int = Field(default=1, ge=1)


# System-defined cross-Region inference profiles start with their geography (us.meta.llama3-1-8b-...).
INFERENCE_PROFILE_GEOGRAPHIES = ("us.", "eu.", "apac.", "us-gov.", "ca.", "jp.", "au.")


BEDROCK_MODEL_ID = r"^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?$"
SAGEMAKER_ENDPOINT_NAME = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"


def is_inference_profile(model_id: str) -> bool:
    return model_id.startswith(INFERENCE_PROFILE_GEOGRAPHIES)


def foundation_model_id(model_id: str) -> str:
    return model_id.split(".", 1)[1] if is_inference_profile(model_id) else model_id


class BedrockModelConfig(_Frozen):
    """Llama on Amazon Bedrock (decision 0016): a foundation model id, or a system cross-Region inference
    profile id with the Regions it may route to (IAM must allow the model in each; `make preflight` compares
    them with the profile AWS describes)."""

    model_id: str = Field(default="us.meta.llama3-1-8b-instruct-v1:0", pattern=BEDROCK_MODEL_ID)
    destination_regions: tuple[str, ...] = ("us-east-1", "us-east-2", "us-west-2")
    # Other model ids an admin may switch the in-boundary route to (/v1/admin/config models.in_boundary.model):
    # each is granted like model_id (an inference profile with the same destination_regions).
    alternates: tuple[Annotated[str, Field(pattern=BEDROCK_MODEL_ID)], ...] = ()

    @property
    def is_inference_profile(self) -> bool:
        return is_inference_profile(self.model_id)

    @property
    def foundation_model_id(self) -> str:
        """meta.llama3-1-8b-instruct-v1:0 for the model id and for its inference profile alike."""
        return foundation_model_id(self.model_id)

    @property
    def model_ids(self) -> tuple[str, ...]:
        """The model id and its alternates: every model the functions may invoke."""
        return tuple(dict.fromkeys((self.model_id, *self.alternates)))

    @model_validator(mode="after")
    def _profile_regions(self) -> BedrockModelConfig:
        if self.is_inference_profile and not self.destination_regions:
            raise ValueError("an inference profile needs destination_regions (the Regions it routes to)")
        return self


class LlmConfig(_Frozen):
    """The in-boundary Llama: a SageMaker endpoint in the VPC (the Models stack) or Amazon Bedrock."""

    enabled: bool = True
    provider: InBoundaryProvider = InBoundaryProvider.SAGEMAKER
    bedrock: BedrockModelConfig = BedrockModelConfig()
    instance_type: str = "ml.g5.2xlarge"
    image_uri: str = ""  # the LMI (vLLM) image: required on SageMaker
    # Uncompressed weights under this prefix of the model-artifacts bucket (docs/operations.md).
    model_data_prefix: str = Field(default="llama-3.1-8b-instruct/", pattern=r"^[A-Za-z0-9._\-/]+/$")
    served_model_name: str = "llama-3.1-8b-instruct"
    # Other SageMaker endpoints (made outside this stack) an admin may switch the in-boundary route to
    # (/v1/admin/config models.in_boundary.model); the functions may invoke each.
    alternate_endpoints: tuple[Annotated[str, Field(pattern=SAGEMAKER_ENDPOINT_NAME)], ...] = ()
    # vLLM's tool-call parser for the served model (LMI OPTION_TOOL_CALL_PARSER): every question offers the model
    # tools (docs/tools.md), and vLLM refuses a request with tools unless auto tool choice and a parser are set.
    tool_call_parser: str = "llama3_json"
    min_capacity: int = Field(default=1, ge=1)
    max_capacity: int = Field(default=1, ge=1)
    invocations_per_instance: int = Field(default=30, ge=1)
    scale_down: ScaleDownSchedule | None = None

    @property
    def on_sagemaker(self) -> bool:
        """A SageMaker endpoint, its weights and GPU quota are needed (the Models stack)."""
        return self.enabled and self.provider is InBoundaryProvider.SAGEMAKER

    @property
    def on_bedrock(self) -> bool:
        return self.enabled and self.provider is InBoundaryProvider.BEDROCK

    @model_validator(mode="after")
    def _capacity_range(self) -> LlmConfig:
        if self.on_sagemaker and not self.image_uri:
            raise ValueError("an llm on sagemaker needs image_uri (the LMI image)")
        if self.scale_down is not None and not self.on_sagemaker:
            raise ValueError("scale_down schedules a SageMaker endpoint: remove it where the provider is bedrock")
        if self.max_capacity < self.min_capacity:
            raise ValueError("max_capacity must be at least min_capacity")
        if self.scale_down is not None and self.scale_down.off_hours_capacity >= self.min_capacity:
            raise ValueError(
                "scale_down.off_hours_capacity must be below min_capacity (otherwise nothing scales down); "
                "remove scale_down, or remove the Models stack off hours"
            )
        return self


class EmbeddingEndpointConfig(_Frozen):
    """An optional in-boundary SageMaker embedder; when disabled the ONNX model runs inside the Lambdas."""

    enabled: bool = False
    instance_type: str = "ml.c7g.large"
    image_uri: str = ""
    model_data_prefix: str = Field(default="all-minilm-l6-v2/", pattern=r"^[A-Za-z0-9._\-/]+/$")

    @model_validator(mode="after")
    def _complete_when_enabled(self) -> EmbeddingEndpointConfig:
        if self.enabled and not self.image_uri:
            raise ValueError("an enabled embedding endpoint needs image_uri")
        return self


class RetentionConfig(_Frozen):
    log_days: int = 365
    access_log_days: int = Field(default=365, ge=1)
    noncurrent_document_days: int = Field(default=90, ge=1)
    # The audit chain's anchors are locked this long (Object Lock): HIPAA keeps documentation six years
    audit_anchor_days: int = Field(default=2192, ge=1)

    @field_validator("log_days")
    @classmethod
    def _valid_log_retention(cls, days: int) -> int:
        if days not in LOG_RETENTION_DAYS:
            raise ValueError(f"log_days must be one of {sorted(LOG_RETENTION_DAYS)}")
        return days


class ApiConfig(_Frozen):
    throttle_rate_limit: int = Field(default=20, ge=1)
    throttle_burst_limit: int = Field(default=40, ge=1)
    waf_requests_per_5_minutes: int = Field(default=1000, ge=100)
    # Browser origins allowed by CORS: the web client's domain, and localhost in dev.
    cors_origins: tuple[str, ...] = Field(min_length=1)
    # An app client with the admin password flow, for `make smoke` (never in prod).
    smoke_test_client: bool = False

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, origins: tuple[str, ...]) -> tuple[str, ...]:
        for origin in origins:
            local = origin.startswith(("http://localhost", "http://127.0.0.1"))
            if not (origin.startswith("https://") or local) or origin.endswith("/") or origin == "*":
                raise ValueError(f"cors origin {origin!r}: https://host[:port] (or http://localhost:port), no path")
        return origins


class FunctionsConfig(_Frozen):
    memory_mb: int = Field(default=1024, ge=128, le=10240)
    timeout_seconds: int = Field(default=60, ge=3, le=900)
    log_level: str = "INFO"
    # None leaves functions on the account's unreserved pool (new accounts have too little to reserve).
    reserved_concurrency: int | None = Field(default=None, ge=1)
    # Each ingestion function's reserved concurrency: a bulk upload cannot starve the query path of the account
    # pool, nor flood OpenSearch with bulk requests (throttled steps are retried by the workflow).
    ingest_reserved_concurrency: int | None = Field(default=None, ge=1, le=100)
    # Warm instances of each PHI container function on the query path (detect, generate, assemble): a cold
    # ~1 GB image costs seconds of the 29 s API budget. 0 = none (pay per use only).
    phi_provisioned_concurrency: int = Field(default=0, ge=0, le=50)

    @field_validator("log_level")
    @classmethod
    def _no_debug(cls, level: str) -> str:
        # DEBUG logs carry request details: never in an environment that may hold real data (any of ours).
        if level.upper() not in ("INFO", "WARNING", "ERROR"):
            raise ValueError("log_level must be INFO, WARNING or ERROR (DEBUG may log PHI)")
        return level.upper()


class PubMedConfig(_Frozen):
    """PubMed (NCBI E-utilities), searched by query_retrieve over HTTPS through the NAT gateways.

    Off unless enabled: it is the one source outside the PHI boundary (only PHI-free questions reach it,
    decision 0003), so turning it on is a per-environment choice. The NCBI API key is a secret whose value
    operators put after deploy (docs/operations.md, "PubMed").
    """

    enabled: bool = False
    base_url: str = Field(default=NCBI_EUTILS_URL, pattern=r"^https://\S+[^/]$")
    # NCBI asks every E-utilities client for the operator's contact address (never an end user's).
    email: str | None = Field(default=None, pattern=EMAIL_PATTERN)
    # None: NCBI's limit (10/s with a key). The limit is per warm container, not per account.
    requests_per_second: float | None = Field(default=None, gt=0, le=10)
    # One PubMed search, retries included; the workflow stops it at budget + 2 s, inside query_retrieve's 30 s.
    budget_seconds: float = Field(default=4.0, gt=0, le=20)

    @model_validator(mode="after")
    def _contact_when_enabled(self) -> PubMedConfig:
        if self.enabled and not self.email:
            raise ValueError("an enabled pubmed needs email (NCBI's contact address for this deployment)")
        return self


class WorkspaceConfig(_Frozen):
    """The clinicians' calendar (CalDAV) and files (WebDAV, Nextcloud) servers (docs/tools.md "Workspace").

    Each person's account (their collection URLs and app password) is one Secrets Manager secret named
    `<account_secret_prefix><user id>`, put by operators; the URLs here are the servers those accounts may point
    at: the DNS firewall resolves only their hosts, so an account elsewhere cannot be reached.
    """

    enabled: bool = False
    calendar_url: str | None = Field(default=None, pattern=r"^https://[^/\s]+(/\S*)?$")
    files_url: str | None = Field(default=None, pattern=r"^https://[^/\s]+(/\S*)?$")
    account_secret_prefix: str | None = Field(default=None, pattern=r"^[A-Za-z0-9/_+=.@-]+/$")

    @model_validator(mode="after")
    def _complete_when_enabled(self) -> WorkspaceConfig:
        if self.enabled and not (self.account_secret_prefix and (self.calendar_url or self.files_url)):
            raise ValueError("an enabled workspace needs account_secret_prefix and calendar_url or files_url")
        return self

    @property
    def hosts(self) -> list[str]:
        urls = (self.calendar_url, self.files_url) if self.enabled else ()
        return sorted({str(urlsplit(url).hostname) for url in urls if url})


class WebSearchConfig(_Frozen):
    """web_search through a Brave Search API endpoint; its key is a secret operators put after deploy. It is
    outside the boundary (PHI-free queries only), so, like PubMed, a per-environment choice."""

    enabled: bool = False
    base_url: str = Field(default=BRAVE_SEARCH_URL, pattern=r"^https://[^/\s]+$")

    @property
    def hosts(self) -> list[str]:
        return [str(urlsplit(self.base_url).hostname)] if self.enabled else []


class VoiceConfig(_Frozen):
    """Speech on AWS (docs/decisions/0031): Amazon Transcribe Medical batch jobs and Amazon Polly, reached through
    interface endpoints. `transcribe_vocabulary` names a Transcribe Medical custom vocabulary operators create
    from the knowledge base's terms (voiceassist.speech.vocabulary); unset: none."""

    transcribe_type: Literal["DICTATION", "CONVERSATION"] = "DICTATION"
    transcribe_vocabulary: str | None = Field(default=None, pattern=r"^[0-9a-zA-Z._-]{1,200}$")
    polly_voice: str = Field(default="Joanna", pattern=r"^[A-Za-z]{2,20}$")
    polly_engine: Literal["standard", "neural"] = "neural"


class EnvironmentConfig(_Frozen):
    name: str
    account: str = Field(pattern=r"^\d{12}$")
    region: str
    alarm_email: str = Field(pattern=EMAIL_PATTERN)
    removal: RemovalChoice = RemovalChoice.RETAIN
    deletion_protection: bool = True
    routing_mode: RoutingMode = RoutingMode.HYBRID
    phi_mode: PhiMode = PhiMode.STRICT
    # Which PHI detector the functions run (docs/phi.md "Detectors"); comprehend_medical and both add the IAM
    # grant and a comprehendmedical interface endpoint.
    phi_detector: PhiDetectorKind = PhiDetectorKind.PRESIDIO
    openai_model: str = "gpt-4o-mini"
    network: NetworkConfig
    search: SearchConfig = SearchConfig()
    llm: LlmConfig
    embedding: EmbeddingEndpointConfig = EmbeddingEndpointConfig()
    pubmed: PubMedConfig = PubMedConfig()
    workspace: WorkspaceConfig = WorkspaceConfig()
    voice: VoiceConfig = VoiceConfig()
    web_search: WebSearchConfig = WebSearchConfig()
    retention: RetentionConfig = RetentionConfig()
    api: ApiConfig
    functions: FunctionsConfig = FunctionsConfig()

    @model_validator(mode="after")
    def _zones_match_search_layout(self) -> EnvironmentConfig:
        if self.search.zone_awareness:
            # CreateDomain: the data nodes spread evenly over the zones (a 3-AZ domain needs 3, 6, ... nodes).
            zones = len(self.network.availability_zones)
            if self.search.data_node_count < zones or self.search.data_node_count % zones:
                raise ValueError(
                    f"search.data_node_count ({self.search.data_node_count}) must be at least the number of "
                    f"availability_zones ({zones}) and a multiple of it when zone_awareness is on"
                )
        if self.name == "prod" and self.api.smoke_test_client:
            raise ValueError("api.smoke_test_client is for dev and staging: prod keeps SRP sign-in only")
        if self.name == "prod" and any("localhost" in o or "127.0.0.1" in o for o in self.api.cors_origins):
            raise ValueError("prod's api.cors_origins must not allow localhost")
        if self.pubmed.enabled and self.routing_mode is RoutingMode.LOCAL_ONLY:
            # The pipeline never leaves the boundary in local-only mode: the key and grant would sit unused.
            raise ValueError("pubmed.enabled needs a routing_mode other than local-only")
        prefix = self.workspace.account_secret_prefix
        if self.workspace.enabled and not str(prefix).startswith(f"{self.prefix}/workspace/"):
            # the IAM grant is a wildcard under it (infra/nag.py allows only this shape)
            raise ValueError(f"workspace.account_secret_prefix must start with {self.prefix}/workspace/")
        if self.web_search.enabled and self.routing_mode is RoutingMode.LOCAL_ONLY:
            raise ValueError("web_search.enabled needs a routing_mode other than local-only")
        if self.web_search.enabled and self.phi_detector is not PhiDetectorKind.COMPREHEND_MEDICAL:
            # api and mcp ship no Presidio (it needs the container image): with it in the detector, the tool's
            # PHI check fails closed and every web search would be refused
            raise ValueError("web_search.enabled needs phi_detector comprehend_medical (the tool functions ship "
                             "no Presidio, so any other detector refuses every web search)")
        return self

    @property
    def prefix(self) -> str:
        """Resource-name prefix, e.g. `voiceassist-dev`."""
        return f"voiceassist-{self.name}"

    @property
    def model_artifacts_bucket_name(self) -> str:
        return f"{self.prefix}-models-{self.account}-{self.region}"

    def endpoint_name(self, purpose: str) -> str:
        """SageMaker endpoint names are fixed so the main stack can reference them without exports."""
        return f"{self.prefix}-{purpose}"


class SourcePaths(_Frozen):
    """Where synth finds code; overridable with `-c functions_dir=...` etc. (tests point at fixtures)."""

    functions_dir: Path = REPO_ROOT / "functions"
    statemachines_dir: Path = REPO_ROOT / "statemachines"
    core_layer_dir: Path = REPO_ROOT / "layers" / "core"
    deps_layer_dir: Path = REPO_ROOT / "layers" / "deps" / "build" / "deps"
    ml_layer_dir: Path = REPO_ROOT / "layers" / "deps" / "build" / "ml"
    auth_layer_dir: Path = REPO_ROOT / "layers" / "deps" / "build" / "auth"
    mcp_layer_dir: Path = REPO_ROOT / "layers" / "deps" / "build" / "mcp"
    documents_layer_dir: Path = REPO_ROOT / "layers" / "deps" / "build" / "documents"
    workspace_layer_dir: Path = REPO_ROOT / "layers" / "deps" / "build" / "workspace"
    voice_layer_dir: Path = REPO_ROOT / "layers" / "deps" / "build" / "voice"
    phi_dockerfile_dir: Path = REPO_ROOT / "infra" / "images" / "phi"
    web_dir: Path = REPO_ROOT / "local" / "voiceassist_local" / "web"  # the web client's static files


def load_environment(context: dict[str, Any], name: str) -> EnvironmentConfig:
    """Validate one environment's block from the `voiceassist.environments` context."""
    environments = (context.get(CONTEXT_KEY) or {}).get("environments") or {}
    if name not in environments:
        raise ValueError(f"unknown environment {name!r}; cdk.json defines {sorted(environments)}")
    block = dict(environments[name])
    overrides = {key: context[key] for key in ("account", "region") if context.get(key)}
    return EnvironmentConfig(name=name, **{**block, **overrides})


def load_paths(context: dict[str, Any]) -> SourcePaths:
    overrides = {
        field: Path(str(context[field])).resolve() for field in SourcePaths.model_fields if context.get(field)
    }
    return SourcePaths(**overrides)
