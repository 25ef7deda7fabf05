"""Ports: every outside system the domain talks to, as a typing.Protocol.

Each port has an AWS adapter and an embedded default in voiceassist.adapters; contract tests run one suite
against both.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from voiceassist.admin.ledger import BillingEvent, CostAlert, Spend
from voiceassist.models import (
    AuditRecord,
    ChatCompletion,
    ChatMessage,
    Chunk,
    DocumentStatus,
    IndexingJob,
    JobState,
    KnowledgeDocument,
    Message,
    OcrRun,
    PhiResult,
    SearchHit,
    SearchQuery,
    Session,
    StoredAuditRow,
    ToolDefinition,
)
from voiceassist.telemetry.points import MetricAggregate, MetricPoint

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class BlobStore(Protocol):
    """Document bytes and intermediate pipeline artefacts (S3 / a folder)."""

    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream",
            metadata: dict[str, str] | None = None) -> None: ...

    def get(self, key: str) -> bytes:
        """Raises NotFound for a missing key."""
        ...

    def head(self, key: str) -> dict[str, str]:
        """User metadata of the object; raises NotFound for a missing key."""
        ...

    def delete(self, key: str) -> None: ...

    def exists(self, key: str) -> bool: ...


@dataclass(frozen=True)
class StoredUpload:
    """One object of a listing: its key, ETag (unquoted, as S3's events carry it), size and last write (UTC)."""

    key: str
    etag: str
    size: int
    modified: datetime


@runtime_checkable
class UploadListing(Protocol):
    """The objects under a prefix of a bucket (S3's ListObjectsV2): the sweep of incoming/ (ingest/upload_sweep.py)."""

    bucket: str

    def uploads(self, prefix: str) -> Iterator[StoredUpload]: ...


@runtime_checkable
class DocumentStore(Protocol):
    def put(self, document: KnowledgeDocument, *, expected_status: DocumentStatus | None = None) -> None:
        """Write the version; with expected_status, only if the stored one still has it (else Conflict):
        a version deleted or superseded meanwhile stays so."""
        ...

    def get(self, doc_id: str) -> KnowledgeDocument:
        """Raises NotFound."""
        ...

    def versions(self, doc_key: str) -> builtins.list[KnowledgeDocument]:
        """Every version of a doc_key, oldest first."""
        ...

    def list(self, *, status: DocumentStatus | None = None, limit: int = 100) -> builtins.list[KnowledgeDocument]: ...

    def delete(self, doc_id: str) -> None: ...


@runtime_checkable
class JobStore(Protocol):
    def create(self, job: IndexingJob) -> None:
        """Raises Conflict if the job id exists."""
        ...

    def get(self, job_id: str) -> IndexingJob:
        """Raises NotFound."""
        ...

    def save(self, job: IndexingJob, *, expected_state: JobState) -> None:
        """Conditional write: raises Conflict unless the stored job is still in expected_state."""
        ...

    def list(self, *, state: JobState | None = None, limit: int = 100) -> builtins.list[IndexingJob]: ...

    def for_document(self, doc_id: str) -> builtins.list[IndexingJob]: ...


@runtime_checkable
class SessionStore(Protocol):
    def create(self, session: Session) -> None: ...

    def get(self, session_id: str) -> Session:
        """Raises NotFound (also for an expired session)."""
        ...

    def delete(self, session_id: str) -> None:
        """Deletes the session and all its messages."""
        ...

    def add_message(self, message: Message) -> None: ...

    def messages(self, session_id: str, *, limit: int = 20) -> builtins.list[Message]:
        """The most recent messages, oldest first."""
        ...


@runtime_checkable
class FieldCipher(Protocol):
    """Application-level encryption of one PHI field (envelope: a fresh data key per value, wrapped by the
    environment key on AWS or a local key file). `context` (the owning record's id) is bound to the
    ciphertext, so a value copied onto another record does not decrypt."""

    def encrypt(self, plaintext: str, *, context: str) -> str: ...

    def decrypt(self, token: str, *, context: str) -> str: ...


@runtime_checkable
class AuditLog(Protocol):
    def append(self, record: AuditRecord) -> None:
        """Append-only: raises Conflict if the audit id already exists. The record joins its partition's hash
        chain (sequence, prev_hash, record_hash) in the same conditional write as the partition's head."""
        ...

    def get(self, audit_id: str) -> AuditRecord: ...

    def list(self, *, user_id: str | None = None, limit: int = 100) -> builtins.list[AuditRecord]: ...

    def partitions(self) -> builtins.list[str]:
        """Every partition (user_id) with a hash chain."""
        ...

    def chain(self, partition: str) -> tuple[builtins.list[AuditRecord], tuple[int, str] | None]:
        """A partition's records in sequence order, and its head (last sequence, last hash) as stored."""
        ...

    def stored_chain(self, partition: str) -> tuple[builtins.list[StoredAuditRow], tuple[int, str] | None]:
        """A partition's rows as stored (unread: a corrupt one must not stop the verifier), and its head."""
        ...

    def anchors(self) -> dict[str, tuple[int, str]] | None:
        """Each partition's last (sequence, hash) as written outside the store at each append, or None when
        this store keeps no anchor."""
        ...


@runtime_checkable
class KeyValueState(Protocol):
    """Small shared state (circuit breakers, idempotency records) with compare-and-set."""

    def get(self, key: str) -> tuple[dict[str, Any] | None, int]:
        """The value and its version (0 when absent)."""
        ...

    def put(self, key: str, value: dict[str, Any], *, expected_version: int, ttl_seconds: int | None = None
            ) -> int:
        """Write if the stored version is still expected_version; returns the new version or raises Conflict."""
        ...


@runtime_checkable
class SearchIndex(Protocol):
    """Hybrid BM25 + vector index of chunks."""

    def index(self, chunks: Sequence[Chunk], vectors: Vectors, opening: Vectors | None = None) -> None:
        """Add chunks (not yet searchable until activate). `opening`: their document's opening vector, one row
        (every chunk given is of that one document version; ingest/stages.opening_text), stored once per
        version; a hit of a version without one has no opening_cosine."""
        ...

    def activate(self, doc_key: str, version: int) -> None:
        """Make `version` the searchable version of doc_key and hide every other version."""
        ...

    def delete_document(self, doc_key: str, version: int | None = None) -> None:
        """Remove one version, or every version, of a document."""
        ...

    def retire(self, doc_key: str, version: int) -> None:
        """Keep a superseded version's chunks for audit, flagged superseded: never searchable again (activate
        does not show them; delete_document of the whole document removes them)."""
        ...

    def search(self, query: SearchQuery) -> builtins.list[SearchHit]: ...

    def count(self, doc_key: str | None = None, *, searchable_only: bool = True) -> int: ...

    def chunk(self, chunk_id: str) -> Chunk:
        """One indexed chunk, searchable or not (the passage behind a citation); NotFound if absent."""
        ...


@runtime_checkable
class Reranker(Protocol):
    """A second, slower opinion on the fused candidates of one search (voiceassist.query.rerank)."""

    name: str
    in_boundary: bool  # True when the question text never leaves our infrastructure
    depth: int  # the candidates it reads: the search asks the index for this many (0: only the hits kept)

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> builtins.list[SearchHit]:
        """The `top_k` best of `hits` for `query`, best first; each hit's `score` is the reranker's."""
        ...


@runtime_checkable
class SearchSource(Protocol):
    """A query-time source outside the knowledge base (PubMed, web search), searched in parallel with it.

    `in_boundary` False: the source is outside the PHI boundary, and planning hands it PHI-free text only
    (voiceassist.query.planning). `budget_seconds` is what one search may take, retries included.
    """

    name: str
    in_boundary: bool
    budget_seconds: float

    def search(self, query: str, *, top_k: int = 5, deadline_s: float | None = None
               ) -> builtins.list[SearchHit]:
        """Hits best first, scores in (0, 1] falling with rank; raises SourceUnavailable on time-out or
        failure after the client's retries, and never runs past `deadline_s` seconds."""
        ...


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dimension: int
    max_tokens: int  # the longest input (model tokens) embedded without truncation
    in_boundary: bool  # True when text never leaves our infrastructure

    def embed(self, texts: Sequence[str]) -> Vectors:
        """L2-normalised float32 matrix, one row per text."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in the model's own tokenizer (without special tokens)."""
        ...


@runtime_checkable
class ChatModel(Protocol):
    name: str
    in_boundary: bool  # may this model see PHI?

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion: ...


@runtime_checkable
class ToolCallingChatModel(ChatModel, Protocol):
    """A ChatModel that may answer with tool calls (OpenAI function calls; SageMaker LMI/vLLM take the same
    `tools` schema). The completion's `tool_calls` is empty when it answered in text."""

    def complete_with_tools(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                            max_tokens: int = 700, temperature: float = 0.1) -> ChatCompletion: ...


@runtime_checkable
class StreamingChatModel(ChatModel, Protocol):
    """A ChatModel that streams a completion, tool calls included (OpenAI and SageMaker LMI: `stream: true`
    with the OpenAI chunk schema; Bedrock: ConverseStream).

    `on_text` receives the answer's text as it arrives, in order, and nothing else (a tool call's name or
    arguments never reach it); joined, the pieces are the returned completion's text. The return value is the
    whole completion, as complete_with_tools returns it (text, tool calls, model, usage). A failure, also
    part-way through, raises ModelUnavailable or DependencyError like complete does (after some text may
    have gone to `on_text`: the caller treats what it streamed as a draft). With no `tools` it is a plain
    completion, streamed."""

    def stream_completion(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] = (), *,
                          on_text: Callable[[str], None], max_tokens: int = 700,
                          temperature: float = 0.1) -> ChatCompletion: ...


