"""One validated Settings model, read from the environment once.

The env var names are constants: infra (CDK) imports them so a function's environment and this parser can
never drift apart. This is the only module that reads os.environ.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from voiceassist.constants.environment import (  # noqa: F401 - re-exported for the domain
    ENV_ALERTS_TOPIC_ARN,
    ENV_AUDIT_ANCHOR_BUCKET,
    ENV_AUDIT_TABLE,
    ENV_BEDROCK_MODEL_ID,
    ENV_BILLING_TABLE,
    ENV_BM25_WEIGHT,
    ENV_CHUNK_OVERLAP,
    ENV_CHUNK_TOKENS,
    ENV_CRITIC_MIN_GROUNDING,
    ENV_DATA_DIR,
    ENV_DATA_KEY_ID,
    ENV_DOCUMENTS_BUCKET,
    ENV_DOCUMENTS_TABLE,
    ENV_EMBEDDING_ENDPOINT,
    ENV_EMBEDDING_PRECISION,
    ENV_ENVIRONMENT,
    ENV_EVIDENCE_THRESHOLD,
    ENV_FUSION,
    ENV_IDEMPOTENCY_TABLE,
    ENV_IN_BOUNDARY_ALTERNATES,
    ENV_IN_BOUNDARY_PROVIDER,
    ENV_INGEST_STATE_MACHINE_ARN,
    ENV_JOB_LEASE_SECONDS,
    ENV_JOBS_TABLE,
    ENV_LOCAL_CHAT_BASE_URL,
    ENV_LOCAL_CHAT_MODEL,
    ENV_LOCAL_GROUPS,
    ENV_LOCAL_TOKEN,
    ENV_LOG_LEVEL,
    ENV_MAX_INGESTION_BACKLOG,
    ENV_MAX_PAGES,
    ENV_MAX_UPLOAD_BYTES,
    ENV_OCR_LANGUAGES,
    ENV_OCR_LOW_CONFIDENCE,
    ENV_OCR_MAX_WAIT_SECONDS,
    ENV_OCR_PAGE_SECONDS,
    ENV_OCR_POLL_SECONDS,
    ENV_OFFER_TOOLS,
    ENV_OPENAI_API_KEY,
    ENV_OPENAI_BASE_URL,
    ENV_OPENAI_MODEL,
    ENV_OPENAI_SECRET_ARN,
    ENV_OPENSEARCH_ENDPOINT,
    ENV_OPENSEARCH_INDEX,
    ENV_OPENSEARCH_PIPELINE,
    ENV_PHI_DETECTOR,
    ENV_PHI_DETECTOR_FUNCTION,
    ENV_PHI_MODE,
    ENV_PHI_TIMEOUT_S,
    ENV_PHI_WORKER_PROCESS,
    ENV_POLLY_ENGINE,
    ENV_POLLY_VOICE,
    ENV_PUBMED_API_KEY,
    ENV_PUBMED_BASE_URL,
    ENV_PUBMED_BUDGET_SECONDS,
    ENV_PUBMED_EMAIL,
    ENV_PUBMED_REQUESTS_PER_SECOND,
    ENV_PUBMED_SECRET_ARN,
    ENV_QUERY_STATE_MACHINE_ARN,
    ENV_REGION,
    ENV_RELAXED_EVIDENCE_THRESHOLD,
    ENV_RERANKER,
    ENV_ROUTING_MODE,
    ENV_RUNTIME,
    ENV_SAGEMAKER_ENDPOINT,
    ENV_SERVICE_NAME,
    ENV_SESSIONS_TABLE,
    ENV_STATE_TABLE,
    ENV_SUMMARY_TIMEOUT_S,
    ENV_TIKTOKEN_CACHE_DIR,
    ENV_TOOL_RUNNER_FUNCTION,
    ENV_TRANSCRIBE_SPECIALTY,
    ENV_TRANSCRIBE_TYPE,
    ENV_TRANSCRIBE_VOCABULARY,
    ENV_USER_POOL_CLIENT_ID,
    ENV_USER_POOL_ID,
    ENV_VOICE_BUCKET,
    ENV_VOICE_PHI_DOUBT,
    ENV_VOICE_VOCABULARY_TERMS,
    ENV_WEB_SEARCH_API_KEY,
    ENV_WEB_SEARCH_BASE_URL,
    ENV_WEB_SEARCH_SECRET_ARN,
    ENV_WORKSPACE_ACCOUNTS_FILE,
    ENV_WORKSPACE_SECRET_PREFIX,
    InBoundaryProvider,
    PhiDetectorKind,
    PhiMode,
    Runtime,
)
from voiceassist.errors import InvalidInput
from voiceassist.models import FusionMethod, RoutingMode

PACKAGE_DIR = Path(__file__).resolve().parent
TIKTOKEN_CACHE = PACKAGE_DIR / "_data" / "tiktoken_cache"

class Settings(BaseModel):
    """Everything a function or the local server needs to build its dependencies."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    runtime: Runtime = Runtime.LOCAL
    environment: str = "local"
    data_dir: Path = Path(".data")
    region: str = "us-east-1"
    log_level: str = "INFO"

    documents_bucket: str | None = None
    documents_table: str | None = None
    jobs_table: str | None = None
    sessions_table: str | None = None
    audit_table: str | None = None
    audit_anchor_bucket: str | None = None  # AWS: unset, verify checks the chain against its heads only
    idempotency_table: str | None = None
    state_table: str | None = None
    billing_table: str | None = None  # AWS: the cost ledger (locally it is in db_path)
    alerts_topic_arn: str | None = None  # AWS: the operators' SNS topic (locally, alerts are log lines)
    data_key_id: str | None = None  # AWS: the KMS key wrapping PHI fields' data keys (local: a key file)
    tool_runner_function: str | None = None  # AWS: api, mcp run the embedding tools there (tools/remote.py)
    phi_detector_function: str | None = None  # AWS: query_tools checks tool arguments there (no Presidio of its own)

    opensearch_endpoint: str | None = None
    opensearch_index: str = "voiceassist-chunks"
    opensearch_pipeline: str = "voiceassist-hybrid"

    ingest_state_machine_arn: str | None = None
    query_state_machine_arn: str | None = None

    openai_base_url: str | None = None
    openai_model: str = "gpt-4o-mini"
    openai_api_key: str | None = Field(default=None, repr=False)
    openai_secret_arn: str | None = None
    local_chat_base_url: str | None = None
    local_chat_model: str = "llama3.1:8b"
    sagemaker_endpoint: str | None = None
    embedding_endpoint: str | None = None
    # None: SageMaker when sagemaker_endpoint is set, else the OpenAI-compatible local server (if any).
    in_boundary_provider: InBoundaryProvider | None = None
    bedrock_model_id: str | None = None  # a model id or a system inference profile id
    # other endpoint names (SageMaker) or model ids (Bedrock) the admin configuration may choose, comma-separated
    in_boundary_alternates: str = ""

    routing_mode: RoutingMode = RoutingMode.HYBRID
    offer_tools: bool = True  # offer a model that takes tool calls the tools on every question (docs/tools.md)
    phi_mode: PhiMode = PhiMode.STRICT
    # one detection's time limit (phi/detection.py): past it the text fails closed; below the Detect PHI state's 10 s
    phi_timeout_s: float = Field(default=2.0, gt=0, le=9)
    phi_detector: PhiDetectorKind = PhiDetectorKind.PRESIDIO
    # Presidio in a worker process of its own (adapters/presidio/worker.py; the local runtime reads ahead with it)
    phi_worker_process: bool = False

    chunk_tokens: int = Field(default=200, ge=32, le=2000)
    chunk_overlap: int = Field(default=30, ge=0, le=500)
    fusion: FusionMethod = FusionMethod.MIN_MAX
    bm25_weight: float = Field(default=0.5, ge=0.0, le=1.0)  # evaluated: docs/benchmarks.md
    # the Rank Results step's reranker (query/rerank.py); default chosen on docs/search.md, "Learned reranking"
    reranker: Literal["identity", "lambdamart"] = "lambdamart"
    # int8: 0.66-0.70x the CPU of fp32, SciFact hybrid nDCG@10 0.733 vs 0.734 (docs/benchmarks.md). An index
    # remembers the precision it was built with and refuses queries embedded at the other one.
    embedding_precision: Literal["int8", "fp32"] = "int8"
    max_upload_bytes: int = Field(default=50 * 1024 * 1024, ge=1)
    pubmed_base_url: str | None = None
    pubmed_email: str | None = None
    pubmed_api_key: str | None = Field(default=None, repr=False)
    pubmed_secret_arn: str | None = None
    pubmed_requests_per_second: float | None = Field(default=None, gt=0, le=10)
    pubmed_budget_seconds: float = Field(default=4.0, gt=0, le=20)
    user_pool_id: str | None = None
    user_pool_client_id: str | None = None
    # Below this evidence score (query/evidence.py, 0..1) the answer is "no_evidence": evaluated in
    # docs/benchmarks.md, "Answers that know their limits".
    evidence_threshold: float = Field(default=0.55, ge=0.0, le=1.0)
    # The ladder's relaxed step (query/ladder.py): evidence at or above this, below evidence_threshold, answers
    # with a "weak evidence" warning; measured in docs/benchmarks.md. Equal to evidence_threshold: no relaxed step.
    relaxed_evidence_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    # The critic (query/critic.py): an answer with a smaller supported share of sentences is retried once one
    # step down the ladder, or withheld.
    critic_min_grounding: float = Field(default=0.5, ge=0.0, le=1.0)
    local_groups: str = "clinician"  # a clinician by default; admin rights when the operator asks
    local_token: str | None = Field(default=None, repr=False)
    job_lease_seconds: float = Field(default=300.0, gt=0)
    max_ingestion_backlog: int = Field(default=500, ge=1)
    max_pages: int = Field(default=2000, ge=1)
    ocr_page_seconds: float = Field(default=60.0, gt=0, le=600)
    ocr_low_confidence: float = Field(default=70.0, ge=0, le=100)
    ocr_poll_seconds: int = Field(default=10, ge=0, le=300)
    ocr_max_wait_seconds: int = Field(default=1800, ge=1, le=86400)
    ocr_languages: str = Field(default="eng", pattern=r"^[a-z_]+(\+[a-z_]+)*$")
    workspace_accounts_file: Path | None = None
    workspace_secret_prefix: str | None = None
    web_search_base_url: str | None = None
    web_search_api_key: str | None = Field(default=None, repr=False)
    web_search_secret_arn: str | None = None
    # The summary model's time-out (connect and read, each): the call must fit the invocation's time left.
    summary_timeout_s: float = Field(default=4.0, gt=0, le=10)
    # Voice (docs/decisions/0031): knowledge-base terms in Whisper's prompt; 0 turns it off. 60, measured with the
    # transcript repair: spoken sample questions answered, of those answered typed, 44.7 -> 65.8 % on dev+holdout,
    # 70.6 % on holdout2 (bench/voice_answers.py --vocabulary none|kb+repair, docs/benchmarks.md "Voice"; as of
    # 3c51cd0, 74.5 % on holdout2-4 read by espeak-ng, 81.8 % by Piper's joe voice);
    # its "EGFR-40" for a spoken "eGFR 40" is repaired (speech/repair.py, tests/integration/test_voice_query.py).
    voice_vocabulary_terms: int = Field(default=60, ge=0, le=200)
    # A spoken question whose transcript has words heard unsure where PHI sits (QueryRequest.phi_unsure_words) is
    # routed as PHI (docs/phi.md "Spoken questions", decision 0031); false leaves it to the detector alone.
    voice_phi_doubt: bool = True
    voice_bucket: str | None = None  # AWS: Transcribe Medical's transient input and output (SSE-KMS, deleted)
    transcribe_specialty: Literal["PRIMARYCARE"] = "PRIMARYCARE"  # the only specialty of batch medical jobs
    transcribe_type: Literal["DICTATION", "CONVERSATION"] = "DICTATION"
    transcribe_vocabulary: str | None = Field(default=None, pattern=r"^[0-9a-zA-Z._-]{1,200}$")
    polly_voice: str = Field(default="Joanna", pattern=r"^[A-Za-z]{2,20}$")
    polly_engine: Literal["standard", "neural"] = "neural"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "voiceassist.sqlite3"

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    @property
    def index_path(self) -> Path:
        return self.data_dir / "index.sqlite3"


