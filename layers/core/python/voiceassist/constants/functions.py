"""Every Lambda function the app deploys, what it may touch, and which pipeline invokes it.

Function code is discovered from functions/<name>/ at synth; this catalogue is the reviewed list of what
each one is allowed to do. A folder without an entry (or an entry without a folder) fails synth, so a new
function cannot ship with permissions nobody wrote down.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

HANDLER = "handler.lambda_handler"


class Access(StrEnum):
    """One grant the function stack knows how to give (see constructs/functions.py `grant_access`)."""

    BUCKET_READ = "bucket-read"
    BUCKET_WRITE = "bucket-write"
    DOCUMENTS_READ = "documents-read"
    DOCUMENTS_WRITE = "documents-write"
    JOBS_READ = "jobs-read"
    JOBS_WRITE = "jobs-write"
    SESSIONS_READ = "sessions-read"
    SESSIONS_WRITE = "sessions-write"
    AUDIT_READ = "audit-read"
    AUDIT_WRITE = "audit-write"
    STATE_WRITE = "state-write"
    BILLING_READ = "billing-read"  # the cost ledger (voiceassist.admin): the admin's billing report
    BILLING_WRITE = "billing-write"  # ... each model call's tokens and cost, and the month's cost alerts
    COST_ALERTS = "cost-alerts"  # sns:Publish on the cost-alert topic (infra/constructs/cost_alerts.py)
    IDEMPOTENCY = "idempotency"
    SEARCH_READ = "search-read"
    SEARCH_WRITE = "search-write"
    OPENAI_SECRET = "openai-secret"
    PUBMED_SECRET = "pubmed-secret"  # the NCBI API key; also the PubMed client's settings (when enabled)
    LLM_INVOKE = "llm-invoke"
    EMBEDDING_INVOKE = "embedding-invoke"
    START_INGEST = "start-ingest"
    START_QUERY = "start-query"
    STREAM_TO_CLIENTS = "stream-to-clients"
    OCR_TEXTRACT = "ocr-textract"  # start and read Textract text detection jobs (Textract reads S3 as the caller)
    DESCRIBE_INGEST = "describe-ingest"  # DescribeExecution on the ingest workflow's executions (the reconciler)
    # Amazon Comprehend Medical DetectPHI, granted only where config phi_detector is comprehend_medical or both
    PHI_COMPREHEND_MEDICAL = "phi-comprehend-medical"
    # Amazon Bedrock InvokeModel(WithResponseStream) on the configured Llama model or inference profile, granted
    # only where config llm.provider is bedrock (LLM_INVOKE is then empty: no SageMaker endpoint exists)
    BEDROCK_INVOKE = "bedrock-invoke"
    # The workspace tools (docs/tools.md "Workspace"), granted only where cdk.json configures them: read the
    # per-user account secrets (<prefix><user id>) and the web search provider's key.
    WORKSPACE_ACCOUNTS = "workspace-accounts"
    WEB_SEARCH_SECRET = "web-search-secret"
    # lambda:InvokeFunction on the query_tools function only: api and mcp run the embedding tools there
    INVOKE_TOOL_RUNNER = "invoke-tool-runner"
    # lambda:InvokeFunction on the query_detect_phi function only: query_tools checks tool arguments there
    INVOKE_PHI_DETECTOR = "invoke-phi-detector"
    # cloudwatch:ListMetrics and GetMetricData (no resource-level permissions): GET /v1/admin/telemetry reads the
    # operator's metrics back (adapters/aws/cloudwatch_metrics.py); metric aggregates carry no PHI
    METRICS_READ = "metrics-read"
    # Voice (docs/decisions/0031): Transcribe Medical jobs named voiceassist-*, the voice bucket's voice/ prefix
    # (put, read, delete) with the environment key, and Polly's SynthesizeSpeech
    VOICE = "voice"
    # Voice over the WebSocket (the stream function, speech/chunked.py): VOICE without Polly. Transcribe Medical
    # jobs named voiceassist-*, the voice bucket's voice/ prefix (streamed chunks under voice/stream/) with the
    # environment key
    TRANSCRIBE = "transcribe"


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    description: str
    access: frozenset[Access]
    memory_mb: int | None = None  # None: the environment's default
    timeout_seconds: int | None = None
    # The ML layer carries onnxruntime, tokenizers and the in-boundary embedding model (numpy is in deps).
    needs_ml_layer: bool = False
    # The auth layer carries PyJWT and cryptography: Cognito token signatures for the authorizer, AES
    # decryption of encrypted PDFs for ingest_extract (pypdf's crypto provider), and the session store's
    # encrypted clinical context (adapters/aws/envelope_cipher.py) for every function with SESSIONS_* access.
    needs_auth_layer: bool = False
    # Presidio and its spaCy model exceed the 250 MB zip limit, so this one ships as a container image.
    container_image: bool = False
    # The documents layer carries python-docx and lxml (Word uploads), for ingest_extract only.
    needs_documents_layer: bool = False
    # Plans the searches (planning.plan_sources): it must see whether PubMed is configured, never its key.
    plans_searches: bool = False
    # A CloudFormation custom resource (not invoked by the app): runs as a role the stack creates for it.
    custom_resource: bool = False
    # The MCP layer carries the official `mcp` SDK (Starlette, jsonschema), for the MCP endpoint only.
    needs_mcp_layer: bool = False
    # Calls a service outside AWS's VPC endpoints (OpenAI, NCBI, Cognito's JWKS, the @connections API): the
    # only functions with a route to the NAT, and then only to the DNS firewall's allow-list.
    internet_egress: bool = False
    # Runs the workspace tools (calendar, files, web search): carries the workspace layer (caldav, lxml) and,
    # where cdk.json configures them, their settings and a route to the NAT (DNS firewall: their hosts only).
    runs_workspace_tools: bool = False
    # Serves the voice routes (POST /v1/voice/*): writes a transcript as typed before Detect PHI reads it
    # (speech/phi_doubt.detector_text: number words as digits with text2num). A zip carries the voice layer; the
    # PHI image installs the same requirements; the handler requires them at cold start (speech.phi_doubt.require).
    serves_voice: bool = False
    # With SESSIONS_READ: reads only a session's messages (stored redacted, never encrypted), never its sealed
    # clinical context, so it needs neither cryptography (the auth layer) nor the KMS data keys.
    reads_session_messages_only: bool = False
    # Runs the readings that need spaCy's English parse or entities (the input screen's purpose clauses, the answer
    # gate's places of the story: voiceassist.english_pipeline): a container image of the PHI Dockerfile, which
    # ships spaCy and the model, whose handler requires them at cold start (decisions 0024 and 0027, session 20).
    reads_english_parse: bool = False


def _spec(name: str, description: str, *access: Access, **options: object) -> FunctionSpec:
    return FunctionSpec(name=name, description=description, access=frozenset(access), **options)  # type: ignore[arg-type]


A = Access
FUNCTIONS: tuple[FunctionSpec, ...] = (
    _spec(
        "api",
        "REST API: ask, documents, jobs, sessions",
        A.SEARCH_READ,  # the passage behind a citation (routes/passages.py)
        A.BUCKET_READ,
        A.BUCKET_WRITE,
        A.DOCUMENTS_WRITE,
        A.JOBS_WRITE,
        A.SESSIONS_WRITE,
        A.AUDIT_WRITE,  # tool calls, administrative actions and refusals are audited (a hash chain per user)
        A.STATE_WRITE,  # tool rate limits, pending actions and the admin configuration (/v1/admin/config)
        A.BILLING_READ,  # GET /v1/admin/billing
        A.INVOKE_TOOL_RUNNER,  # the knowledge-base search tools run in query_tools (tools/remote.py)
        A.METRICS_READ,  # GET /v1/admin/telemetry (routes/telemetry.py)
        A.START_INGEST,
        A.START_QUERY,
        A.WORKSPACE_ACCOUNTS,  # POST /v1/tools/{name}/invoke of a calendar or file tool (where configured)
        A.VOICE,  # /v1/voice/*: Transcribe Medical and Polly through their VPC endpoints (speech.py)
        A.WEB_SEARCH_SECRET,  # POST /v1/tools/web_search/invoke (where configured)
        A.PHI_COMPREHEND_MEDICAL,  # web_search's PHI check, where the detector is Comprehend Medical
        A.LLM_INVOKE,  # the session summary by the in-boundary model (conversation/memory.py), where sagemaker
        A.BEDROCK_INVOKE,  # ... or bedrock; never the cloud model (no OPENAI_SECRET here)
        runs_workspace_tools=True,
        serves_voice=True,  # /v1/voice/query: the transcript as typed (the voice layer's text2num)
        # Under API Gateway's 29 s: the function answers (504 envelope) before the gateway gives up;
        # the query workflow's own TimeoutSeconds (25) ends first.
        timeout_seconds=28,
    ),
    _spec(
        "ingest_trigger",
        "S3 object created -> register the upload, start the ingestion workflow with its job's ids",
        A.BUCKET_READ,
        A.BUCKET_WRITE,  # deletes an upload whose content is live already (ingest/settling.py)
        A.DOCUMENTS_WRITE,  # registers the document version (no key or file name in the execution's input)
        A.JOBS_WRITE,  # ... and its IndexingJob
        A.IDEMPOTENCY,
        A.START_INGEST,
        timeout_seconds=60,  # reads the upload once for its content hash, as Register did
    ),
    _spec(
        "ingest_register",
        "Start the registered indexing job (or fail the job of a failed registration)",
        A.DOCUMENTS_WRITE,  # Mark Registration Failed: the version a failed registration left PENDING
        A.JOBS_WRITE,
    ),
    _spec(
        "ingest_screen",
        "Screen a document's file name and metadata for PHI (Presidio), redact, fail closed",
        A.BUCKET_READ,
        A.BUCKET_WRITE,  # moves an upload out of incoming/ to a key without its file name (ingest/settling.py)
        A.DOCUMENTS_WRITE,  # the redacted metadata, and the pseudonymous doc_key, replace the raw ones
        A.JOBS_WRITE,  # the job's doc_key and the PHI types redacted (metadata_phi_redacted)
        A.PHI_COMPREHEND_MEDICAL,  # the PHI detector, when it is Comprehend Medical or both
        memory_mb=2048,
        timeout_seconds=60,
        container_image=True,  # Presidio and its spaCy model (the PHI image, as query_detect_phi)
    ),
    _spec(
        "ingest_extract",
        "Extract text and page numbers",
        A.BUCKET_READ,
        A.BUCKET_WRITE,
        A.DOCUMENTS_WRITE,  # records the page count on the document
        memory_mb=2048,
        timeout_seconds=300,
        needs_auth_layer=True,  # cryptography: pypdf opens AES-encrypted PDFs with it
        needs_documents_layer=True,
    ),
    _spec(
        "ingest_ocr",
        "Read scanned PDF pages: start a Textract text detection job, then poll it between Waits",
        A.BUCKET_READ,
        A.BUCKET_WRITE,
        A.DOCUMENTS_READ,
        A.JOBS_WRITE,
        A.OCR_TEXTRACT,
        memory_mb=1024,
        timeout_seconds=900,  # a finished job of a long PDF is read 1,000 blocks per call
    ),
    _spec(
        "ingest_clean",
        "Normalise extracted text",
        A.BUCKET_READ,
        A.BUCKET_WRITE,
        timeout_seconds=120,
    ),
    _spec(
        "ingest_chunk",
        "Split text into token-bounded chunks",
        A.BUCKET_READ,
        A.DOCUMENTS_READ,
        A.BUCKET_WRITE,
        A.JOBS_WRITE,
        timeout_seconds=300,
        needs_ml_layer=True,  # chunks are measured in the embedding model's word pieces (its tokenizer)
    ),
    _spec(
        "ingest_embed",
        "Embed chunks inside the boundary",
        A.BUCKET_READ,
        A.BUCKET_WRITE,
        A.JOBS_WRITE,
        A.EMBEDDING_INVOKE,
        memory_mb=3008,
        timeout_seconds=900,
        needs_ml_layer=True,
    ),
    _spec(
        "ingest_index",
        "Bulk-index chunks into OpenSearch",
        A.BUCKET_READ,
        A.DOCUMENTS_READ,
        A.SEARCH_WRITE,
        timeout_seconds=300,
    ),
    _spec(
        "ingest_finalize",
        "Supersede the old version, complete the job",
        A.BUCKET_READ,
        A.BUCKET_WRITE,
        A.DOCUMENTS_WRITE,
        A.JOBS_WRITE,
        A.SEARCH_WRITE,
    ),
    _spec(
        "ingest_fail",
        "Mark the job FAILED with a readable reason",
        A.BUCKET_READ,
        A.BUCKET_WRITE,
        A.DOCUMENTS_WRITE,
        A.JOBS_WRITE,
        A.SEARCH_WRITE,
    ),
    _spec(
        "query_detect_phi",
        "Detect PHI (Presidio), fail closed",
        A.PHI_COMPREHEND_MEDICAL,  # the PHI detector, when it is Comprehend Medical or both
        A.STREAM_TO_CLIENTS,  # its `route` event, when a client streams the query (conversation.events)
        memory_mb=2048,
        timeout_seconds=30,
        container_image=True,
        internet_egress=True,  # the WebSocket @connections API, for a streamed query's events
        reads_english_parse=True,  # the image ships spaCy; its handler loads the readings (fails loud without them)
    ),
    _spec(
        "query_classify",
        "Classify intent, ask to clarify when needed",
        A.STREAM_TO_CLIENTS,  # its `plan` event
        timeout_seconds=30,
        plans_searches=True,
        # the input screen's meaning model reads the question's sentence vector from the in-boundary embedder, as
        # the local runtime does (decision 0027): ~0.76 s more CPU on a cold start (loading the model), ~4 ms a question
        needs_ml_layer=True,
        internet_egress=True,  # the WebSocket @connections API, for a streamed query's events
        # the input screen's purpose clauses read spaCy's parse: deps + ml + core leave 0.8 MiB of the zip limit and
        # spaCy with its model is ~200 MB, so the PHI image with the ML layer's requirements (infra/images/phi)
        container_image=True,
        reads_english_parse=True,
    ),
    _spec(
        "query_retrieve",
        "Search the sources in parallel, fuse and rerank",
        A.SEARCH_READ,
        A.EMBEDDING_INVOKE,
        A.PUBMED_SECRET,  # PubMed over HTTPS through the NAT, PHI-free questions only (decision 0003)
        memory_mb=2048,
        timeout_seconds=30,
        needs_ml_layer=True,
        internet_egress=True,  # PubMed (NCBI E-utilities)
    ),
    _spec(
        "query_rank",
        "Merge the parallel branches: fuse, rerank, dedup",
        A.SESSIONS_READ,  # an abstention compares the question with the session's last one
        A.STREAM_TO_CLIENTS,  # its `retrieval` event
        timeout_seconds=30,
        needs_ml_layer=True,
        # deps + ml + auth + core is over Lambda's 250 MB; the last question is a message, not the clinical context
        reads_session_messages_only=True,
        internet_egress=True,  # the WebSocket @connections API, for a streamed query's events
        # the answer gate's places of the story read spaCy's entities: the PHI image with the ML layer's
        # requirements, as query_classify
        container_image=True,
        reads_english_parse=True,
    ),
    _spec(
        "query_generate",
        "Route to a model and generate with fallbacks",
        A.PHI_COMPREHEND_MEDICAL,  # the PHI detector, when it is Comprehend Medical or both
        A.OPENAI_SECRET,
        A.LLM_INVOKE,  # the in-boundary Llama on its SageMaker endpoint, where llm.provider is sagemaker
        A.BEDROCK_INVOKE,  # the in-boundary Llama on Amazon Bedrock, where llm.provider is bedrock
        A.STATE_WRITE,  # the models' circuit breakers (shared by every instance)
        A.BILLING_WRITE,  # every model call's tokens and cost, and the monthly cost limits (voiceassist.admin)
        A.COST_ALERTS,  # a cost limit's alert share or the limit itself was reached
        A.SESSIONS_READ,  # the conversation so far
        A.STREAM_TO_CLIENTS,  # its `route`, `tool` and draft `token` events, when a client streams the query
        timeout_seconds=30,
        container_image=True,  # the egress guard runs the PHI detector
        internet_egress=True,  # OpenAI, and the WebSocket @connections API for a streamed query's events
        reads_english_parse=True,  # the extractive composer reads the question's concepts (places of the story)
    ),
    _spec(
        "query_tools",
        "Run one tool call through the executor (the query's tool loop)",
        A.AUDIT_WRITE,
        A.STATE_WRITE,  # rate limits and pending actions
        A.SEARCH_READ,  # the knowledge-base searches (the same search as query_retrieve's: no documents table)
        A.EMBEDDING_INVOKE,
        A.LLM_INVOKE,  # generate_differential_diagnosis writes with the in-boundary model (SageMaker)
        A.BEDROCK_INVOKE,  # ... or Bedrock, where the environment's provider is bedrock
        A.INVOKE_PHI_DETECTOR,  # tool arguments are checked by query_detect_phi (no Presidio here)
        memory_mb=2048,
        timeout_seconds=30,
        # The knowledge-base search tools embed in-boundary; it also runs them for api and mcp (tools/remote.py).
        # Presidio is not shipped: the executor checks text arguments by invoking query_detect_phi. No workspace
        # tools: deps + ml + core leave ~6 MB of Lambda's 250 MB and the workspace layer (caldav, lxml) is ~17 MB,
        # so the loop does not offer them on AWS (query_generate is not given their settings); the API and MCP
        # run them.
        needs_ml_layer=True,
        # the input screen of every tool argument (its own loop's, and api's and mcp's through tools/remote.py)
        # reads the purpose clauses with spaCy's parse: the PHI image with the ML layer, as query_classify
        # (deps + ml + core left 0.8 MiB; decision 0027, "On AWS too")
        container_image=True,
        reads_english_parse=True,
    ),
    _spec(
        "mcp",
        "POST /v1/mcp: the tools over the Model Context Protocol (streamable HTTP, stateless)",
        A.AUDIT_WRITE,
        A.STATE_WRITE,  # rate limits and pending actions
        A.WORKSPACE_ACCOUNTS,  # the calendar and file tools (where configured)
        A.WEB_SEARCH_SECRET,  # web_search (where configured)
        A.PHI_COMPREHEND_MEDICAL,  # web_search's PHI check, where the detector is Comprehend Medical
        A.INVOKE_TOOL_RUNNER,  # the knowledge-base search tools run in query_tools (tools/remote.py)
        timeout_seconds=29,
        runs_workspace_tools=True,
        # deps + ml + mcp + core would pass Lambda's 250 MB (264.0 MB unzipped with its code,
        # docs/tools.md), so no ML layer: the calculators run here, the search tools in query_tools.
        needs_mcp_layer=True,
    ),
    _spec(
        "query_assemble",
        "Inline citations and response metadata",
        A.PHI_COMPREHEND_MEDICAL,  # the PHI detector, when it is Comprehend Medical or both
        A.SESSIONS_WRITE,  # adds the redacted exchange to the session
        timeout_seconds=30,
        container_image=True,  # redacts the answer before the session stores it
        reads_english_parse=True,  # the image ships spaCy; its handler loads the readings (fails loud without them)
    ),
    _spec(
        "query_audit", "Write the redacted audit record", A.AUDIT_WRITE, timeout_seconds=30
    ),
    _spec(
        "stream",
        "WebSocket routes: run a query and stream its events",
        A.PHI_COMPREHEND_MEDICAL,  # the PHI detector, when it is Comprehend Medical or both
        A.SESSIONS_WRITE,  # the orchestrator keeps clarifying exchanges and seals the session's memory
        A.STATE_WRITE,  # the follow-ups' evidence and the session's memory (conversation/memory.py)
        A.START_QUERY,
        A.STREAM_TO_CLIENTS,
        A.LLM_INVOKE,  # the session summary by the in-boundary model (conversation/memory.py), where sagemaker
        A.BEDROCK_INVOKE,  # ... or bedrock; never the cloud model (no OPENAI_SECRET here)
        A.TRANSCRIBE,  # voice.start/chunk/end: the chunks in the voice bucket, the Transcribe Medical job
        # voice.end waits up to 15 s for chunks in flight, runs a Transcribe Medical job (at most 25 s) and then the
        # query (the api's 28 s): API Gateway stops waiting for the reply after 29 s, but the events go to the
        # connection through the @connections API, so the function is given the time (decision 0031)
        timeout_seconds=90,
        container_image=True,  # the egress guard runs the PHI detector
        internet_egress=True,  # the WebSocket @connections API (no VPC endpoint for it)
        reads_english_parse=True,  # screens the turns and the tool arguments it runs, as Classify (input_screen)
        serves_voice=True,  # voice.end: the transcript as typed (text2num, in the PHI image's requirements)
    ),
    _spec(
        "stream_authorizer",
        "WebSocket $connect authorizer: verify the Cognito token",
        # No AWS access: the user pool's signing keys are public (JWKS over HTTPS through the NAT).
        timeout_seconds=10,
        needs_auth_layer=True,
        internet_egress=True,  # Cognito's JWKS
    ),
    _spec(
        "search_bootstrap",
        "Custom resource: OpenSearch index, alias, pipeline and role mapping",
        # No catalogue grant: it runs as the search domain's master-user role (constructs/search.py).
        timeout_seconds=300,
        custom_resource=True,
    ),
    _spec(
        "ingest_reconcile",
        "Schedule -> fail or re-drive jobs whose ingest execution ended or is gone; start uploads whose event "
        "was lost",
        A.JOBS_WRITE,
        # failing a job is ingest_fail's work (ingest/stages.py fail_job): its version FAILED, its chunks and
        # stored artefacts removed (deleted by key: no read)
        A.DOCUMENTS_WRITE,
        A.SEARCH_WRITE,
        A.BUCKET_WRITE,
        A.DESCRIBE_INGEST,
        A.START_INGEST,  # re-drives a stuck job as a new attempt
        # the sweep of incoming/ (ingest/upload_sweep.py) does the trigger's work for an upload whose event was
        # lost: lists incoming/ and reads the upload (BUCKET_READ), claims it by the trigger's idempotency record
        A.BUCKET_READ,
        A.IDEMPOTENCY,
        timeout_seconds=300,  # a sweep stops while a trigger's 60 s are left (one upload registered at a time)
    ),
)
FUNCTIONS_BY_NAME: dict[str, FunctionSpec] = {spec.name: spec for spec in FUNCTIONS}

# Which functions each workflow invokes; the ASL placeholders must be exactly these (tests check it).
INGEST_PIPELINE_FUNCTIONS: tuple[str, ...] = (
    "ingest_register",
    "ingest_screen",
    "ingest_extract",
    "ingest_ocr",
    "ingest_clean",
    "ingest_chunk",
    "ingest_embed",
    "ingest_index",
    "ingest_finalize",
    "ingest_fail",
)
QUERY_PIPELINE_FUNCTIONS: tuple[str, ...] = (
    "query_detect_phi",
    "query_classify",
    "query_retrieve",
    "query_rank",
    "query_generate",
    "query_tools",
    "query_assemble",
    "query_audit",
)


def placeholder_for(function_name: str) -> str:
    """The ASL placeholder of a function's ARN: ingest_extract -> IngestExtractFunctionArn."""
    return "".join(part.capitalize() for part in function_name.split("_")) + "FunctionArn"