@runtime_checkable
class PhiDetector(Protocol):
    def detect(self, text: str) -> PhiResult: ...


@runtime_checkable
class PipelineRunner(Protocol):
    """Runs a state machine: Step Functions on AWS, the same ASL in-process locally."""

    def start(self, pipeline: str, payload: dict[str, Any], *, name: str | None = None) -> str:
        """Start asynchronously; returns an execution id."""
        ...

    def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Run to the end and return the output; raises DependencyError with the failure cause."""
        ...


@runtime_checkable
class UploadSigner(Protocol):
    """Signs a browser upload straight into the documents store (S3 presigned POST), bypassing the API."""

    def presign_post(self, key: str, *, fields: dict[str, str], max_bytes: int,
                     expires_in: int) -> dict[str, Any]:
        """{"url": ..., "fields": {...}}: the form a client POSTs with the file as its last field."""
        ...


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    remaining: int  # calls left in the window after this one
    retry_after: int  # seconds until the window resets (0 when allowed)


@runtime_checkable
class RateLimiter(Protocol):
    """Fixed-window counters shared by every process (DynamoDB on AWS, the SQLite file locally)."""

    def acquire(self, key: str, *, limit: int, window_seconds: int = 60) -> RateDecision:
        """Count one call against `key`'s current window; refused (not counted) once `limit` is reached."""
        ...