_FIELD_BY_ENV: dict[str, str] = {
    ENV_RUNTIME: "runtime",
    ENV_ENVIRONMENT: "environment",
    ENV_DATA_DIR: "data_dir",
    ENV_REGION: "region",
    ENV_LOG_LEVEL: "log_level",
    ENV_DOCUMENTS_BUCKET: "documents_bucket",
    ENV_DOCUMENTS_TABLE: "documents_table",
    ENV_JOBS_TABLE: "jobs_table",
    ENV_SESSIONS_TABLE: "sessions_table",
    ENV_AUDIT_TABLE: "audit_table",
    ENV_AUDIT_ANCHOR_BUCKET: "audit_anchor_bucket",
    ENV_IDEMPOTENCY_TABLE: "idempotency_table",
    ENV_STATE_TABLE: "state_table",
    ENV_BILLING_TABLE: "billing_table",
    ENV_ALERTS_TOPIC_ARN: "alerts_topic_arn",
    ENV_OPENSEARCH_ENDPOINT: "opensearch_endpoint",
    ENV_OPENSEARCH_INDEX: "opensearch_index",
    ENV_OPENSEARCH_PIPELINE: "opensearch_pipeline",
    ENV_INGEST_STATE_MACHINE_ARN: "ingest_state_machine_arn",
    ENV_QUERY_STATE_MACHINE_ARN: "query_state_machine_arn",
    ENV_OPENAI_BASE_URL: "openai_base_url",
    ENV_OPENAI_MODEL: "openai_model",
    ENV_OPENAI_API_KEY: "openai_api_key",
    ENV_OPENAI_SECRET_ARN: "openai_secret_arn",
    ENV_LOCAL_CHAT_BASE_URL: "local_chat_base_url",
    ENV_LOCAL_CHAT_MODEL: "local_chat_model",
    ENV_SAGEMAKER_ENDPOINT: "sagemaker_endpoint",
    ENV_EMBEDDING_ENDPOINT: "embedding_endpoint",
    ENV_ROUTING_MODE: "routing_mode",
    ENV_PHI_MODE: "phi_mode",
    ENV_PHI_TIMEOUT_S: "phi_timeout_s",
    ENV_PHI_DETECTOR: "phi_detector",
    ENV_PHI_WORKER_PROCESS: "phi_worker_process",
    ENV_CHUNK_TOKENS: "chunk_tokens",
    ENV_CHUNK_OVERLAP: "chunk_overlap",
    ENV_FUSION: "fusion",
    ENV_BM25_WEIGHT: "bm25_weight",
    ENV_RERANKER: "reranker",
    ENV_EVIDENCE_THRESHOLD: "evidence_threshold",
    ENV_RELAXED_EVIDENCE_THRESHOLD: "relaxed_evidence_threshold",
    ENV_CRITIC_MIN_GROUNDING: "critic_min_grounding",
    ENV_EMBEDDING_PRECISION: "embedding_precision",
    ENV_MAX_UPLOAD_BYTES: "max_upload_bytes",
    ENV_PUBMED_BASE_URL: "pubmed_base_url",
    ENV_PUBMED_EMAIL: "pubmed_email",
    ENV_PUBMED_API_KEY: "pubmed_api_key",
    ENV_PUBMED_SECRET_ARN: "pubmed_secret_arn",
    ENV_PUBMED_REQUESTS_PER_SECOND: "pubmed_requests_per_second",
    ENV_PUBMED_BUDGET_SECONDS: "pubmed_budget_seconds",
    ENV_USER_POOL_ID: "user_pool_id",
    ENV_USER_POOL_CLIENT_ID: "user_pool_client_id",
    ENV_LOCAL_GROUPS: "local_groups",
    ENV_LOCAL_TOKEN: "local_token",
    ENV_JOB_LEASE_SECONDS: "job_lease_seconds",
    ENV_MAX_INGESTION_BACKLOG: "max_ingestion_backlog",
    ENV_MAX_PAGES: "max_pages",
    ENV_OCR_PAGE_SECONDS: "ocr_page_seconds",
    ENV_OCR_LOW_CONFIDENCE: "ocr_low_confidence",
    ENV_OCR_POLL_SECONDS: "ocr_poll_seconds",
    ENV_OCR_MAX_WAIT_SECONDS: "ocr_max_wait_seconds",
    ENV_OCR_LANGUAGES: "ocr_languages",
    ENV_WORKSPACE_ACCOUNTS_FILE: "workspace_accounts_file",
    ENV_WORKSPACE_SECRET_PREFIX: "workspace_secret_prefix",
    ENV_WEB_SEARCH_BASE_URL: "web_search_base_url",
    ENV_WEB_SEARCH_API_KEY: "web_search_api_key",
    ENV_WEB_SEARCH_SECRET_ARN: "web_search_secret_arn",
    ENV_DATA_KEY_ID: "data_key_id",
    ENV_IN_BOUNDARY_PROVIDER: "in_boundary_provider",
    ENV_BEDROCK_MODEL_ID: "bedrock_model_id",
    ENV_IN_BOUNDARY_ALTERNATES: "in_boundary_alternates",
    ENV_TOOL_RUNNER_FUNCTION: "tool_runner_function",
    ENV_PHI_DETECTOR_FUNCTION: "phi_detector_function",
    ENV_OFFER_TOOLS: "offer_tools",
    ENV_SUMMARY_TIMEOUT_S: "summary_timeout_s",
    ENV_VOICE_VOCABULARY_TERMS: "voice_vocabulary_terms",
    ENV_VOICE_PHI_DOUBT: "voice_phi_doubt",
    ENV_VOICE_BUCKET: "voice_bucket",
    ENV_TRANSCRIBE_SPECIALTY: "transcribe_specialty",
    ENV_TRANSCRIBE_TYPE: "transcribe_type",
    ENV_TRANSCRIBE_VOCABULARY: "transcribe_vocabulary",
    ENV_POLLY_VOICE: "polly_voice",
    ENV_POLLY_ENGINE: "polly_engine",
}