def discover_functions(functions_dir: Path) -> list[FunctionSpec]:
    """The catalogued functions, checked against the folders that hold a handler.py."""
    present = {p.parent.name for p in functions_dir.glob("*/handler.py")}
    unknown = sorted(present - FUNCTIONS_BY_NAME.keys())
    missing = sorted(FUNCTIONS_BY_NAME.keys() - present)
    if unknown or missing:
        raise ValueError(
            f"functions in {functions_dir} do not match infra/catalogue.py: "
            f"not catalogued {unknown or 'none'}, missing folders {missing or 'none'}"
        )
    return [FUNCTIONS_BY_NAME[name] for name in sorted(present)]


def carries_auth_layer(spec: FunctionSpec) -> bool:
    """The auth layer's cryptography is needed by the flagged functions and by every one that opens a session's
    clinical context (encrypted at the application level): all that write sessions (adding a message reads the
    session first), and those that read them unless they read only the messages; and by those that run the
    workspace tools, the only ones that need confirmation: a pending action's call is sealed (tools/actions.py)."""
    opens_context = Access.SESSIONS_WRITE in spec.access or (
        Access.SESSIONS_READ in spec.access and not spec.reads_session_messages_only)
    return spec.needs_auth_layer or opens_context or spec.runs_workspace_tools


