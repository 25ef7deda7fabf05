"""Names shared by the domain and infra (CDK): environment variables, enums that configure a deployment,
metric names, prefixes and headers. Imports nothing heavy: infra imports only voiceassist.constants."""

from __future__ import annotations

from enum import StrEnum

# ---- environment variable names ----------------------------------------------
ENV_RUNTIME = "VOICEASSIST_RUNTIME"  # "local" (embedded adapters) or "aws"
ENV_ENVIRONMENT = "VOICEASSIST_ENV"  # dev | staging | prod | local
ENV_DATA_DIR = "VOICEASSIST_DATA_DIR"
ENV_LOG_LEVEL = "POWERTOOLS_LOG_LEVEL"
ENV_SERVICE_NAME = "POWERTOOLS_SERVICE_NAME"
ENV_REGION = "AWS_REGION"
ENV_DOCUMENTS_BUCKET = "VOICEASSIST_DOCUMENTS_BUCKET"
ENV_DOCUMENTS_TABLE = "VOICEASSIST_DOCUMENTS_TABLE"
ENV_JOBS_TABLE = "VOICEASSIST_JOBS_TABLE"
ENV_SESSIONS_TABLE = "VOICEASSIST_SESSIONS_TABLE"
ENV_AUDIT_TABLE = "VOICEASSIST_AUDIT_TABLE"
ENV_AUDIT_ANCHOR_BUCKET = "VOICEASSIST_AUDIT_ANCHOR_BUCKET"  # AWS: the audit chain's write-once anchors (Object Lock)
ENV_IDEMPOTENCY_TABLE = "VOICEASSIST_IDEMPOTENCY_TABLE"
ENV_STATE_TABLE = "VOICEASSIST_STATE_TABLE"  # circuit breakers, rate limits, the admin configuration
ENV_BILLING_TABLE = "VOICEASSIST_BILLING_TABLE"  # the cost ledger (voiceassist.admin)
ENV_ALERTS_TOPIC_ARN = "VOICEASSIST_ALERTS_TOPIC_ARN"  # the operators' SNS topic (cost alerts)
ENV_OPENSEARCH_ENDPOINT = "VOICEASSIST_OPENSEARCH_ENDPOINT"
ENV_OPENSEARCH_INDEX = "VOICEASSIST_OPENSEARCH_INDEX"  # the alias readers and writers use
ENV_OPENSEARCH_PIPELINE = "VOICEASSIST_OPENSEARCH_PIPELINE"
ENV_INGEST_STATE_MACHINE_ARN = "VOICEASSIST_INGEST_STATE_MACHINE_ARN"
ENV_QUERY_STATE_MACHINE_ARN = "VOICEASSIST_QUERY_STATE_MACHINE_ARN"
ENV_OPENAI_BASE_URL = "VOICEASSIST_OPENAI_BASE_URL"
ENV_OPENAI_MODEL = "VOICEASSIST_OPENAI_MODEL"
ENV_OPENAI_API_KEY = "VOICEASSIST_OPENAI_API_KEY"  # local runs only; on AWS the key comes from the secret
ENV_OPENAI_SECRET_ARN = "VOICEASSIST_OPENAI_SECRET_ARN"
ENV_LOCAL_CHAT_BASE_URL = "VOICEASSIST_LOCAL_CHAT_BASE_URL"  # in-boundary OpenAI-compatible server
ENV_LOCAL_CHAT_MODEL = "VOICEASSIST_LOCAL_CHAT_MODEL"
ENV_SAGEMAKER_ENDPOINT = "VOICEASSIST_SAGEMAKER_ENDPOINT"
ENV_EMBEDDING_ENDPOINT = "VOICEASSIST_EMBEDDING_ENDPOINT"  # optional in-boundary SageMaker embedder
ENV_ROUTING_MODE = "VOICEASSIST_ROUTING_MODE"
ENV_PHI_MODE = "VOICEASSIST_PHI_MODE"
ENV_CHUNK_TOKENS = "VOICEASSIST_CHUNK_TOKENS"
ENV_CHUNK_OVERLAP = "VOICEASSIST_CHUNK_OVERLAP"
ENV_FUSION = "VOICEASSIST_FUSION"
ENV_BM25_WEIGHT = "VOICEASSIST_BM25_WEIGHT"
ENV_RERANKER = "VOICEASSIST_RERANKER"
ENV_EVIDENCE_THRESHOLD = "VOICEASSIST_EVIDENCE_THRESHOLD"
ENV_RELAXED_EVIDENCE_THRESHOLD = "VOICEASSIST_RELAXED_EVIDENCE_THRESHOLD"
ENV_CRITIC_MIN_GROUNDING = "VOICEASSIST_CRITIC_MIN_GROUNDING"
ENV_EMBEDDING_PRECISION = "VOICEASSIST_EMBEDDING_PRECISION"
ENV_MAX_UPLOAD_BYTES = "VOICEASSIST_MAX_UPLOAD_BYTES"
ENV_PUBMED_BASE_URL = "VOICEASSIST_PUBMED_BASE_URL"  # unset: the pubmed source is not available
ENV_PUBMED_EMAIL = "VOICEASSIST_PUBMED_EMAIL"  # NCBI asks every E-utilities client for a contact address
ENV_PUBMED_API_KEY = "VOICEASSIST_PUBMED_API_KEY"  # local runs only; on AWS the key comes from the secret
ENV_PUBMED_SECRET_ARN = "VOICEASSIST_PUBMED_SECRET_ARN"
ENV_PUBMED_REQUESTS_PER_SECOND = "VOICEASSIST_PUBMED_REQUESTS_PER_SECOND"  # unset: NCBI's limit (3, 10 with a key)
ENV_PUBMED_BUDGET_SECONDS = "VOICEASSIST_PUBMED_BUDGET_SECONDS"  # one PubMed search, retries included
ENV_USER_POOL_ID = "VOICEASSIST_USER_POOL_ID"  # Cognito pool whose tokens the WebSocket authorizer accepts
ENV_USER_POOL_CLIENT_ID = "VOICEASSIST_USER_POOL_CLIENT_ID"  # the app client those tokens must be issued to
ENV_LOCAL_GROUPS = "VOICEASSIST_LOCAL_GROUPS"  # the local user's roles: "clinician" (default) or "admin,clinician"
ENV_LOCAL_TOKEN = "VOICEASSIST_LOCAL_TOKEN"  # required (as a Bearer token) when the local server leaves 127.0.0.1
ENV_JOB_LEASE_SECONDS = "VOICEASSIST_JOB_LEASE_SECONDS"  # a job silent for longer is stuck and re-driven
ENV_MAX_INGESTION_BACKLOG = "VOICEASSIST_MAX_INGESTION_BACKLOG"  # queued jobs before uploads get 429
ENV_TIKTOKEN_CACHE_DIR = "TIKTOKEN_CACHE_DIR"
ENV_MAX_PAGES = "VOICEASSIST_MAX_PAGES"  # pages per document (PDF); more fails the job as "too many pages"
ENV_OCR_PAGE_SECONDS = "VOICEASSIST_OCR_PAGE_SECONDS"  # local OCR (Tesseract) time limit per page
ENV_OCR_LOW_CONFIDENCE = "VOICEASSIST_OCR_LOW_CONFIDENCE"  # pages below this mean confidence (0-100) are flagged
ENV_OCR_POLL_SECONDS = "VOICEASSIST_OCR_POLL_SECONDS"  # Textract: wait between two status checks
ENV_OCR_MAX_WAIT_SECONDS = "VOICEASSIST_OCR_MAX_WAIT_SECONDS"  # Textract: give up after this long
ENV_OCR_LANGUAGES = "VOICEASSIST_OCR_LANGUAGES"  # Tesseract models, e.g. "eng+deu" (each a tesseract-ocr-* package)


