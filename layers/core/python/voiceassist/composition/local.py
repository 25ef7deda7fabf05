"""The local factory: SQLite stores, a folder of blobs, the embedded hybrid index, and the pipeline runner the
local runtime registers (the same ASL files, executed in-process)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from voiceassist.composition.base import Dependencies
from voiceassist.observability import send_metric_lines_to_stderr
from voiceassist.settings import Runtime, Settings

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
        PipelineRunner,
        RateLimiter,
        SearchIndex,
        SessionStore,
    )
    from voiceassist.speech import SpeechToText, TextToSpeech
    from voiceassist.speech.chunked import AudioChunkStore


class LocalDependencies(Dependencies, runtime=Runtime.LOCAL):
    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        # stdout is a CLI's answer or the MCP stdio channel here; the operator's metrics go to SQLite (metrics)
        send_metric_lines_to_stderr()

    @cached_property
    def _sqlite(self) -> Any:
        from voiceassist.adapters.local.sqlite_db import SqliteDatabase

        return SqliteDatabase(self.settings.db_path)

    @cached_property
    def blobs(self) -> BlobStore:
        from voiceassist.adapters.local.folder_blobs import FolderBlobStore

        return FolderBlobStore(self.settings.blob_dir)

    @cached_property
    def documents(self) -> DocumentStore:
        from voiceassist.adapters.local.sqlite_documents import SqliteDocumentStore

        return SqliteDocumentStore(self._sqlite)

    @cached_property
    def jobs(self) -> JobStore:
        from voiceassist.adapters.local.sqlite_jobs import SqliteJobStore

        return SqliteJobStore(self._sqlite)

    @cached_property
    def sessions(self) -> SessionStore:
        from voiceassist.adapters.local.sqlite_sessions import SqliteSessionStore

        return SqliteSessionStore(self._sqlite, cipher=self.field_cipher)

    @cached_property
    def field_cipher(self) -> FieldCipher:
        """PHI fields at rest (a session's clinical context): data keys wrapped by a 0600 key file."""
        from voiceassist.adapters.local.key_file_cipher import key_file_cipher

        return key_file_cipher(self.settings.data_dir)

    @cached_property
    def audit(self) -> AuditLog:
        from voiceassist.adapters.local.sqlite_audit import SqliteAuditLog

        return SqliteAuditLog(self._sqlite)

    @cached_property
    def state(self) -> KeyValueState:
        from voiceassist.adapters.local.sqlite_state import SqliteKeyValueState

        return SqliteKeyValueState(self._sqlite)

    @cached_property
    def _metric_store(self) -> Any:
        from voiceassist.adapters.local.sqlite_metrics import SqliteMetricStore

        return SqliteMetricStore(self._sqlite)

    @cached_property
    def metrics(self) -> MetricSink:
        return self._metric_store  # type: ignore[no-any-return]

    @cached_property
    def metric_reader(self) -> MetricReader:
        return self._metric_store  # type: ignore[no-any-return]

    @cached_property
    def rate_limiter(self) -> RateLimiter:
        from voiceassist.adapters.local.sqlite_rate_limits import SqliteRateLimiter

        return SqliteRateLimiter(self._sqlite)

    @cached_property
    def billing(self) -> BillingLedger:
        from voiceassist.adapters.local.sqlite_billing import SqliteBillingLedger

        return SqliteBillingLedger(self._sqlite)

    @cached_property
    def alerts(self) -> AlertPublisher:
        from voiceassist.adapters.local.log_alerts import LogAlertPublisher

        return LogAlertPublisher()

    @cached_property
    def idempotency(self) -> BasePersistenceLayer:
        """Powertools idempotency records (the S3 trigger's) in SQLite."""
        from voiceassist.adapters.local.sqlite_idempotency import SqlitePersistenceLayer

        return SqlitePersistenceLayer(self._sqlite)

    @cached_property
    def index(self) -> SearchIndex:
        from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
        from voiceassist.constants.models import DIMENSION, model_id

        return LocalHybridIndex(self.settings.index_path, dimension=DIMENSION,
                                model_id=model_id(self.settings.embedding_precision))

    @cached_property
    def pipelines(self) -> PipelineRunner:
        return self._build_pipeline_runner()

    @cached_property
    def ocr(self) -> PageOcr:
        from voiceassist.adapters.local.tesseract_ocr import TesseractOcr

        return TesseractOcr(self.blobs.get, page_seconds=self.settings.ocr_page_seconds,
                            language=self.settings.ocr_languages)

    @cached_property
    def speech_to_text(self) -> SpeechToText:
        from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText

        return WhisperSpeechToText(vocabulary=self.speech_vocabulary.prompt, correct=self.speech_vocabulary.correct)

    @cached_property
    def audio_chunks(self) -> AudioChunkStore:
        from voiceassist.adapters.local.memory_audio_chunks import MemoryAudioChunkStore

        return MemoryAudioChunkStore()

    @cached_property
    def text_to_speech(self) -> TextToSpeech:
        from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech

        return EspeakTextToSpeech()
