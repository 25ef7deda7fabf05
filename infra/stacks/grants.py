"""What each catalogue Access means in IAM: the only place functions receive permissions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aws_cdk import ArnFormat, Stack
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_stepfunctions as sfn

from infra.config import EnvironmentConfig, foundation_model_id, is_inference_profile
from infra.constructs.search import Search
from infra.constructs.secrets import Secrets
from infra.constructs.storage import Storage
from voiceassist.constants.environment import AUDIT_ANCHOR_PREFIX, TRANSCRIBE_JOB_PREFIX, VOICE_PREFIX, PhiDetectorKind
from voiceassist.constants.functions import Access, FunctionSpec

SEARCH_READ_ACTIONS = ["es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost"]
SEARCH_WRITE_ACTIONS = [*SEARCH_READ_ACTIONS, "es:ESHttpPut", "es:ESHttpDelete"]


@dataclass(frozen=True)
class GrantTargets:
    config: EnvironmentConfig
    key: kms.IKey
    storage: Storage
    search: Search
    secrets: Secrets
    ingest: sfn.StateMachine
    query: sfn.StateMachine
    websocket_api: apigwv2.WebSocketApi
    websocket_stage: str
    # query_tools (constants/functions.py TOOL_RUNNER), query_detect_phi (PHI_DETECTOR_FUNCTION): each its warm
    # `live` alias where the environment keeps one, else the function
    tool_runner: lambda_.IFunction
    phi_detector: lambda_.IFunction
    cost_alerts: sns.ITopic  # the operators' cost alerts (infra/constructs/cost_alerts.py)


def grant_access(function: lambda_.Function, spec: FunctionSpec, targets: GrantTargets) -> None:
    for access in sorted(spec.access):
        _GRANTS[access](function, targets)


def _endpoint_arn(targets: GrantTargets, purpose: str) -> str:
    return Stack.of(targets.search).format_arn(
        service="sagemaker", resource="endpoint", resource_name=targets.config.endpoint_name(purpose)
    )


def _invoke_endpoint(purpose: str) -> Callable[[lambda_.Function, GrantTargets], None]:
    def grant(function: lambda_.Function, targets: GrantTargets) -> None:
        function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"],
                resources=[_endpoint_arn(targets, purpose)],
            )
        )

    return grant


def _search(actions: list[str]) -> Callable[[lambda_.Function, GrantTargets], None]:
    def grant(function: lambda_.Function, targets: GrantTargets) -> None:
        domain = targets.search.domain
        function.add_to_role_policy(
            iam.PolicyStatement(actions=actions, resources=[f"{domain.domain_arn}/*"])
        )

    return grant


def _embedding(function: lambda_.Function, targets: GrantTargets) -> None:
    if targets.config.embedding.enabled:
        _invoke_endpoint("embedding")(function, targets)


def _llm(function: lambda_.Function, targets: GrantTargets) -> None:
    """The stack's llm endpoint and the alternates an admin may switch to (llm.alternate_endpoints)."""
    if not targets.config.llm.on_sagemaker:
        return
    _invoke_endpoint("llm")(function, targets)
    stack = Stack.of(targets.search)
    for name in targets.config.llm.alternate_endpoints:
        function.add_to_role_policy(iam.PolicyStatement(
            actions=["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"],
            resources=[stack.format_arn(service="sagemaker", resource="endpoint", resource_name=name)]))


def _bedrock(function: lambda_.Function, targets: GrantTargets) -> None:
    """Converse and ConverseStream (authorised as InvokeModel and InvokeModelWithResponseStream) on the model
    configured and its alternates (llm.bedrock.alternates): through a cross-Region inference profile, the profile
    and the model in each Region it routes to, the latter only when called through that profile."""
    if not targets.config.llm.on_bedrock:
        return
    stack, model = Stack.of(targets.search), targets.config.llm.bedrock
    actions = ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]
    for model_id in model.model_ids:
        def foundation_model(region: str, model_id: str = model_id) -> str:
            return stack.format_arn(service="bedrock", region=region, account="", resource="foundation-model",
                                    resource_name=foundation_model_id(model_id))

        if not is_inference_profile(model_id):
            function.add_to_role_policy(iam.PolicyStatement(actions=actions,
                                                            resources=[foundation_model(stack.region)]))
            continue
        profile = stack.format_arn(service="bedrock", resource="inference-profile", resource_name=model_id)
        function.add_to_role_policy(iam.PolicyStatement(actions=actions, resources=[profile]))
        function.add_to_role_policy(iam.PolicyStatement(
            actions=actions, resources=[foundation_model(region) for region in model.destination_regions],
            conditions={"StringEquals": {"bedrock:InferenceProfileArn": profile}}))


def _pubmed_secret(function: lambda_.Function, targets: GrantTargets) -> None:
    if targets.secrets.ncbi_api_key is not None:  # PubMed enabled in this environment
        targets.secrets.ncbi_api_key.grant_read(function)