class Runtime(StrEnum):
    LOCAL = "local"
    AWS = "aws"


class PhiMode(StrEnum):
    STRICT = "strict"
    LENIENT = "lenient"
    OFF = "off"


class RoutingMode(StrEnum):
    HYBRID = "hybrid"
    LOCAL_ONLY = "local-only"
    CLOUD_ONLY = "cloud-only"


# ---- observability -----------------------------------------------------------------------------------
SERVICE = "voiceassist"
METRICS_NAMESPACE = "VoiceAssist"
METRIC_CIRCUIT_BREAKER_OPENED = "CircuitBreakerOpened"
METRIC_PHI_DETECTOR_ERRORS = "PhiDetectorErrors"

# ---- storage and protocol names ----------------------------------------------------------------------
AUDIT_ANCHOR_PREFIX = "audit-anchors/"  # the audit chain's write-once anchors in their bucket (s3_audit_anchor.py)
INCOMING_PREFIX = "incoming/"  # S3 uploads under this prefix are ingested (the EventBridge rule's filter)
SUBPROTOCOL_HEADER = "Sec-WebSocket-Protocol"
# Browser origins the REST API answers with CORS headers (comma-separated; cdk.json api.cors_origins).
ENV_CORS_ORIGINS = "VOICEASSIST_CORS_ORIGINS"


# Which PHI detector(s) run (docs/phi.md, "Detectors"): the local Presidio engine, Amazon Comprehend Medical
# DetectPHI, or both (the union; either failing fails closed).
ENV_PHI_DETECTOR = "VOICEASSIST_PHI_DETECTOR"


# Presidio's detections in a worker process of their own (local runtime; adapters/presidio/worker.py): they then run
# beside the rest of a question (query/read_ahead.py) instead of taking turns with it for the GIL.
ENV_PHI_WORKER_PROCESS = "VOICEASSIST_PHI_WORKER_PROCESS"


class PhiDetectorKind(StrEnum):
    PRESIDIO = "presidio"
    COMPREHEND_MEDICAL = "comprehend_medical"
    BOTH = "both"


