"""What the AWS calls recorded in the packaging run mean as catalogue grants (voiceassist.constants.functions).

A function must be granted every Access its calls need (else AWS denies it) and nothing else, except the
grants below whose code path the canned events do not take, each with the reason it stays.
"""

from __future__ import annotations

from voiceassist.constants.environment import (
    ENV_AUDIT_TABLE,
    ENV_BEDROCK_MODEL_ID,
    ENV_BILLING_TABLE,
    ENV_DATA_KEY_ID,
    ENV_DOCUMENTS_BUCKET,
    ENV_DOCUMENTS_TABLE,
    ENV_IDEMPOTENCY_TABLE,
    ENV_INGEST_STATE_MACHINE_ARN,
    ENV_JOBS_TABLE,
    ENV_PHI_DETECTOR_FUNCTION,
    ENV_QUERY_STATE_MACHINE_ARN,
    ENV_SESSIONS_TABLE,
    ENV_STATE_TABLE,
    ENV_TOOL_RUNNER_FUNCTION,
    ENV_VOICE_BUCKET,
    ENV_WEB_SEARCH_SECRET_ARN,
    ENV_WORKSPACE_SECRET_PREFIX,
)
from voiceassist.constants.functions import Access

A = Access
Call = tuple[str, str, str]  # service, operation (or HTTP method), resource (table, bucket, ARN or path)

_BY_REFERENCE = "large artefacts travel as S3 blobs between the ingest steps (ingest/artifacts.py hand_off); " \
                "the sample document fits inline"