# The settings every deployed function needs (infra asserts each function's environment carries them).
AWS_REQUIRED_ENV: tuple[str, ...] = (
    ENV_RUNTIME,
    ENV_ENVIRONMENT,
    ENV_DOCUMENTS_BUCKET,
    ENV_DOCUMENTS_TABLE,
    ENV_JOBS_TABLE,
    ENV_SESSIONS_TABLE,
    ENV_AUDIT_TABLE,
    ENV_STATE_TABLE,
    ENV_OPENSEARCH_ENDPOINT,
    ENV_OPENSEARCH_INDEX,
    ENV_OPENSEARCH_PIPELINE,
)


def settings_from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """Parse the environment into Settings; a bad value is an InvalidInput naming the variable."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {
        field: env[name] for name, field in _FIELD_BY_ENV.items() if env.get(name) not in (None, "")
    }
    try:
        settings = Settings(**values)
    except ValidationError as exc:
        names = {field: name for name, field in _FIELD_BY_ENV.items()}
        problems = "; ".join(
            f"{names.get(str(err['loc'][0]), err['loc'][0])}: {err['msg']}" for err in exc.errors()
        )
        raise InvalidInput(f"invalid configuration: {problems}") from exc
    needs = {InBoundaryProvider.BEDROCK: (settings.bedrock_model_id, ENV_BEDROCK_MODEL_ID),
             InBoundaryProvider.SAGEMAKER: (settings.sagemaker_endpoint, ENV_SAGEMAKER_ENDPOINT)}
    if settings.in_boundary_provider is not None and not needs[settings.in_boundary_provider][0]:
        provider, name = settings.in_boundary_provider.value, needs[settings.in_boundary_provider][1]
        raise InvalidInput(f"invalid configuration: {ENV_IN_BOUNDARY_PROVIDER}={provider} needs {name}")
    if settings.runtime is Runtime.AWS:
        missing = [n for n in AWS_REQUIRED_ENV if not env.get(n)]
        if missing:
            raise InvalidInput(f"invalid configuration: the aws runtime needs {', '.join(missing)}")
    return settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, parsed once per cold start."""
    return settings_from_env()


def configure_tiktoken_cache(environ: dict[str, str] | None = None) -> None:
    """Point tiktoken at the encoding files shipped in this package, so it never downloads them."""
    env = os.environ if environ is None else environ
    env.setdefault(ENV_TIKTOKEN_CACHE_DIR, str(TIKTOKEN_CACHE))