# ---- the workspace tools (tools/calendar.py, tools/files.py, tools/web_search.py; docs/tools.md) -------------
ENV_WORKSPACE_ACCOUNTS_FILE = "VOICEASSIST_WORKSPACE_ACCOUNTS_FILE"  # local: per-user CalDAV/WebDAV, mode 0600
ENV_WORKSPACE_SECRET_PREFIX = "VOICEASSIST_WORKSPACE_SECRET_PREFIX"  # AWS: one secret per user, <prefix><user>
ENV_WEB_SEARCH_BASE_URL = "VOICEASSIST_WEB_SEARCH_BASE_URL"  # a Brave Search API compatible endpoint
ENV_WEB_SEARCH_API_KEY = "VOICEASSIST_WEB_SEARCH_API_KEY"  # local only; on AWS the secret below
ENV_WEB_SEARCH_SECRET_ARN = "VOICEASSIST_WEB_SEARCH_SECRET_ARN"
ENV_DATA_KEY_ID = "VOICEASSIST_DATA_KEY_ID"  # AWS: the environment KMS key that wraps the data keys of PHI fields
ENV_TOOL_RUNNER_FUNCTION = "VOICEASSIST_TOOL_RUNNER_FUNCTION"  # AWS: api, mcp: the query_tools function
ENV_PHI_DETECTOR_FUNCTION = "VOICEASSIST_PHI_DETECTOR_FUNCTION"  # AWS: query_tools: query_detect_phi
ENV_OFFER_TOOLS = "VOICEASSIST_OFFER_TOOLS"  # false: no model is offered tools (one that rejects `tools`)


# ---- the in-boundary chat model (docs/operations.md, "In-boundary model"; decision 0016) ---------------------
# Which service serves the in-boundary Llama on AWS: a SageMaker endpoint in our VPC, or Amazon Bedrock (under
# the AWS BAA, reached through the bedrock-runtime interface endpoint). Unset: SageMaker when its endpoint is set.
ENV_IN_BOUNDARY_PROVIDER = "VOICEASSIST_IN_BOUNDARY_PROVIDER"
# A Bedrock model id or a system inference profile id (e.g. us.meta.llama3-1-8b-instruct-v1:0).
ENV_BEDROCK_MODEL_ID = "VOICEASSIST_BEDROCK_MODEL_ID"
# The other in-boundary models an admin may switch to (/v1/admin/config, models.in_boundary.model), comma-separated:
# SageMaker endpoint names or Bedrock model ids, as the provider; infra grants each (cdk.json llm.alternates).
ENV_IN_BOUNDARY_ALTERNATES = "VOICEASSIST_IN_BOUNDARY_ALTERNATES"


class InBoundaryProvider(StrEnum):
    SAGEMAKER = "sagemaker"
    BEDROCK = "bedrock"


# The rolling session summary's model call (conversation/memory.py): its own time-out, in seconds. On AWS only the
# in-boundary model writes it, and only when the invocation has time left for the call (docs/conversation.md).
ENV_SUMMARY_TIMEOUT_S = "VOICEASSIST_SUMMARY_TIMEOUT_S"

# One PHI detection's time limit, in seconds, counted from when it starts (phi/detection.py FailClosedDetector): a
# detection past it fails closed (the text counts as PHI and is withheld). Below the Detect PHI state's 10 s.
ENV_PHI_TIMEOUT_S = "VOICEASSIST_PHI_TIMEOUT_S"


# ---- voice (speech.py; docs/decisions/0031-voice-inside-the-boundary.md) --------------------------------------
# How many knowledge-base terms bias transcription (speech/vocabulary.py): Whisper's initial prompt; 0: none
# (default 60).
ENV_VOICE_VOCABULARY_TERMS = "VOICEASSIST_VOICE_VOCABULARY_TERMS"
# A spoken question with words heard unsure where PHI sits (speech/phi_doubt.py) stays inside the boundary, as PHI:
# true (the default) or false (the detector's verdict on the transcript alone).
ENV_VOICE_PHI_DOUBT = "VOICEASSIST_VOICE_PHI_DOUBT"
# AWS: Amazon Transcribe Medical (batch jobs; audio and transcript pass through this bucket under VOICE_PREFIX,
# encrypted with the environment key and deleted after each job), and Amazon Polly.
ENV_VOICE_BUCKET = "VOICEASSIST_VOICE_BUCKET"
ENV_TRANSCRIBE_SPECIALTY = "VOICEASSIST_TRANSCRIBE_SPECIALTY"  # PRIMARYCARE (the only batch specialty)
ENV_TRANSCRIBE_TYPE = "VOICEASSIST_TRANSCRIBE_TYPE"  # DICTATION (one clinician asking) or CONVERSATION
ENV_TRANSCRIBE_VOCABULARY = "VOICEASSIST_TRANSCRIBE_VOCABULARY"  # a Transcribe Medical custom vocabulary's name
ENV_POLLY_VOICE = "VOICEASSIST_POLLY_VOICE"  # e.g. Joanna
ENV_POLLY_ENGINE = "VOICEASSIST_POLLY_ENGINE"  # standard | neural
VOICE_PREFIX = "voice/"  # the voice bucket's transient audio and transcripts (expired after a day as a backstop)
# Transcribe Medical job names (random after it): the IAM grant names these jobs and their transcripts' keys only
TRANSCRIBE_JOB_PREFIX = "voiceassist-"
