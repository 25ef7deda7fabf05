"""Function environment variables, named only by voiceassist.settings constants (never retyped here)."""

from __future__ import annotations

from aws_cdk import aws_lambda as lambda_

from infra.config import EnvironmentConfig
from infra.constructs.api import Api
from infra.constructs.pipelines import Pipelines
from infra.constructs.search import Search
from infra.constructs.secrets import Secrets
from infra.constructs.storage import Storage
from voiceassist.constants.environment import (
    ENV_AUDIT_ANCHOR_BUCKET,
    ENV_AUDIT_TABLE,
    ENV_BEDROCK_MODEL_ID,
    ENV_BILLING_TABLE,
    ENV_DOCUMENTS_BUCKET,
    ENV_DOCUMENTS_TABLE,
    ENV_EMBEDDING_ENDPOINT,
    ENV_ENVIRONMENT,
    ENV_IDEMPOTENCY_TABLE,
    ENV_IN_BOUNDARY_ALTERNATES,
    ENV_IN_BOUNDARY_PROVIDER,
    ENV_INGEST_STATE_MACHINE_ARN,
    ENV_JOBS_TABLE,
    ENV_LOCAL_CHAT_MODEL,
    ENV_LOG_LEVEL,
    ENV_OPENAI_MODEL,
    ENV_OPENAI_SECRET_ARN,
    ENV_OPENSEARCH_ENDPOINT,
    ENV_OPENSEARCH_INDEX,
    ENV_OPENSEARCH_PIPELINE,
    ENV_PHI_DETECTOR,
    ENV_PHI_DETECTOR_FUNCTION,
    ENV_PHI_MODE,
    ENV_POLLY_ENGINE,
    ENV_POLLY_VOICE,
    ENV_PUBMED_BASE_URL,
    ENV_PUBMED_BUDGET_SECONDS,
    ENV_PUBMED_EMAIL,
    ENV_PUBMED_REQUESTS_PER_SECOND,
    ENV_PUBMED_SECRET_ARN,
    ENV_QUERY_STATE_MACHINE_ARN,
    ENV_ROUTING_MODE,
    ENV_RUNTIME,
    ENV_SAGEMAKER_ENDPOINT,
    ENV_SERVICE_NAME,
    ENV_SESSIONS_TABLE,
    ENV_STATE_TABLE,
    ENV_TOOL_RUNNER_FUNCTION,
    ENV_TRANSCRIBE_TYPE,
    ENV_TRANSCRIBE_VOCABULARY,
    ENV_USER_POOL_CLIENT_ID,
    ENV_USER_POOL_ID,
    ENV_VOICE_BUCKET,
    ENV_WEB_SEARCH_BASE_URL,
    ENV_WEB_SEARCH_SECRET_ARN,
    ENV_WORKSPACE_SECRET_PREFIX,
    SERVICE,
    InBoundaryProvider,
    Runtime,
)
from voiceassist.constants.functions import Access, FunctionSpec


def shared_environment(
    config: EnvironmentConfig, storage: Storage, search: Search, secrets: Secrets
) -> dict[str, str]:
    """What every function gets: resource names are not secrets, and permissions are granted separately."""
    environment = {
        ENV_RUNTIME: Runtime.AWS.value,
        ENV_ENVIRONMENT: config.name,
        ENV_LOG_LEVEL: config.functions.log_level,
        ENV_SERVICE_NAME: SERVICE,
        ENV_DOCUMENTS_BUCKET: storage.documents_bucket.bucket_name,
        ENV_DOCUMENTS_TABLE: storage.documents_table.table_name,
        ENV_JOBS_TABLE: storage.jobs_table.table_name,
        ENV_SESSIONS_TABLE: storage.sessions_table.table_name,
        ENV_AUDIT_TABLE: storage.audit_table.table_name,
        ENV_AUDIT_ANCHOR_BUCKET: storage.audit_anchor_bucket.bucket_name,
        ENV_STATE_TABLE: storage.state_table.table_name,
        ENV_BILLING_TABLE: storage.billing_table.table_name,
        ENV_IDEMPOTENCY_TABLE: storage.idempotency_table.table_name,
        ENV_OPENSEARCH_ENDPOINT: f"https://{search.endpoint}",
        ENV_OPENSEARCH_INDEX: config.search.index_alias,
        ENV_OPENSEARCH_PIPELINE: config.search.pipeline_name,
        ENV_OPENAI_SECRET_ARN: secrets.openai_api_key.secret_arn,
        ENV_OPENAI_MODEL: config.openai_model,
        ENV_ROUTING_MODE: config.routing_mode.value,
        ENV_PHI_MODE: config.phi_mode.value,
        ENV_PHI_DETECTOR: config.phi_detector.value,
    }
    environment.update(in_boundary_environment(config))
    if config.embedding.enabled:
        environment[ENV_EMBEDDING_ENDPOINT] = config.endpoint_name("embedding")
    return environment


