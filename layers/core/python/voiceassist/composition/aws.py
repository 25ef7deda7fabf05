"""The AWS factory: DynamoDB, S3, OpenSearch, Step Functions, and secrets from Secrets Manager. Clients are
created on first use, never at import."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from voiceassist.composition.base import Dependencies
from voiceassist.settings import PhiDetectorKind, Runtime

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer

    from voiceassist.ports import (
        AlertPublisher,
        AuditLog,
        BillingLedger,
        BlobStore,
        DocumentStore,
        FieldCipher,
        JobStore,
        KeyValueState,
        MetricReader,
        MetricSink,
        PageOcr,
        PhiDetector,
        PipelineRunner,
        RateLimiter,
        SearchIndex,
        SessionStore,
        UploadSigner,
    )
    from voiceassist.speech import SpeechToText, TextToSpeech
    from voiceassist.speech.chunked import AudioChunkStore
    from voiceassist.tools.registry import ToolRegistry
    from voiceassist.tools.remote import ToolRunner


class AwsDependencies(Dependencies, runtime=Runtime.AWS):
    # A warm function reads the admin configuration at most every 30 s: a change applies within that, no deploy.
    CONFIG_TTL_S = 30.0

    @cached_property
    def _dynamodb(self) -> Any:
        import boto3

        return boto3.client("dynamodb", region_name=self.settings.region)

    @cached_property
    def blobs(self) -> BlobStore:
        from voiceassist.adapters.aws.s3_blobs import S3BlobStore

        return S3BlobStore(bucket=str(self.settings.documents_bucket))

    @cached_property
    def upload_signer(self) -> UploadSigner | None:
        from voiceassist.adapters.aws.s3_upload_signer import S3UploadSigner

        return S3UploadSigner(bucket=str(self.settings.documents_bucket), region_name=self.settings.region)

    @cached_property
    def documents(self) -> DocumentStore:
        from voiceassist.adapters.aws.dynamodb_documents import DynamoDbDocumentStore

        return DynamoDbDocumentStore(str(self.settings.documents_table), client=self._dynamodb)

    @cached_property
    def jobs(self) -> JobStore:
        from voiceassist.adapters.aws.dynamodb_jobs import DynamoDbJobStore

        return DynamoDbJobStore(str(self.settings.jobs_table), client=self._dynamodb)

    @cached_property
    def sessions(self) -> SessionStore:
        from voiceassist.adapters.aws.dynamodb_sessions import DynamoDbSessionStore

        return DynamoDbSessionStore(str(self.settings.sessions_table), client=self._dynamodb,
                                    cipher=self.field_cipher)

    @cached_property
    def field_cipher(self) -> FieldCipher:
        """PHI fields at rest (a session's clinical context): KMS data keys under the environment key."""
        from voiceassist.adapters.aws.envelope_cipher import EnvelopeCipher, KmsDataKeys
        from voiceassist.errors import InvalidInput
        from voiceassist.settings import ENV_DATA_KEY_ID

        if not self.settings.data_key_id:
            raise InvalidInput(f"invalid configuration: the aws runtime needs {ENV_DATA_KEY_ID}")
        return EnvelopeCipher(KmsDataKeys(self.settings.data_key_id, region_name=self.settings.region))

    @cached_property
    def audit(self) -> AuditLog:
        from voiceassist.adapters.aws.dynamodb_audit import DynamoDbAuditLog
        from voiceassist.adapters.aws.s3_audit_anchor import S3AuditAnchor

        bucket = self.settings.audit_anchor_bucket
        return DynamoDbAuditLog(str(self.settings.audit_table), client=self._dynamodb,
                                anchor=S3AuditAnchor(bucket, region_name=self.settings.region) if bucket else None)

    @cached_property
    def state(self) -> KeyValueState:
        from voiceassist.adapters.aws.dynamodb_state import DynamoDbKeyValueState

        return DynamoDbKeyValueState(str(self.settings.state_table), client=self._dynamodb)

    @cached_property
    def metrics(self) -> MetricSink:
        from voiceassist.adapters.aws.emf_metrics import EmfMetricSink

        return EmfMetricSink()

    @cached_property
    def metric_reader(self) -> MetricReader:
        from voiceassist.adapters.aws.cloudwatch_metrics import CloudWatchMetricReader

        return CloudWatchMetricReader(region_name=self.settings.region)

    @cached_property
    def tool_registry(self) -> ToolRegistry:
        """No function that runs tools on AWS runs Presidio itself (api and mcp are zip functions; query_tools, the
        image since session 20, checks through query_detect_phi; constants/functions.py TOOL_FUNCTIONS), and
        query_tools has neither PubMed's settings nor the web search key. So search_pubmed is
        never registered on AWS: never offered to a model, listed or run (explicitly, rather than refused per
        call). web_search is registered only with Comprehend Medical alone as the detector, an API call api and
        mcp may make (their PHI_COMPREHEND_MEDICAL grant); infra enables web search only then (infra/config.py)."""
        from voiceassist.composition.workspace import workspace_tools
        from voiceassist.tools.catalogue import default_registry

        checkable = self.settings.phi_detector is PhiDetectorKind.COMPREHEND_MEDICAL
        configured = [t for t in workspace_tools(self) if checkable or t.definition.requires_phi]
        return default_registry(configured, leaving_boundary=False)

    @cached_property
    def phi_detector(self) -> PhiDetector:
        """query_tools ships no Presidio: it checks tool arguments with the query_detect_phi function (Lambda
        Invoke; a failure counts as PHI). Every other function builds its detector from the settings."""
        if self.settings.phi_detector_function:
            from voiceassist.adapters.aws.lambda_phi_detector import LambdaPhiDetector

            return LambdaPhiDetector(self.settings.phi_detector_function, region_name=self.settings.region)
        from voiceassist.composition.phi_detectors import build_detector

        return build_detector(self.settings)

    @cached_property
    def tool_runner(self) -> ToolRunner | None:
        """api and mcp have no ML layer: they hand the embedding tools to the query_tools function."""
        if not self.settings.tool_runner_function:
            return None
        from voiceassist.adapters.aws.lambda_tool_runner import LambdaToolRunner

        return LambdaToolRunner(self.settings.tool_runner_function, region_name=self.settings.region)

    @cached_property
    def billing(self) -> BillingLedger:
        from voiceassist.adapters.aws.dynamodb_billing import DynamoDbBillingLedger
        from voiceassist.errors import InvalidInput
        from voiceassist.settings import ENV_BILLING_TABLE

        if not self.settings.billing_table:
            raise InvalidInput(f"invalid configuration: the aws runtime needs {ENV_BILLING_TABLE}")
        return DynamoDbBillingLedger(self.settings.billing_table, client=self._dynamodb)

    @cached_property
    def alerts(self) -> AlertPublisher:
        """The operators' SNS topic; without one (a stack deployed without alert e-mails), a log line."""
        if not self.settings.alerts_topic_arn:
            from voiceassist.adapters.local.log_alerts import LogAlertPublisher

            return LogAlertPublisher()
        from voiceassist.adapters.aws.sns_alerts import SnsAlertPublisher

        return SnsAlertPublisher(self.settings.alerts_topic_arn, region_name=self.settings.region)

    @cached_property
    def rate_limiter(self) -> RateLimiter:
        from voiceassist.adapters.aws.dynamodb_rate_limits import DynamoDbRateLimiter

        return DynamoDbRateLimiter(str(self.settings.state_table), client=self._dynamodb)

    @cached_property
    def idempotency(self) -> BasePersistenceLayer:
        """Powertools idempotency records (the S3 trigger's) in their DynamoDB table."""
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        from voiceassist.errors import InvalidInput
        from voiceassist.settings import ENV_IDEMPOTENCY_TABLE

        if not self.settings.idempotency_table:
            raise InvalidInput(f"invalid configuration: the aws runtime needs {ENV_IDEMPOTENCY_TABLE}")
        return DynamoDBPersistenceLayer(table_name=self.settings.idempotency_table, boto3_client=self._dynamodb)

    @cached_property
    def index(self) -> SearchIndex:
        from voiceassist.adapters.aws.opensearch_index import OpenSearchIndex
        from voiceassist.constants.models import DIMENSION, model_id

        # The index records the model id; the embedder itself is only loaded by the steps that embed.
        return OpenSearchIndex(endpoint=str(self.settings.opensearch_endpoint),
                               index_alias=self.settings.opensearch_index,
                               pipeline=self.settings.opensearch_pipeline, region=self.settings.region,
                               dimension=DIMENSION,
                               embedding_model=model_id(self.settings.embedding_precision),
                               fusion=self.settings.fusion, bm25_weight=self.settings.bm25_weight)

    @cached_property
    def pipelines(self) -> PipelineRunner:
        from voiceassist.adapters.aws.stepfunctions_pipeline import StepFunctionsPipelineRunner

        return StepFunctionsPipelineRunner({"ingest": str(self.settings.ingest_state_machine_arn),
                                            "query": str(self.settings.query_state_machine_arn)})


    @cached_property
    def speech_to_text(self) -> SpeechToText:
        """Transcribe Medical batch jobs; without a voice bucket the voice routes answer 501."""
        from voiceassist.adapters.aws.transcribe_medical_stt import TranscribeMedicalSpeechToText
        from voiceassist.speech import VoiceNotAvailable

        if not self.settings.voice_bucket:
            raise VoiceNotAvailable("voice is not configured in this environment (no voice bucket)")
        return TranscribeMedicalSpeechToText(
            bucket=self.settings.voice_bucket, kms_key_id=self.settings.data_key_id,
            specialty=self.settings.transcribe_specialty, speech_type=self.settings.transcribe_type,
            vocabulary=self.settings.transcribe_vocabulary, region=self.settings.region)

    @cached_property
    def audio_chunks(self) -> AudioChunkStore:
        """A streamed question's pieces under the voice bucket's voice/stream/ prefix, SSE-KMS with the data key."""
        from voiceassist.adapters.aws.s3_audio_chunks import S3AudioChunkStore
        from voiceassist.speech import VoiceNotAvailable

        if not self.settings.voice_bucket:
            raise VoiceNotAvailable("voice is not configured in this environment (no voice bucket)")
        return S3AudioChunkStore(bucket=self.settings.voice_bucket, kms_key_id=self.settings.data_key_id,
                                 region=self.settings.region)

    @cached_property
    def text_to_speech(self) -> TextToSpeech:
        from voiceassist.adapters.aws.polly_tts import PollyTextToSpeech

        return PollyTextToSpeech(voice=self.settings.polly_voice, engine=self.settings.polly_engine,
                                 region=self.settings.region)

    @cached_property
    def ocr(self) -> PageOcr:
        from voiceassist.adapters.aws.textract_ocr import TextractOcr

        return TextractOcr(bucket=str(self.settings.documents_bucket), region=self.settings.region)
