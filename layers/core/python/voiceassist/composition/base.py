"""The base of both factories: what they share, the process-wide set, and the local runtime's hook."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from voiceassist import pipeline_runners
from voiceassist.settings import PhiMode, Runtime, Settings, get_settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer

    from voiceassist.admin.billing import CostGate
    from voiceassist.admin.config import AdminConfig
    from voiceassist.admin.config_store import ConfigStore
    from voiceassist.authentication import TokenVerifier
    from voiceassist.ingest.stages import IngestionContext
    from voiceassist.ports import (
        AlertPublisher,
        AuditLog,
        BillingLedger,
        BlobStore,
        ChatModel,
        DocumentStore,
        Embedder,
        EventPublisher,
        FieldCipher,
        JobStore,
        KeyValueState,
        MetricReader,
        MetricSink,
        PageOcr,
        PhiDetector,
        PipelineRunner,
        RateLimiter,
        Reranker,
        SearchIndex,
        SearchSource,
        SessionStore,
        UploadSigner,
    )
    from voiceassist.query.state import QueryContext
    from voiceassist.speech import SpeechToText, TextToSpeech
    from voiceassist.speech.chunked import AudioChunkStore
    from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary
    from voiceassist.tools.executor import ToolExecutor
    from voiceassist.tools.registry import ToolRegistry
    from voiceassist.tools.remote import ToolRunner

PipelineRunnerFactory = Callable[["Dependencies"], "PipelineRunner"]


def register_pipeline_runner(factory: PipelineRunnerFactory | None) -> None:
    """The local runtime installs its in-process runner of the ASL files (voiceassist.pipeline_runners, which it
    reaches without importing this package); None removes it."""
    pipeline_runners.register(factory)


class Dependencies:
    """Lazily built adapters for one Settings; what both factories share. Attributes may be replaced (tests
    inject fakes). `Dependencies(settings)` returns the factory of the settings' runtime."""

    _factories: ClassVar[dict[Runtime, type[Dependencies]]] = {}

    def __init_subclass__(cls, *, runtime: Runtime | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if runtime is not None:
            Dependencies._factories[runtime] = cls

    def __new__(cls, settings: Settings) -> Dependencies:
        if cls is Dependencies:
            return super().__new__(cls._factories[settings.runtime])
        return super().__new__(cls)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.RLock()

    # ---- stores (each factory builds its own) -------------------------------------------------------
    @cached_property
    def blobs(self) -> BlobStore:
        raise NotImplementedError

    @cached_property
    def documents(self) -> DocumentStore:
        raise NotImplementedError

    @cached_property
    def jobs(self) -> JobStore:
        raise NotImplementedError

    @cached_property
    def sessions(self) -> SessionStore:
        raise NotImplementedError

    @cached_property
    def field_cipher(self) -> FieldCipher:
        raise NotImplementedError

    @cached_property
    def audit(self) -> AuditLog:
        raise NotImplementedError

    @cached_property
    def state(self) -> KeyValueState:
        raise NotImplementedError

    @cached_property
    def metrics(self) -> MetricSink:
        """The operator's metrics (voiceassist.telemetry.points): EMF lines on AWS, the SQLite store locally."""
        raise NotImplementedError

    @cached_property
    def metric_reader(self) -> MetricReader:
        """The recorded metrics, aggregated (the admin telemetry view, `GET /metrics`)."""
        raise NotImplementedError

    @cached_property
    def idempotency(self) -> BasePersistenceLayer:
        raise NotImplementedError

    @cached_property
    def index(self) -> SearchIndex:
        raise NotImplementedError

    @cached_property
    def rate_limiter(self) -> RateLimiter:
        raise NotImplementedError

    @cached_property
    def pipelines(self) -> PipelineRunner:
        raise NotImplementedError

    @cached_property
    def billing(self) -> BillingLedger:
        """The cost ledger (voiceassist.admin.billing)."""
        raise NotImplementedError

    @cached_property
    def alerts(self) -> AlertPublisher:
        """Tells the operators: SNS on AWS, a log line locally."""
        raise NotImplementedError

    # ---- the admin configuration (voiceassist.admin): data, read through a short cache ---------------------
    CONFIG_TTL_S: ClassVar[float] = 0.0  # locally the next question sees a change; AWS caches a little

    @cached_property
    def config_store(self) -> ConfigStore:
        from voiceassist.admin.config import defaults_from
        from voiceassist.admin.config_store import ConfigStore

        return ConfigStore(self.state, defaults=defaults_from(self.settings), ttl_seconds=self.CONFIG_TTL_S)

    @property
    def admin_config(self) -> AdminConfig:
        """The configuration in force now (its defaults are the settings')."""
        return self.config_store.config

    def cost_gate(self, config: AdminConfig) -> CostGate:
        from voiceassist.admin.billing import CostGate

        return CostGate(self.billing, self.alerts, config.cost)

    @cached_property
    def ocr(self) -> PageOcr:
        """Reads scanned PDF pages: Textract on AWS, Tesseract locally."""
        raise NotImplementedError

    @cached_property
    def speech_to_text(self) -> SpeechToText:
        """Transcribes inside the boundary: faster-whisper locally, Transcribe Medical on AWS (their factories)."""
        from voiceassist.speech import VoiceNotAvailable

        raise VoiceNotAvailable("voice is not available on this runtime yet: use the local server")

    @cached_property
    def audio_chunks(self) -> AudioChunkStore:
        """Where the WebSocket's voice.chunk messages keep a streamed question's pieces (speech/chunked.py)."""
        from voiceassist.speech import VoiceNotAvailable

        raise VoiceNotAvailable("voice streaming is not available on this runtime")

    @cached_property
    def speech_vocabulary(self) -> KnowledgeBaseVocabulary:
        """The knowledge base's clinical terms that transcription is biased toward (refreshed every 5 min)."""
        from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary, indexed_passages

        return KnowledgeBaseVocabulary(lambda: indexed_passages(self.documents, self.index),
                                       max_terms=self.settings.voice_vocabulary_terms, phi_spans=self._phi_spans)

    def _phi_spans(self, text: str) -> list[tuple[int, int]] | None:
        """Where the configured PHI detector finds PHI in `text` (None when it failed: counted as PHI)."""
        result = self.configured_phi_detector().detect(text)
        return None if result.error else [(entity.start, entity.end) for entity in result.entities]

    @cached_property
    def text_to_speech(self) -> TextToSpeech:
        """Reads answers aloud inside the boundary: espeak-ng locally, Polly on AWS (their factories)."""
        from voiceassist.speech import VoiceNotAvailable

        raise VoiceNotAvailable("voice is not available on this runtime yet: use the local server")

    # ---- models and search, the same on both runtimes ----------------------------------------------------
    @cached_property
    def embedder(self) -> Embedder:
        from voiceassist.adapters.onnx.embedder import OnnxEmbedder

        return OnnxEmbedder(precision=self.settings.embedding_precision)

    @cached_property
    def reranker(self) -> Reranker:
        from voiceassist.query.rerank import IdentityReranker, LearnedReranker

        # VOICEASSIST_RERANKER; the default is evaluated in docs/search.md, "Learned reranking"
        return LearnedReranker() if self.settings.reranker == "lambdamart" else IdentityReranker()

    @cached_property
    def phi_detector(self) -> PhiDetector:
        from voiceassist.composition.phi_detectors import build_detector

        return build_detector(self.settings)

    def phi_detector_for(self, mode: PhiMode) -> PhiDetector:
        """The detector in `mode` (the admin configuration's PHI mode): the deployment's own when the modes agree,
        else one built for that mode on first use. Never off unless the deployment itself is (what validation
        allows, admin/config.boundary_problems): a stored "off" elsewhere gets the deployment's detector."""
        if mode is self.settings.phi_mode or mode is PhiMode.OFF:
            return self.phi_detector
        with self._lock:
            built = self.__dict__.setdefault("_phi_detectors", {})
            if mode not in built:
                from voiceassist.composition.phi_detectors import build_detector

                built[mode] = build_detector(self.settings.model_copy(update={"phi_mode": mode}))
            return built[mode]  # type: ignore[no-any-return]

    def configured_phi_detector(self) -> PhiDetector:
        """The detector in the PHI mode configured now (outside a question's run, which keeps its own): the tools'
        argument checks and egress checks, the session summary's."""
        return self.phi_detector_for(self.admin_config.phi_mode)

    @cached_property
    def cloud_chat(self) -> ChatModel | None:
        from voiceassist.composition.chat_models import build_cloud_chat

        return build_cloud_chat(self.settings)

    @cached_property
    def local_chat(self) -> ChatModel | None:
        from voiceassist.composition.chat_models import build_local_chat

        return build_local_chat(self.settings)

    @cached_property
    def summary_chat(self) -> ChatModel | None:
        """The in-boundary model for the rolling session summary, with the summary's short time-out."""
        from voiceassist.composition.chat_models import build_local_chat

        return build_local_chat(self.settings, timeout_s=self.settings.summary_timeout_s)

    @cached_property
    def token_verifier(self) -> TokenVerifier:
        """Cognito tokens (the WebSocket authorizer's): the user pool's signing keys over HTTPS."""
        from voiceassist.adapters.aws.cognito_tokens import verifier_from_settings

        return verifier_from_settings(self.settings)

    @cached_property
    def external_sources(self) -> dict[str, SearchSource]:
        """The query-time sources outside the knowledge base, by name (composition/sources.py)."""
        from voiceassist.composition.sources import build_external_sources

        return build_external_sources(self.settings, secret_reader=self.read_secret)

    @cached_property
    def tool_registry(self) -> ToolRegistry:
        from voiceassist.composition.workspace import workspace_tools
        from voiceassist.tools.catalogue import default_registry

        return default_registry(workspace_tools(self))

    @cached_property
    def tool_executor(self) -> ToolExecutor:
        """The one executor of every tool call (the query's tool loop, the REST API, MCP)."""
        from voiceassist.tools.actions import PendingActions
        from voiceassist.tools.executor import DeferredDetector, ToolExecutor
        from voiceassist.tools.registry import ToolEnvironment

        detector = DeferredDetector(self.configured_phi_detector)  # the admin configuration's mode, per call
        # the calls awaiting confirmation are sealed by the field cipher, built when one is first stored or opened
        actions = PendingActions(self.state, cipher=lambda: self.field_cipher)
        options: dict[str, Any] = {"env": ToolEnvironment(ctx=self.query), "detector": detector,
                                   "limiter": self.rate_limiter, "actions": actions,
                                   "audit": self.audit, "metrics": self.metrics,
                                   "policy": lambda name: self.admin_config.tool(name)}
        if self.tool_runner is not None:  # the embedding tools run in the function that has the ML layer
            from voiceassist.tools.remote import RemoteToolExecutor

            return RemoteToolExecutor(self.tool_registry, runner=self.tool_runner, **options)
        return ToolExecutor(self.tool_registry, **options)

    @cached_property
    def tool_runner(self) -> ToolRunner | None:
        """Another function that runs the tools this one cannot (AWS: tools/remote.py); locally, none."""
        return None

    def event_publisher(self, endpoint: str | None) -> EventPublisher:
        """Where a streamed query's steps publish: API Gateway's management API at `endpoint` (a WebSocket
        connection), or the process's in-process hub when there is no endpoint (the local runtime)."""
        if endpoint is None:
            from voiceassist.adapters.local.event_hub import HUB

            return HUB
        with self._lock:
            publishers = self.__dict__.setdefault("_event_publishers", {})
            if endpoint not in publishers:
                from voiceassist.adapters.aws.apigateway_publisher import ApiGatewayEventPublisher

                publishers[endpoint] = ApiGatewayEventPublisher(endpoint, region_name=self.settings.region)
            return publishers[endpoint]  # type: ignore[no-any-return]

    def read_secret(self, arn: str) -> str | None:
        """An API key from Secrets Manager (an ARN is configured only where there is one to read)."""
        from voiceassist.adapters.aws.secrets_manager import secret_api_key

        return secret_api_key(arn, self.settings.region)

    # ---- the settings the ingestion stages read -------------------------------------------------------
    @property
    def chunk_tokens(self) -> int:
        return self.settings.chunk_tokens

    @property
    def chunk_overlap(self) -> int:
        return self.settings.chunk_overlap

    @property
    def max_upload_bytes(self) -> int:
        return self.settings.max_upload_bytes

    @cached_property
    def upload_signer(self) -> UploadSigner | None:
        """Presigned direct uploads (S3); None locally, where POST /v1/documents takes any size."""
        return None

    @property
    def job_lease_seconds(self) -> float:
        return self.settings.job_lease_seconds

    @property
    def max_pages(self) -> int:
        return self.settings.max_pages

    @property
    def ocr_low_confidence(self) -> float:
        return self.settings.ocr_low_confidence

    @property
    def ocr_poll_seconds(self) -> int:
        return self.settings.ocr_poll_seconds

    @property
    def ocr_max_wait_seconds(self) -> int:
        return self.settings.ocr_max_wait_seconds

    # ---- the views the domain functions take: this object, typed by what each floor may touch ------------
    @property
    def ingestion(self) -> IngestionContext:
        return self

    @property
    def query(self) -> QueryContext:
        return self

    def _build_pipeline_runner(self) -> PipelineRunner:
        factory = pipeline_runners.registered()
        if factory is None:
            from voiceassist.errors import DependencyError

            raise DependencyError("no pipeline runner: the local runtime (voiceassist_local) is not installed "
                                  "or has not registered itself; install voiceassist with its local extra")
        runner: PipelineRunner = factory(self)
        return runner


_current: Dependencies | None = None
_current_lock = threading.Lock()


def dependencies() -> Dependencies:
    """The process-wide dependencies (built on first use from the environment)."""
    global _current
    with _current_lock:
        if _current is None:
            _current = Dependencies(get_settings())
        return _current


def use_dependencies(deps: Dependencies | None) -> None:
    """Install a Dependencies (tests, the local server); None resets to the environment's."""
    global _current
    with _current_lock:
        _current = deps