NOT_EXERCISED: dict[tuple[str, Access], str] = {
    ("ingest_trigger", A.BUCKET_WRITE): "an upload whose content is live already (unchanged) is deleted "
                                        "(ingest/settling.py); the run uploads each content once",
    ("ingest_reconcile", A.IDEMPOTENCY): "the sweep of incoming/ claims an upload older than its settling time "
                                         "(10 minutes) whose event was lost; the run's uploads are new (tested on "
                                         "moto's S3 and Step Functions: tests/unit/test_upload_sweep.py)",
    ("ingest_register", A.DOCUMENTS_WRITE): "Mark Registration Failed fails the version of a registration that "
                                            "failed after writing its job; the trigger registers, so the run's "
                                            "executions all start with a registered job",
    ("ingest_extract", A.BUCKET_WRITE): _BY_REFERENCE,
    ("ingest_clean", A.BUCKET_READ): _BY_REFERENCE,
    ("ingest_clean", A.BUCKET_WRITE): _BY_REFERENCE,
    ("ingest_chunk", A.BUCKET_READ): _BY_REFERENCE,
    ("ingest_chunk", A.BUCKET_WRITE): _BY_REFERENCE,
    ("ingest_embed", A.BUCKET_READ): _BY_REFERENCE,
    ("ingest_embed", A.BUCKET_WRITE): _BY_REFERENCE,
    ("ingest_embed", A.JOBS_WRITE): "progress is recorded on the job for documents longer than one batch",
    ("ingest_embed", A.EMBEDDING_INVOKE): "only with an embedding endpoint (cdk.json embedding.enabled)",
    ("ingest_index", A.BUCKET_READ): _BY_REFERENCE,
    ("ingest_finalize", A.BUCKET_READ): _BY_REFERENCE,
    ("ingest_finalize", A.BUCKET_WRITE): "stored artefacts are deleted once the version is live",
    ("ingest_fail", A.BUCKET_READ): _BY_REFERENCE,
    ("query_retrieve", A.EMBEDDING_INVOKE): "only with an embedding endpoint (cdk.json embedding.enabled)",
    ("query_retrieve", A.PUBMED_SECRET): "only where PubMed is enabled (the NCBI key's secret)",
    ("query_generate", A.OPENAI_SECRET): "only with the cloud model configured (the run answers extractively)",
    ("query_generate", A.LLM_INVOKE): "only with the in-boundary LLM endpoint (cdk.json llm.provider sagemaker)",
    ("query_generate", A.BEDROCK_INVOKE): "only where cdk.json llm.provider is bedrock; the run answers "
                                          "extractively, moto has no Converse, and the adapter's calls are "
                                          "contract-tested on botocore's Stubber "
                                          "(tests/contract/test_in_boundary_chat_contract.py)",
    ("query_generate", A.STATE_WRITE): "the models' circuit breakers, read and written when a model is called",
    ("query_generate", A.BILLING_WRITE): "a model call's tokens and cost; the run answers extractively (no model "
                                         "call), tested on both ledgers (tests/contract/test_billing_contract.py)",
    ("query_generate", A.COST_ALERTS): "only when a cost limit's alert share is reached "
                                       "(tests/integration/test_admin_controls.py)",
    ("api", A.BILLING_READ): "GET /v1/admin/billing (tests/unit/api/test_api_admin_config.py)",
    ("query_generate", A.SESSIONS_READ): "the conversation goes into a model's prompt; without one the run "
                                         "answers extractively (query/answering.py generate)",
    ("ingest_ocr", A.BUCKET_READ): "Textract reads the scanned PDF from S3 with the caller's rights; moto's "
                                   "Textract does not read it",
    ("ingest_ocr", A.BUCKET_WRITE): _BY_REFERENCE,
    ("query_rank", A.SESSIONS_READ): "an abstention in a session compares the question with the session's last "
                                     "one (query/retrieval.py _previous_question); the canned question is answered",
    ("query_tools", A.EMBEDDING_INVOKE): "only with an embedding endpoint (cdk.json embedding.enabled)",
    ("query_tools", A.LLM_INVOKE): "generate_differential_diagnosis, with the in-boundary LLM endpoint (cdk.json "
                                   "llm.enabled); tested on the stub model server (test_differential_tool.py)",
    ("query_tools", A.BEDROCK_INVOKE): "generate_differential_diagnosis where cdk.json llm.provider is bedrock; moto "
                                       "has no Converse (tests/contract/test_in_boundary_chat_contract.py)",
    **{(step, A.STREAM_TO_CLIENTS): "only when a client streams the query (conversation/events.py; "
                                    "tests/integration/test_query_events.py)"
       for step in ("query_detect_phi", "query_classify", "query_rank", "query_generate")},
    **{(step, A.PHI_COMPREHEND_MEDICAL): "only where phi_detector is comprehend_medical or both (cdk.json); the "
                                         "run uses Presidio, and the adapter's calls are contract-tested on "
                                         "botocore's Stubber (tests/unit/test_phi_comprehend_medical.py)"
       for step in ("query_detect_phi", "query_generate", "query_assemble", "stream", "api", "mcp",
                    "ingest_screen")},
    **{(face, access): "the session summary by the in-boundary model, only once turns leave a session's history "
                       "window and where cdk.json configures the model (llm.provider sagemaker or bedrock); tested "
                       "on the stub model server (tests/unit/test_session_summary_on_aws.py)"
       for face in ("api", "stream") for access in (A.LLM_INVOKE, A.BEDROCK_INVOKE)},
    ("api", A.METRICS_READ): "GET /v1/admin/telemetry reads the operator's metrics back from CloudWatch; moto's "
                             "GetMetricData has no percentiles, and the reader's calls are tested on botocore's "
                             "Stubber (tests/unit/test_metrics.py)",
    ("stream", A.SESSIONS_WRITE): "a question in a session over an open connection: its clarifying exchange and "
                                  "its sealed memory (tests/unit/test_streaming.py, conversation/memory.py)",
    ("stream", A.STATE_WRITE): "a question in a session over an open connection: the follow-ups' evidence and "
                               "the session's memory (conversation/orchestrator.py, conversation/memory.py)",
    ("stream", A.START_QUERY): "a question over an open connection (tests/unit/test_streaming.py)",
    ("stream", A.STREAM_TO_CLIENTS): "a question over an open connection (tests/unit/test_streaming.py)",
    ("api", A.VOICE): "a spoken question (/v1/voice/*): moto runs no Transcribe Medical job and has no Polly "
                      "voice; the adapters' calls are contract-tested on botocore's Stubber "
                      "(tests/contract/test_speech_contract.py)",
    ("stream", A.TRANSCRIBE): "a spoken question over an open connection (voice.start/chunk/end): moto runs no "
                              "Transcribe Medical job; the chunk store's and the job's calls are contract-tested "
                              "on botocore's Stubber (tests/contract/test_audio_chunk_store_contract.py, "
                              "tests/integration/test_voice_stream_aws.py)",
}

_DYNAMODB_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
_DYNAMODB_READS = {"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems", "DescribeTable"}
_S3_READS = {"GetObject", "HeadObject", "ListObjectsV2", "ListObjects"}
_S3_WRITES = {"PutObject", "DeleteObject", "DeleteObjects", "CopyObject"}
_KMS_DATA_KEYS = {"GenerateDataKey", "Decrypt"}
_SEARCH_READS = ("/_search", "/_count", "/_msearch")


def _tables(env: dict[str, str]) -> dict[str, tuple[Access, Access]]:
    """Table name -> (the Access that reads it, the one that writes it)."""
    return {env[ENV_DOCUMENTS_TABLE]: (A.DOCUMENTS_READ, A.DOCUMENTS_WRITE),
            env[ENV_JOBS_TABLE]: (A.JOBS_READ, A.JOBS_WRITE),
            env[ENV_SESSIONS_TABLE]: (A.SESSIONS_READ, A.SESSIONS_WRITE),
            env[ENV_AUDIT_TABLE]: (A.AUDIT_READ, A.AUDIT_WRITE),
            env[ENV_STATE_TABLE]: (A.STATE_WRITE, A.STATE_WRITE),
            env[ENV_IDEMPOTENCY_TABLE]: (A.IDEMPOTENCY, A.IDEMPOTENCY),
            env[ENV_BILLING_TABLE]: (A.BILLING_READ, A.BILLING_WRITE)}