@runtime_checkable
class BillingLedger(Protocol):
    """Every model call's tokens and cost, per user and per day, and the cost alerts already raised (DynamoDB /
    SQLite). Totals are kept as the events are recorded, so reading a month's spend is one lookup."""

    def record(self, event: BillingEvent) -> None:
        """Add the event and its cost to its month's totals (all users, its user, its user's day)."""
        ...

    def spend(self, month: str, *, user_id: str | None = None) -> Spend:
        """The month's spend: all users (user_id None) or one user's."""
        ...

    def users(self, month: str) -> dict[str, Spend]:
        """Each user's spend in the month."""
        ...

    def days(self, month: str, *, user_id: str) -> dict[str, Spend]:
        """One user's spend per day (YYYY-MM-DD) in the month."""
        ...

    def claim_alert(self, alert: CostAlert) -> bool:
        """Store the alert unless its (month, scope, threshold) was raised before: True the first time only."""
        ...

    def alerts(self, month: str) -> builtins.list[CostAlert]:
        """The month's alerts, oldest first."""
        ...


@runtime_checkable
class AlertPublisher(Protocol):
    """Tells the operators (SNS on AWS; a log line locally, where the admin page shows the ledger's alerts)."""

    def publish(self, subject: str, message: str) -> None: ...