def _workspace_accounts(function: lambda_.Function, targets: GrantTargets) -> None:
    """GetSecretValue on the per-user account secrets (`<prefix><user id>`, put by operators) and nothing else;
    they are encrypted with the environment key, which the function may use only through Secrets Manager."""
    prefix = targets.config.workspace.account_secret_prefix
    if not targets.config.workspace.enabled or not prefix:
        return
    stack = Stack.of(targets.search)
    function.add_to_role_policy(iam.PolicyStatement(
        actions=["secretsmanager:GetSecretValue"],
        resources=[stack.format_arn(service="secretsmanager", resource="secret", resource_name=f"{prefix}*",
                                    arn_format=ArnFormat.COLON_RESOURCE_NAME)]))
    function.add_to_role_policy(iam.PolicyStatement(
        actions=["kms:Decrypt"], resources=[targets.key.key_arn],
        conditions={"StringEquals": {"kms:ViaService": f"secretsmanager.{stack.region}.amazonaws.com"}}))


def _web_search_secret(function: lambda_.Function, targets: GrantTargets) -> None:
    if targets.secrets.web_search_api_key is not None:  # web search enabled in this environment
        targets.secrets.web_search_api_key.grant_read(function)


def _audit_write(function: lambda_.Function, targets: GrantTargets) -> None:
    # Append-only: the audit trail is never updated or deleted by the app. A record and its partition's chain
    # head are one TransactWriteItems of two conditional puts (authorised as PutItem); the head is read first.
    targets.storage.audit_table.grant(function, "dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DescribeTable")
    # and an anchor object per record, outside the table (adapters/aws/s3_audit_anchor.py); never a delete
    targets.storage.audit_anchor_bucket.grant_put(function, f"{AUDIT_ANCHOR_PREFIX}*")
    targets.key.grant_encrypt_decrypt(function)


def _audit_read(function: lambda_.Function, targets: GrantTargets) -> None:
    targets.storage.audit_table.grant_read_data(function)
    # verify compares each chain with its anchors
    targets.storage.audit_anchor_bucket.grant_read(function, f"{AUDIT_ANCHOR_PREFIX}*")


def _textract(function: lambda_.Function, targets: GrantTargets) -> None:
    # Text detection jobs have no resource-level permissions; Textract reads the PDF with the caller's S3 grant.
    function.add_to_role_policy(iam.PolicyStatement(
        actions=["textract:StartDocumentTextDetection", "textract:GetDocumentTextDetection"], resources=["*"]))


def _transcribe(function: lambda_.Function, targets: GrantTargets) -> None:
    """Transcribe Medical jobs this app names (voiceassist-*); the voice bucket's transient prefix with the
    environment key (the job reads the recording and writes the transcript with the caller's rights:
    StartMedicalTranscriptionJob takes no data-access role, so no iam:PassRole).

    AWS's rules (Service Authorization Reference, Amazon Transcribe): StartMedicalTranscriptionJob has no resource
    type, so its statement's Resource is "*" (a job or vocabulary ARN there matches nothing and the call is
    denied); its condition keys pin where the transcript goes instead: transcribe:OutputBucketName (the voice
    bucket), transcribe:OutputKey (under voice/voiceassist-*), transcribe:OutputEncryptionKMSKeyId (the key's ARN,
    which the function sends). Get and Delete take the medicaltranscriptionjob resource
    (medical-transcription-job/${JobName})."""
    stack = Stack.of(targets.search)
    function.add_to_role_policy(iam.PolicyStatement(
        actions=["transcribe:StartMedicalTranscriptionJob"], resources=["*"],
        conditions={"StringEquals": {
                        "transcribe:OutputBucketName": targets.storage.voice_bucket.bucket_name,
                        "transcribe:OutputEncryptionKMSKeyId": targets.key.key_arn},
                    "StringLike": {"transcribe:OutputKey": f"{VOICE_PREFIX}{TRANSCRIBE_JOB_PREFIX}*"}}))
    function.add_to_role_policy(iam.PolicyStatement(
        actions=["transcribe:GetMedicalTranscriptionJob", "transcribe:DeleteMedicalTranscriptionJob"],
        resources=[stack.format_arn(service="transcribe", resource="medical-transcription-job",
                                    resource_name=f"{TRANSCRIBE_JOB_PREFIX}*")]))
    function.add_to_role_policy(iam.PolicyStatement(
        actions=["s3:PutObject", "s3:GetObject", "s3:DeleteObject"],
        resources=[targets.storage.voice_bucket.arn_for_objects(f"{VOICE_PREFIX}*")]))
    targets.key.grant_encrypt_decrypt(function)