def in_boundary_environment(config: EnvironmentConfig) -> dict[str, str]:
    """Which service serves the in-boundary model, its endpoint or model id, and the alternates an admin may
    switch to (/v1/admin/config; granted in stacks/grants.py)."""
    variables: dict[str, str] = {}
    alternates: tuple[str, ...] = ()  # the other in-boundary models an admin may choose (granted in grants.py)
    if config.llm.on_sagemaker:
        variables[ENV_IN_BOUNDARY_PROVIDER] = InBoundaryProvider.SAGEMAKER.value
        variables[ENV_SAGEMAKER_ENDPOINT] = config.endpoint_name("llm")
        variables[ENV_LOCAL_CHAT_MODEL] = config.llm.served_model_name
        alternates = config.llm.alternate_endpoints
    if config.llm.on_bedrock:
        variables[ENV_IN_BOUNDARY_PROVIDER] = InBoundaryProvider.BEDROCK.value
        variables[ENV_BEDROCK_MODEL_ID] = config.llm.bedrock.model_id
        alternates = config.llm.bedrock.alternates
    if alternates:
        variables[ENV_IN_BOUNDARY_ALTERNATES] = ",".join(alternates)
    return variables


def starter_environment(spec: FunctionSpec, pipelines: Pipelines) -> dict[str, str]:
    """State machine ARNs, for the functions that start workflows (never for those the workflows invoke)."""
    environment: dict[str, str] = {}
    if Access.START_INGEST in spec.access:
        environment[ENV_INGEST_STATE_MACHINE_ARN] = pipelines.ingest.state_machine_arn
    if Access.START_QUERY in spec.access:
        environment[ENV_QUERY_STATE_MACHINE_ARN] = pipelines.query.state_machine_arn
    return environment


def pubmed_environment(spec: FunctionSpec, config: EnvironmentConfig, secrets: Secrets) -> dict[str, str]:
    """PubMed settings, where PubMed is enabled: the planner learns that PubMed exists and its budget (it
    plans the searches), the searcher also gets the contact e-mail, the rate and the key's secret ARN."""
    pubmed = config.pubmed
    searches = Access.PUBMED_SECRET in spec.access
    if secrets.ncbi_api_key is None or not (searches or spec.plans_searches):
        return {}
    environment = {
        ENV_PUBMED_BASE_URL: pubmed.base_url,
        ENV_PUBMED_BUDGET_SECONDS: str(pubmed.budget_seconds),
    }
    if searches:
        environment[ENV_PUBMED_EMAIL] = str(pubmed.email)
        environment[ENV_PUBMED_SECRET_ARN] = secrets.ncbi_api_key.secret_arn
        if pubmed.requests_per_second is not None:
            environment[ENV_PUBMED_REQUESTS_PER_SECOND] = str(pubmed.requests_per_second)
    return environment


def workspace_environment(spec: FunctionSpec, config: EnvironmentConfig, secrets: Secrets) -> dict[str, str]:
    """The workspace tools' settings, for the functions that run them, where the environment configures them:
    the per-user account secrets' prefix, and the web search endpoint with its key's secret ARN."""
    environment: dict[str, str] = {}
    if not spec.runs_workspace_tools:
        return environment
    if config.workspace.enabled and config.workspace.account_secret_prefix:
        environment[ENV_WORKSPACE_SECRET_PREFIX] = config.workspace.account_secret_prefix
    if secrets.web_search_api_key is not None:
        environment[ENV_WEB_SEARCH_BASE_URL] = config.web_search.base_url
        environment[ENV_WEB_SEARCH_SECRET_ARN] = secrets.web_search_api_key.secret_arn
    return environment


def tool_runner_environment(spec: FunctionSpec, runner: lambda_.IFunction, detector: lambda_.IFunction
                            ) -> dict[str, str]:
    """The functions a tool function invokes, by the ARN its grant covers: query_tools (api and mcp run the embedding
    tools there), query_detect_phi (query_tools checks tool arguments there); each the warm `live` alias's ARN where
    the environment keeps one (provisioned concurrency), else the function's."""
    environment: dict[str, str] = {}
    if Access.INVOKE_TOOL_RUNNER in spec.access:
        environment[ENV_TOOL_RUNNER_FUNCTION] = runner.function_arn
    if Access.INVOKE_PHI_DETECTOR in spec.access:
        environment[ENV_PHI_DETECTOR_FUNCTION] = detector.function_arn
    return environment


def authorizer_environment(api: Api) -> dict[str, str]:
    """The user pool and app client whose tokens the WebSocket $connect authorizer accepts."""
    return {
        ENV_USER_POOL_ID: api.user_pool.user_pool_id,
        ENV_USER_POOL_CLIENT_ID: api.user_pool_client.user_pool_client_id,
    }


def voice_environment(spec: FunctionSpec, config: EnvironmentConfig, storage: Storage) -> dict[str, str]:
    """The speech services: Transcribe Medical for the functions granted Access.VOICE or Access.TRANSCRIBE (the
    voice routes, the WebSocket's voice messages), and Polly for those granted Access.VOICE."""
    if not {Access.VOICE, Access.TRANSCRIBE} & spec.access:
        return {}
    voice = config.voice
    environment = {ENV_VOICE_BUCKET: storage.voice_bucket.bucket_name, ENV_TRANSCRIBE_TYPE: voice.transcribe_type}
    if Access.VOICE in spec.access:
        environment.update({ENV_POLLY_VOICE: voice.polly_voice, ENV_POLLY_ENGINE: voice.polly_engine})
    if voice.transcribe_vocabulary:
        environment[ENV_TRANSCRIBE_VOCABULARY] = voice.transcribe_vocabulary
    return environment