def _voice_call(service: str, operation: str, resource: str, env: dict[str, str]) -> bool:
    """Transcribe Medical jobs, Polly, and the voice bucket (adapters/aws/transcribe_medical_stt.py, polly_tts.py)."""
    return (service == "transcribe" and operation.endswith("MedicalTranscriptionJob")
            or (service, operation) == ("polly", "SynthesizeSpeech")
            or service == "s3" and resource == env.get(ENV_VOICE_BUCKET) and operation in _S3_READS | _S3_WRITES)


def accesses_used(calls: list[Call], env: dict[str, str]) -> tuple[set[Access], list[Call]]:
    """The Accesses the calls need (a table written is its write Access alone: it grants reading too), and
    the calls no Access covers."""
    tables = _tables(env)
    used: set[Access] = set()
    unmapped: list[Call] = []
    written = {resource for service, operation, resource in calls
               if service == "dynamodb" and operation in _DYNAMODB_WRITES}
    for call in set(calls):
        service, operation, resource = call
        if service == "dynamodb" and resource in tables and operation in _DYNAMODB_READS | _DYNAMODB_WRITES:
            used.add(tables[resource][1 if resource in written else 0])
        elif service == "kms" and resource == env[ENV_DATA_KEY_ID] and operation in _KMS_DATA_KEYS:
            # the field cipher (envelope_cipher.py): a session's clinical context, or a pending action's call in
            # the state table (tools/actions.py) where no session is touched; the table grants carry the key's use
            touched = {resource for service, _, resource in calls if service == "dynamodb"}
            sealed = env[ENV_STATE_TABLE] if env[ENV_SESSIONS_TABLE] not in touched and env[ENV_STATE_TABLE] in \
                touched else env[ENV_SESSIONS_TABLE]
            used.add(tables[sealed][1 if sealed in written else 0])
        elif service == "s3" and resource == env[ENV_DOCUMENTS_BUCKET] and operation in _S3_READS:
            used.add(A.BUCKET_READ)
        elif service == "s3" and resource == env[ENV_DOCUMENTS_BUCKET] and operation in _S3_WRITES:
            used.add(A.BUCKET_WRITE)
        elif (service, operation, resource) == ("stepfunctions", "StartExecution", env[ENV_INGEST_STATE_MACHINE_ARN]):
            used.add(A.START_INGEST)
        elif (service, operation, resource) == ("stepfunctions", "StartSyncExecution",
                                                env[ENV_QUERY_STATE_MACHINE_ARN]):
            used.add(A.START_QUERY)
        elif (service, operation) == ("stepfunctions", "DescribeExecution") and resource.startswith(
                env[ENV_INGEST_STATE_MACHINE_ARN].replace(":stateMachine:", ":execution:", 1) + ":"):
            used.add(A.DESCRIBE_INGEST)
        elif service == "textract" and operation in ("StartDocumentTextDetection", "GetDocumentTextDetection"):
            used.add(A.OCR_TEXTRACT)
        elif (service == "bedrock-runtime" and operation in ("Converse", "ConverseStream")
              and resource == env.get(ENV_BEDROCK_MODEL_ID)):
            used.add(A.BEDROCK_INVOKE)
        elif (service, operation, resource) == ("lambda", "Invoke", env[ENV_TOOL_RUNNER_FUNCTION]):
            used.add(A.INVOKE_TOOL_RUNNER)
        elif (service, operation, resource) == ("lambda", "Invoke", env[ENV_PHI_DETECTOR_FUNCTION]):
            used.add(A.INVOKE_PHI_DETECTOR)
        elif service == "cloudwatch" and operation in ("ListMetrics", "GetMetricData"):
            used.add(A.METRICS_READ)
        elif _voice_call(service, operation, resource, env):
            used.add(A.VOICE)
        elif service == "comprehendmedical" and operation == "DetectPHI":
            used.add(A.PHI_COMPREHEND_MEDICAL)
        elif service == "apigatewaymanagementapi" and operation == "PostToConnection":
            used.add(A.STREAM_TO_CLIENTS)
        elif (service, operation) == ("secretsmanager", "GetSecretValue") and env.get(ENV_WORKSPACE_SECRET_PREFIX) \
                and resource.startswith(env[ENV_WORKSPACE_SECRET_PREFIX]):
            used.add(A.WORKSPACE_ACCOUNTS)
        elif (service, operation, resource) == ("secretsmanager", "GetSecretValue",
                                                env.get(ENV_WEB_SEARCH_SECRET_ARN)):
            used.add(A.WEB_SEARCH_SECRET)
        elif service == "opensearch":
            reads = operation in ("GET", "HEAD") or resource.split("?")[0].endswith(_SEARCH_READS)
            used.add(A.SEARCH_READ if reads else A.SEARCH_WRITE)
        else:
            unmapped.append(call)
    return used, unmapped
