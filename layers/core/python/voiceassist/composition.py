"""Composition root: builds every dependency from Settings, once per process (warm Lambda starts reuse it).

Adapters are imported inside the builders so a function only pays the import cost of what it uses, and
nothing connects at import time. Tests override the whole set with `use_dependencies`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from voiceassist.settings import Runtime, Settings, get_settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer

    from voiceassist.ingestion import IngestionContext
    from voiceassist.models import SearchHit
    from voiceassist.orchestrator import QueryContext
    from voiceassist.ports import (
        AuditLog,
        BlobStore,
        ChatModel,
        DocumentStore,
        Embedder,
        JobStore,
        KeyValueState,
        LiteratureSearch,
        PhiDetector,
        PipelineRunner,
        Reranker,
        SearchIndex,
        SessionStore,
    )


class Dependencies:
    """Lazily built adapters for one Settings. Attributes may be replaced (tests inject fakes)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.RLock()

    @property
    def local(self) -> bool:
        return self.settings.runtime is Runtime.LOCAL

    # ---- stores ---------------------------------------------------------------------------------------
    @cached_property
    def blobs(self) -> BlobStore:
        if self.local:
            from voiceassist.adapters.folder_blobs import FolderBlobStore

            return FolderBlobStore(self.settings.blob_dir)
        from voiceassist.adapters.s3_blobs import S3BlobStore

        return S3BlobStore(bucket=str(self.settings.documents_bucket))

    @cached_property
    def _sqlite(self) -> Any:
        from voiceassist.adapters.sqlite_db import SqliteDatabase

        return SqliteDatabase(self.settings.db_path)

    @cached_property
    def _dynamodb(self) -> Any:
        import boto3

        return boto3.client("dynamodb", region_name=self.settings.region)

    @cached_property
    def documents(self) -> DocumentStore:
        if self.local:
            from voiceassist.adapters.sqlite_documents import SqliteDocumentStore

            return SqliteDocumentStore(self._sqlite)
        from voiceassist.adapters.dynamodb_documents import DynamoDbDocumentStore

        return DynamoDbDocumentStore(str(self.settings.documents_table), client=self._dynamodb)

    @cached_property
    def jobs(self) -> JobStore:
        if self.local:
            from voiceassist.adapters.sqlite_jobs import SqliteJobStore

            return SqliteJobStore(self._sqlite)
        from voiceassist.adapters.dynamodb_jobs import DynamoDbJobStore

        return DynamoDbJobStore(str(self.settings.jobs_table), client=self._dynamodb)

    @cached_property
    def sessions(self) -> SessionStore:
        if self.local:
            from voiceassist.adapters.sqlite_sessions import SqliteSessionStore

            return SqliteSessionStore(self._sqlite)
        from voiceassist.adapters.dynamodb_sessions import DynamoDbSessionStore

        return DynamoDbSessionStore(str(self.settings.sessions_table), client=self._dynamodb)

    @cached_property
    def audit(self) -> AuditLog:
        if self.local:
            from voiceassist.adapters.sqlite_audit import SqliteAuditLog

            return SqliteAuditLog(self._sqlite)
        from voiceassist.adapters.dynamodb_audit import DynamoDbAuditLog

        return DynamoDbAuditLog(str(self.settings.audit_table), client=self._dynamodb)

    @cached_property
    def state(self) -> KeyValueState:
        if self.local:
            from voiceassist.adapters.sqlite_state import SqliteKeyValueState

            return SqliteKeyValueState(self._sqlite)
        from voiceassist.adapters.dynamodb_state import DynamoDbKeyValueState

        return DynamoDbKeyValueState(str(self.settings.state_table), client=self._dynamodb)

    @cached_property
    def idempotency(self) -> BasePersistenceLayer:
        """Powertools idempotency records (the S3 trigger's): its DynamoDB table on AWS, SQLite locally."""
        if self.local:
            from voiceassist.adapters.sqlite_idempotency import SqlitePersistenceLayer

            return SqlitePersistenceLayer(self._sqlite)
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        from voiceassist.errors import InvalidInput
        from voiceassist.settings import ENV_IDEMPOTENCY_TABLE

        if not self.settings.idempotency_table:
            raise InvalidInput(f"invalid configuration: the aws runtime needs {ENV_IDEMPOTENCY_TABLE}")
        return DynamoDBPersistenceLayer(table_name=self.settings.idempotency_table, boto3_client=self._dynamodb)

    # ---- search and models --------------------------------------------------------------------------
    @cached_property
    def embedder(self) -> Embedder:
        from voiceassist.adapters.onnx_embedder import OnnxEmbedder

        return OnnxEmbedder(precision=self.settings.embedding_precision)

    @cached_property
    def index(self) -> SearchIndex:
        if self.local:
            from voiceassist.adapters.local_index import LocalHybridIndex

            return LocalHybridIndex(self.settings.index_path, dimension=self.embedder.dimension,
                                    model_id=self.embedder.model_id)
        from voiceassist.adapters.opensearch_index import OpenSearchIndex

        return OpenSearchIndex(endpoint=str(self.settings.opensearch_endpoint),
                               index_alias=self.settings.opensearch_index,
                               pipeline=self.settings.opensearch_pipeline, region=self.settings.region,
                               dimension=self.embedder.dimension, embedding_model=self.embedder.model_id,
                               fusion=self.settings.fusion,
                               bm25_weight=self.settings.bm25_weight)

    @cached_property
    def reranker(self) -> Reranker:
        from voiceassist.rerank import IdentityReranker

        return IdentityReranker()  # evaluated default: docs/search.md, "Query enhancement ... and reranking"

    @cached_property
    def literature(self) -> LiteratureSearch | None:
        """PubMed when a base URL is configured; its NCBI key from Secrets Manager on AWS (never plain env)."""
        if not self.settings.pubmed_base_url:
            return None
        return _OnFirstSearch(self._build_pubmed)

    def _build_pubmed(self) -> LiteratureSearch:
        from voiceassist.adapters.pubmed import PubMedClient

        settings = self.settings
        api_key = settings.pubmed_api_key
        if settings.pubmed_secret_arn:
            from voiceassist.adapters.secrets_manager import secret_api_key

            api_key = secret_api_key(settings.pubmed_secret_arn, settings.region)
        return PubMedClient(str(settings.pubmed_base_url), api_key=api_key, email=settings.pubmed_email,
                            requests_per_second=settings.pubmed_requests_per_second)

    @cached_property
    def phi_detector(self) -> PhiDetector:
        from voiceassist.phi import build_detector

        return build_detector(self.settings)

    @cached_property
    def cloud_chat(self) -> ChatModel | None:
        from voiceassist.chat_models import build_cloud_chat

        return build_cloud_chat(self.settings)

    @cached_property
    def local_chat(self) -> ChatModel | None:
        from voiceassist.chat_models import build_local_chat

        return build_local_chat(self.settings)

    @cached_property
    def pipelines(self) -> PipelineRunner:
        if self.local:
            from voiceassist.local.pipelines import local_pipeline_runner

            return local_pipeline_runner()
        from voiceassist.adapters.stepfunctions_pipeline import StepFunctionsPipelineRunner

        return StepFunctionsPipelineRunner({"ingest": str(self.settings.ingest_state_machine_arn),
                                            "query": str(self.settings.query_state_machine_arn)})

    # ---- contexts the domain functions take ---------------------------------------------------------
    @cached_property
    def ingestion(self) -> IngestionContext:
        from voiceassist.ingestion import IngestionContext

        return IngestionContext(blobs=self.blobs, documents=self.documents, jobs=self.jobs, index=self.index,
                                embedder=self.embedder, chunk_tokens=self.settings.chunk_tokens,
                                chunk_overlap=self.settings.chunk_overlap,
                                max_upload_bytes=self.settings.max_upload_bytes)

    @cached_property
    def query(self) -> QueryContext:
        from voiceassist.orchestrator import QueryContext

        return QueryContext(settings=self.settings, phi_detector=self.phi_detector, index=self.index,
                            embedder=self.embedder, audit=self.audit, sessions=self.sessions, state=self.state,
                            cloud_chat=self.cloud_chat, local_chat=self.local_chat, reranker=self.reranker,
                            literature=self.literature)


class _OnFirstSearch:
    """A LiteratureSearch built on its first search: every query stage sees whether PubMed is configured,
    but only the one that searches imports the client and reads its secret."""

    name = "pubmed"
    in_boundary = False

    def __init__(self, build: Callable[[], LiteratureSearch]) -> None:
        self._build = build
        self._client: LiteratureSearch | None = None
        self._lock = threading.Lock()

    def search(self, query: str, *, top_k: int = 5, deadline_s: float | None = None) -> list[SearchHit]:
        with self._lock:
            if self._client is None:
                self._client = self._build()
        return self._client.search(query, top_k=top_k, deadline_s=deadline_s)


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