def _voice(function: lambda_.Function, targets: GrantTargets) -> None:
    """Transcription as _transcribe, and Polly's SynthesizeSpeech, which has no resource but lexicons."""
    _transcribe(function, targets)
    function.add_to_role_policy(iam.PolicyStatement(actions=["polly:SynthesizeSpeech"], resources=["*"]))


def _comprehend_medical(function: lambda_.Function, targets: GrantTargets) -> None:
    # Only where the environment runs Comprehend Medical; DetectPHI has no resource-level permissions.
    if targets.config.phi_detector is PhiDetectorKind.PRESIDIO:
        return
    function.add_to_role_policy(iam.PolicyStatement(actions=["comprehendmedical:DetectPHI"], resources=["*"]))


def _metrics_read(function: lambda_.Function, targets: GrantTargets) -> None:
    # ListMetrics and GetMetricData have no resource-level permissions; the reader asks the VoiceAssist namespace
    function.add_to_role_policy(iam.PolicyStatement(
        actions=["cloudwatch:ListMetrics", "cloudwatch:GetMetricData"], resources=["*"]))


def _stream(function: lambda_.Function, targets: GrantTargets) -> None:
    function.add_to_role_policy(
        iam.PolicyStatement(
            actions=["execute-api:ManageConnections"],
            resources=[
                Stack.of(targets.search).format_arn(
                    service="execute-api",
                    resource=targets.websocket_api.api_id,
                    resource_name=f"{targets.websocket_stage}/POST/@connections/*",
                )
            ],
        )
    )


_GRANTS: dict[Access, Callable[[lambda_.Function, GrantTargets], None]] = {
    Access.BUCKET_READ: lambda fn, t: t.storage.documents_bucket.grant_read(fn),
    Access.BUCKET_WRITE: lambda fn, t: t.storage.documents_bucket.grant_write(fn),
    Access.DOCUMENTS_READ: lambda fn, t: t.storage.documents_table.grant_read_data(fn),
    Access.DOCUMENTS_WRITE: lambda fn, t: t.storage.documents_table.grant_read_write_data(fn),
    Access.JOBS_READ: lambda fn, t: t.storage.jobs_table.grant_read_data(fn),
    Access.JOBS_WRITE: lambda fn, t: t.storage.jobs_table.grant_read_write_data(fn),
    Access.SESSIONS_READ: lambda fn, t: t.storage.sessions_table.grant_read_data(fn),
    Access.SESSIONS_WRITE: lambda fn, t: t.storage.sessions_table.grant_read_write_data(fn),
    Access.AUDIT_READ: _audit_read,
    Access.AUDIT_WRITE: _audit_write,
    Access.STATE_WRITE: lambda fn, t: t.storage.state_table.grant_read_write_data(fn),
    Access.IDEMPOTENCY: lambda fn, t: t.storage.idempotency_table.grant_read_write_data(fn),
    Access.BILLING_READ: lambda fn, t: t.storage.billing_table.grant_read_data(fn),
    Access.BILLING_WRITE: lambda fn, t: t.storage.billing_table.grant_read_write_data(fn),
    Access.COST_ALERTS: lambda fn, t: t.cost_alerts.grant_publish(fn),
    Access.SEARCH_READ: _search(SEARCH_READ_ACTIONS),
    Access.SEARCH_WRITE: _search(SEARCH_WRITE_ACTIONS),
    Access.OPENAI_SECRET: lambda fn, t: t.secrets.openai_api_key.grant_read(fn),
    Access.PUBMED_SECRET: _pubmed_secret,
    Access.LLM_INVOKE: _llm,
    Access.BEDROCK_INVOKE: _bedrock,
    Access.EMBEDDING_INVOKE: _embedding,
    Access.START_INGEST: lambda fn, t: t.ingest.grant_start_execution(fn),
    Access.START_QUERY: lambda fn, t: t.query.grant_start_sync_execution(fn),
    Access.STREAM_TO_CLIENTS: _stream,
    Access.OCR_TEXTRACT: _textract,
    Access.DESCRIBE_INGEST: lambda fn, t: t.ingest.grant_execution(fn, "states:DescribeExecution"),
    Access.PHI_COMPREHEND_MEDICAL: _comprehend_medical,
    Access.WORKSPACE_ACCOUNTS: _workspace_accounts,
    Access.WEB_SEARCH_SECRET: _web_search_secret,
    # lambda:InvokeFunction on what the caller's environment variable names, nothing else: the `live` alias's ARN
    # alone where it exists (a grant on the alias covers that qualified ARN only), else the function's ARN and its
    # qualified forms (CDK grants both)
    Access.INVOKE_TOOL_RUNNER: lambda fn, t: t.tool_runner.grant_invoke(fn),
    Access.INVOKE_PHI_DETECTOR: lambda fn, t: t.phi_detector.grant_invoke(fn),
    Access.METRICS_READ: _metrics_read,
    Access.VOICE: _voice,
    Access.TRANSCRIBE: _transcribe,
}