def layers_of(spec: FunctionSpec) -> tuple[str, ...]:
    """The Lambda layers a zip function carries, in order (layers/deps/build.sh builds each; core is the domain
    package); none for a container image."""
    if spec.container_image:
        return ()
    wanted = (("deps", True), ("ml", spec.needs_ml_layer), ("auth", carries_auth_layer(spec)),
              ("mcp", spec.needs_mcp_layer), ("documents", spec.needs_documents_layer),
              ("voice", spec.serves_voice), ("workspace", spec.runs_workspace_tools), ("core", True))
    return tuple(name for name, carried in wanted if carried)

# The functions that run tools (the executor): none runs the PHI detector itself (query_tools, the PHI image since
# session 20 for spaCy's parse, borrows query_detect_phi's detector), so on AWS the tools that leave the boundary
# are not registered (composition/aws.py tool_registry;
# tests/unit/tools/test_remote_tools.py checks the premise).
TOOL_FUNCTIONS: tuple[str, ...] = ("query_tools", "api", "mcp")
TOOL_RUNNER = "query_tools"  # runs the embedding tools for api and mcp (Access.INVOKE_TOOL_RUNNER)
PHI_DETECTOR_FUNCTION = "query_detect_phi"  # checks query_tools' tool arguments (Access.INVOKE_PHI_DETECTOR)