class EventPublisher(Protocol):
    """Pushes a streamed query's events to its client: a WebSocket connection on AWS, an in-process channel
    locally. `event` is {"type": ..., "data": {...}} (conversation.events)."""

    def publish(self, connection_id: str, event: dict[str, Any]) -> None: ...


@runtime_checkable
class PageOcr(Protocol):
    """Reads the text of scanned PDF pages: Amazon Textract on AWS (asynchronous, polled by the state
    machine), Tesseract locally (finished when `start` returns). Raises ExtractionError with the reason."""

    name: str

    def start(self, blob_key: str, pages: Sequence[int], *, attempt_key: str) -> OcrRun:
        """Begin reading `pages` (1-based) of the PDF stored at `blob_key`. A repeated start with the same
        `attempt_key` (a Lambda retry) may return the run the first one began; a new key starts afresh."""
        ...

    def poll(self, ticket: str, pages: Sequence[int]) -> OcrRun:
        """The run `start` began: done with the pages read, or still running."""
        ...


# ---- the clinician's workspace: calendar (CalDAV), files (WebDAV/Nextcloud), web search (tools/) ---------------
@dataclass(frozen=True)
class CalendarEvent:
    """One event, or one occurrence of a recurring event (then `recurrence_id` is the occurrence's start)."""

    uid: str
    summary: str
    start: Any  # datetime (aware) or date (all-day)
    end: Any = None
    location: str = ""
    description: str = ""
    recurrence_id: str | None = None
    recurring: bool = False


@dataclass(frozen=True)
class EventFields:
    """What a create or an update sets; None leaves a field as it is (an update) or empty (a create)."""

    summary: str | None = None
    start: Any = None  # aware datetime
    end: Any = None
    location: str | None = None
    description: str | None = None


@runtime_checkable
class Calendar(Protocol):
    """One person's calendar (a CalDAV collection). Raises WorkspaceUnavailable when the server fails."""

    def events(self, start: Any, end: Any) -> list[CalendarEvent]:
        """The events overlapping [start, end), recurring ones expanded into their occurrences."""
        ...

    def create(self, fields: EventFields) -> CalendarEvent: ...

    def update(self, uid: str, fields: EventFields) -> CalendarEvent: ...

    def delete(self, uid: str) -> None: ...


@dataclass(frozen=True)
class RemoteFile:
    path: str  # relative to the account's root, "/"-separated
    name: str
    size: int | None = None
    content_type: str | None = None
    modified: str | None = None  # ISO 8601


@runtime_checkable
class FileShare(Protocol):
    """One person's files over WebDAV (Nextcloud or any server). Raises WorkspaceUnavailable on failure."""

    def search(self, text: str, *, limit: int = 20, content: bool = False) -> list[RemoteFile]:
        """Files whose name contains `text` (and, when `content` and the server can, whose text does)."""
        ...

    def read(self, path: str, *, max_bytes: int) -> bytes:
        """The file's bytes; raises PayloadTooLarge past `max_bytes`, NotFound when it does not exist."""
        ...


@dataclass(frozen=True)
class WebResult:
    title: str
    url: str
    snippet: str = ""


@runtime_checkable
class WebSearchProvider(Protocol):
    """A web search API outside the PHI boundary: it is called only with text the egress policy lets go."""

    name: str

    def search(self, query: str, *, count: int = 5, deadline_s: float = 8.0) -> list[WebResult]: ...


@runtime_checkable
class MetricSink(Protocol):
    """Where the operator's metrics go (voiceassist.telemetry.points, names in constants.metrics): CloudWatch EMF
    lines on AWS, a SQLite table locally. Recording never fails the caller's work: a sink swallows its errors."""

    def record(self, points: Sequence[MetricPoint]) -> None: ...


@runtime_checkable
class MetricReader(Protocol):
    """The recorded metrics, aggregated per series over a window (the admin telemetry view, `GET /metrics`)."""

    def aggregate(self, *, since: datetime, until: datetime | None = None, by_user: bool = False
                  ) -> builtins.list[MetricAggregate]: ...
