"""Domain models: the shapes that cross every boundary (API, stores, pipelines, index).

API schemas are these models; storage adapters translate them to items and rows.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from voiceassist.constants.environment import RoutingMode  # noqa: F401 - part of the API models


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def _json_integer(value: Any) -> Any:
    """A JSON integer (9 or 9.0), never a boolean or a string that pydantic's lax mode would turn into one."""
    if isinstance(value, bool | str):
        raise ValueError("must be a JSON integer")
    return value


JsonInt = Annotated[int, BeforeValidator(_json_integer)]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, use_enum_values=False)


# --------------------------------------------------------------------------- knowledge base


class SourceType(StrEnum):
    TEXTBOOK = "textbook"
    GUIDELINE = "guideline"
    DRUG_REFERENCE = "drug_reference"
    JOURNAL = "journal"
    PUBMED = "pubmed"
    WEB = "web"
    OTHER = "other"


class DocumentStatus(StrEnum):
    PENDING = "PENDING"  # registered, not yet searchable
    ACTIVE = "ACTIVE"  # the searchable version of its doc_key
    SUPERSEDED = "SUPERSEDED"  # replaced by a newer version
    FAILED = "FAILED"  # ingestion failed; nothing searchable
    DELETED = "DELETED"


_SPELLING_JOINERS = "\u200c\u200d"  # ZERO WIDTH NON-JOINER and JOINER: part of Persian, Hindi, emoji spellings


def _shown(text: str) -> str:
    """`text` without its format characters (bidirectional marks, zero-width spaces, soft hyphens), which change or
    hide what is read, except the joiners that spell some scripts."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf" or c in _SPELLING_JOINERS)


class DocumentMetadata(Model):
    """What a document says about itself; copied onto every chunk."""

    doc_key: str = Field(min_length=1, max_length=512, description="Stable key across versions")
    title: str = Field(min_length=1, max_length=1000)
    source_type: SourceType = SourceType.OTHER
    specialty: str | None = Field(default=None, max_length=100)
    authors: tuple[str, ...] = ()  # a tuple of str: the collector untracks it (decision 0032, session 20b)
    year: int | None = Field(default=None, ge=1800, le=2100)
    doi: str | None = None
    pmid: str | None = None
    url: str | None = None

    @field_validator("title")
    @classmethod
    def _one_visible_line(cls, value: str) -> str:
        """A title is shown in every citation and Sources list: control characters (a newline would forge a line
        of the list) read as a space, format characters (a right-to-left override reverses what is read, a
        zero-width space hides) are dropped, except the joiners that spell some scripts (ZWNJ, ZWJ)."""
        # A printable title holds neither (str.isprintable is False for any Cc or Cf character): checked in C,
        # as every search validates each hit's chunk again (a category call per character cost 2-4 CPU ms a
        # 100-hit search, docs/benchmarks.md "Peers" session 10).
        # The usual title, printable and spaced singly, is returned as it is: no other whitespace is printable,
        # so splitting and joining would give it back unchanged (a chunk's title is read again with every
        # parse of a stored chunk: ~0.2 of a 100-chunk parse's 0.8 CPU ms went to the split and join).
        if value and value.isprintable() and "  " not in value and value[0] != " " and value[-1] != " ":
            return value
        shown = value if value.isprintable() else _shown(
            "".join(" " if unicodedata.category(c) == "Cc" else c for c in value))
        shown = " ".join(shown.split())
        if not shown:
            raise ValueError("the title has no visible characters")
        return shown


class KnowledgeDocument(Model):
    doc_id: str  # one per version: f"{doc_key}#v{version}" hashed
    doc_key: str
    version: int = Field(ge=1)
    content_hash: str
    content_type: str
    blob_key: str
    metadata: DocumentMetadata
    status: DocumentStatus = DocumentStatus.PENDING
    page_count: int | None = None
    chunk_count: int = 0
    size_bytes: int = 0
    references: list[str] = Field(default_factory=list)  # its references section (not indexed)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    # Screen Metadata (ingest/screening.py): False from Register until the PHI screen rewrote the metadata (the
    # API withholds it meanwhile), True after; None: registered before the screen existed. Types only, never values.
    metadata_screened: bool | None = None
    metadata_phi_redacted: list[str] = Field(default_factory=list)
    redacted_blob_key: str | None = None  # blob_key with its file name redacted, when that name held PHI


class Page(Model):
    number: int | None  # 1-based page number for paged formats, None otherwise
    text: str
    heading: str | None = None
    ocr_confidence: float | None = None  # mean word confidence (0-100) of a page read by OCR; None: text layer
    draws_images: bool = False  # a PDF page that paints an image: a scan when its text layer is sparse


class OcrPage(Model):
    """One page read by OCR: its text and the engine's mean word confidence (0-100)."""

    number: int = Field(ge=1)
    text: str
    confidence: float = Field(ge=0.0, le=100.0)


class OcrRun(Model):
    """An OCR run over some pages of a document: finished (pages read) or still running (ticket to poll)."""

    ticket: str | None = None
    done: bool
    pages: list[OcrPage] = Field(default_factory=list)


class OcrPageQuality(Model):
    """What a job records per OCR page: its confidence, and whether it falls below the low-confidence bar."""

    number: int
    confidence: float
    low_confidence: bool


class ExtractedDocument(Model):
    pages: list[Page]
    content_type: str
    references: list[str] = Field(default_factory=list)  # the bibliography, kept out of the chunks

    @property
    def char_count(self) -> int:
        return sum(len(p.text) for p in self.pages)


class Chunk(Model):
    chunk_id: str
    doc_id: str
    doc_key: str
    version: int
    ordinal: int
    text: str
    token_count: int
    page: int | None = None
    section: str | None = None
    metadata: DocumentMetadata
    injection_flags: tuple[str, ...] = ()  # instruction-like text found (ingest/injection.py); a tuple, as authors
    ocr_confidence: float | None = None  # its page was read by OCR with this mean confidence (0-100)
    low_confidence: bool = False  # that confidence is below the low-confidence bar: check against the source


class SearchMode(StrEnum):
    BM25 = "bm25"
    DENSE = "dense"
    HYBRID = "hybrid"


class FusionMethod(StrEnum):
    MIN_MAX = "min_max"  # min-max normalisation + weighted arithmetic mean (OpenSearch normalization-processor)
    RRF = "rrf"  # reciprocal rank fusion (OpenSearch score-ranker-processor)


class SearchFilters(Model):
    source_types: list[SourceType] = Field(default_factory=list)
    specialties: list[str] = Field(default_factory=list)
    doc_keys: list[str] = Field(default_factory=list)
    year_min: JsonInt | None = None  # `false` or `"2020"` is a 400, not 0 or 2020


class SearchQuery(Model):
    text: str
    vector: list[float] | None = None
    top_k: int = Field(default=10, ge=1, le=1000)
    mode: SearchMode = SearchMode.HYBRID
    fusion: FusionMethod = FusionMethod.MIN_MAX
    bm25_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    candidates: int = Field(default=100, ge=1, le=10000)
    rrf_k: int = Field(default=60, ge=1)
    filters: SearchFilters = Field(default_factory=SearchFilters)


class SearchHit(Model):
    chunk: Chunk
    score: float
    bm25_score: float | None = None
    vector_score: float | None = None
    # The question's cosine with its document's opening (ingest/stages.opening_text), from the opening vector
    # stored once per document version: None when the index holds none (ingested before it, or a BM25 search).
    opening_cosine: float | None = None
    source: str = "knowledge_base"


# --------------------------------------------------------------------------- ingestion jobs


class JobState(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    SUPERSEDED = "SUPERSEDED"


# Valid transitions of an IndexingJob; anything else is a bug or a replay and is refused.
JOB_TRANSITIONS: dict[JobState, frozenset[JobState]] = {
    JobState.PENDING: frozenset({JobState.RUNNING, JobState.FAILED, JobState.SUPERSEDED}),
    JobState.RUNNING: frozenset({JobState.COMPLETED, JobState.FAILED}),
    JobState.FAILED: frozenset({JobState.PENDING, JobState.SUPERSEDED}),  # PENDING again = retry
    JobState.COMPLETED: frozenset({JobState.SUPERSEDED}),
    JobState.SUPERSEDED: frozenset(),
}

MAX_JOB_ATTEMPTS = 3
# A job put back after its worker died while it was still PENDING (queued, nothing of it ran) keeps its attempt:
# it cannot be what stopped the worker. Bounded all the same, so that a runner that stops every execution
# before it starts does not re-drive it for ever.
MAX_JOB_REQUEUES = 20


class IndexingJob(Model):
    job_id: str = Field(default_factory=lambda: new_id("job"))
    doc_id: str
    doc_key: str
    version: int
    state: JobState = JobState.PENDING
    reason: str | None = None
    unchanged: bool = False
    attempts: int = 1
    requeues: int = 0  # times put back without running (its worker died while it was PENDING): not attempts
    chunks_total: int = 0
    chunks_done: int = 0
    flagged_chunks: int = 0  # chunks holding instruction-like text (ingest/injection.py): indexed, never quoted
    ocr_pages: list[OcrPageQuality] = Field(default_factory=list)  # the pages read by OCR, with confidence
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    worker: str | None = None  # host/pid/token of the process that last moved it (updated_at is its heartbeat)
    execution_id: str | None = None  # its ingest execution (a Step Functions ARN on AWS): the reconciler asks it
    metadata_phi_redacted: list[str] = Field(default_factory=list)  # PHI types redacted from its metadata
    metadata_screened: bool | None = None  # as on its document: False until Screen Metadata ran (doc_key withheld)
    # the metadata fields its upload did not state, taken from the doc_key's active version (names, never values)
    metadata_inherited: list[str] = Field(default_factory=list)

    def can_transition(self, to: JobState) -> bool:
        return to in JOB_TRANSITIONS[self.state]

    def transition(self, to: JobState, *, reason: str | None = None) -> IndexingJob:
        """Return a copy in state `to`; raises InvalidTransition for a move the lifecycle forbids."""
        from voiceassist.errors import InvalidTransition

        if not self.can_transition(to):
            raise InvalidTransition(f"job {self.job_id} cannot go from {self.state} to {to}")
        now = utc_now()
        changes: dict[str, Any] = {"state": to, "updated_at": now}
        if to is JobState.RUNNING:
            changes["started_at"] = now
        if to in (JobState.COMPLETED, JobState.FAILED):
            changes["finished_at"] = now
        if to is JobState.FAILED:
            changes["reason"] = reason or "failed for an unknown reason"
        elif reason is not None:
            changes["reason"] = reason
        return self.model_copy(update=changes)

    def retry(self, *, counted: bool = True) -> IndexingJob:
        """A FAILED job goes back to PENDING, at most MAX_JOB_ATTEMPTS attempts in all. `counted=False`: a
        requeue of a job that never ran (interrupted while PENDING), which keeps its attempt."""
        from voiceassist.errors import InvalidTransition

        if self.state is not JobState.FAILED:
            raise InvalidTransition(f"only a FAILED job can be retried; job {self.job_id} is {self.state}")
        if counted and self.attempts >= MAX_JOB_ATTEMPTS:
            raise InvalidTransition(
                f"job {self.job_id} already ran {self.attempts} times (the limit is {MAX_JOB_ATTEMPTS})"
            )
        if not counted and self.requeues >= MAX_JOB_REQUEUES:
            raise InvalidTransition(f"job {self.job_id} was put back {self.requeues} times without running "
                                    f"(the limit is {MAX_JOB_REQUEUES})")
        job = self.transition(JobState.PENDING)
        bumped = {"attempts": self.attempts + 1} if counted else {"requeues": self.requeues + 1}
        return job.model_copy(update={**bumped, "reason": None, "finished_at": None, "chunks_done": 0})

    @property
    def execution_name(self) -> str:
        """The name of this attempt's execution (unique per job, attempt and requeue, as Step Functions needs)."""
        return f"{self.job_id}-attempt{self.attempts}" + (f"-requeue{self.requeues}" if self.requeues else "")


# --------------------------------------------------------------------------- PHI


class PhiEntity(Model):
    entity_type: str
    start: int
    end: int
    score: float = 1.0


class PhiResult(Model):
    contains_phi: bool
    entities: list[PhiEntity] = Field(default_factory=list)
    redacted_text: str
    error: str | None = None  # a detector failure: the result then counts as PHI (fail closed)

    @property
    def entity_types(self) -> list[str]:
        return sorted({e.entity_type for e in self.entities})


# --------------------------------------------------------------------------- query


class Intent(StrEnum):
    DIAGNOSIS = "diagnosis"
    TREATMENT = "treatment"
    DRUG_INFO = "drug_info"
    GUIDELINE = "guideline"
    CASE_CONSULTATION = "case_consultation"
    GENERAL = "general"


class SourceName(StrEnum):
    """The sources a question can be searched in (voiceassist.query.sources describes each)."""

    TEXTBOOKS = "textbooks"
    GUIDELINES = "guidelines"
    DRUG_REFERENCES = "drug_references"
    PUBMED = "pubmed"


class SourceKind(StrEnum):
    KNOWLEDGE_BASE = "knowledge_base"  # a partition of our own index
    EXTERNAL = "external"  # a SearchSource adapter (PubMed, ...): its own service, budget and boundary


class SourceConfig(Model):
    name: str
    kind: SourceKind = SourceKind.KNOWLEDGE_BASE
    source_types: list[SourceType] = Field(default_factory=list)
    timeout_seconds: float = 3.0


class SearchBranch(Model):
    """One parallel search of the query pipeline (an item of the "Search Sources" Map state).

    The selected knowledge-base partitions share one branch: they live in one index, so one search with a
    source_types filter ranks them on one scale at a third of the cost (voiceassist.query.sources explains).
    """

    kind: SourceKind
    sources: list[str] = Field(min_length=1)  # the selected sources this branch covers, by priority
    source_types: list[SourceType] = Field(default_factory=list)  # empty: no source_type filter
    budget_seconds: float = Field(gt=0)  # what the search itself may take (the client's deadline)
    timeout_seconds: int = Field(ge=1)  # the state machine's backstop: the budget plus Lambda overhead

    @property
    def name(self) -> str:
        return self.kind.value


MAX_SOURCES = 3


class SourcePreferences(Model):
    """Which sources to search: the question's intent picks them unless these say otherwise."""

    prioritize: list[SourceName] = Field(
        default_factory=list, max_length=MAX_SOURCES,
        description=f"Sources to search first, most wanted first (at most {MAX_SOURCES} are searched)")
    exclude: list[SourceName] = Field(default_factory=list, description="Sources never to search")

    @model_validator(mode="after")
    def _consistent(self) -> SourcePreferences:
        both = sorted(set(self.prioritize) & set(self.exclude))
        if both:
            raise ValueError(f"{', '.join(both)} cannot be both prioritized and excluded; pick one")
        if set(self.exclude) >= set(SourceName):
            raise ValueError("every source is excluded; leave at least one of "
                             + ", ".join(s.value for s in SourceName))
        return self


QUESTION_MAX_CHARS = 4000
MISHEARD_WORDS_MAX = 200  # a 60 s recording's words, at most
MISHEARD_WORD_MAX_CHARS = 64


class QueryRequest(Model):
    query: str = Field(min_length=1, max_length=QUESTION_MAX_CHARS, description="The clinician's question")
    session_id: str | None = None
    top_k: JsonInt = Field(default=5, ge=1, le=20, description="How many excerpts to cite at most")
    filters: SearchFilters = Field(default_factory=SearchFilters)
    sources: SourcePreferences = Field(default_factory=SourcePreferences,
                                       description="Source preferences: prioritize and exclude by name")
    possibly_misheard: list[Annotated[str, Field(max_length=MISHEARD_WORD_MAX_CHARS)]] = Field(
        default_factory=list, max_length=MISHEARD_WORDS_MAX,
        description="Words of a spoken question the recognizer was unsure of or knows no vocabulary for "
                    "(speech.unsure): one no searched passage mentions may be left out of the evidence judgment "
                    "and named as possibly misheard, instead of refusing the question; never a clinical term")
    phi_unsure_words: list[Annotated[str, Field(max_length=MISHEARD_WORD_MAX_CHARS)]] = Field(
        default_factory=list, max_length=MISHEARD_WORDS_MAX,
        description="Words of a spoken question heard unsure where patient details sit (speech.phi_doubt: after a "
                    "title or 'patient', written as a name, beside a number or a month): the question is then "
                    "answered inside the PHI boundary as if it held PHI (setting voice_phi_doubt). A client that "
                    "sends a transcript the clinician left uncorrected sends the route's phi_unsure_words")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        """The question as it reads, spelled as the index spells its documents (ingest.cleaning.normalize_text, whose
        docstring asks for it: a soft hyphen or zero-width space pasted inside "metformin", or full-width letters,
        found no passage), never changing what a number or unit means."""
        from voiceassist.ingest.cleaning import normalize_text  # kept off the import of every model

        read = value.strip()
        if not value.isascii() or not value.isprintable():  # and no format character (a bidirectional mark) left
            read = _shown(normalize_text(value)).strip()
        if not read:
            raise ValueError("query must contain text, not only white space")
        if len(read) > QUESTION_MAX_CHARS:  # a character that normalises to several ("ﷺ")
            raise ValueError(f"the question is {len(read)} characters long as read; the limit is {QUESTION_MAX_CHARS}")
        return read

    @field_validator("phi_unsure_words")
    @classmethod
    def _phi_words(cls, value: list[str]) -> list[str]:
        """Words or numbers as speech.phi_doubt writes them, lower case, once each (never quoted: PHI-capable)."""
        if not all(_PHI_UNSURE_WORD.fullmatch(word) for word in value):
            raise ValueError("each phi_unsure_words entry is one word or number, as the voice route lists them")
        return list(dict.fromkeys(word.lower() for word in value))

    @field_validator("possibly_misheard")
    @classmethod
    def _words(cls, value: list[str]) -> list[str]:
        """Each a word as speech.unsure writes it (letters, a hyphen or apostrophe inside), lower case, once each. The
        message never quotes one: they are transcript text, PHI-capable (a patient's name heard unsure)."""
        if not all(_MISHEARD_WORD.fullmatch(word) for word in value):
            raise ValueError("each word is one word of letters (a hyphen or an apostrophe inside), as the transcript "
                             "route's possibly_misheard lists them; not a phrase, a number or other characters")
        return list(dict.fromkeys(word.lower() for word in value))


_MISHEARD_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_PHI_UNSURE_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")


class Citation(Model):
    number: int
    doc_id: str
    doc_key: str
    title: str
    source_type: SourceType
    page: int | None = None
    section: str | None = None
    excerpt: str
    score: float
    url: str | None = None
    doi: str | None = None
    pmid: str | None = None
    chunk_id: str | None = None  # its passage: GET /v1/documents/{doc_id}/chunks/{chunk_id} (knowledge base only)


class TokenUsage(Model):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class AnswerStatus(StrEnum):
    """What kind of reply a response carries (docs/answers.md)."""

    ANSWERED = "answered"  # cited from passages that reach the evidence threshold
    NO_EVIDENCE = "no_evidence"  # no passage answers: no facts claimed, no citations
    CLARIFICATION = "clarification"  # a question back to the user
    # cited, but the evidence is about another population than the question's (an adult guideline for a
    # child): the answer states the conflict first (query/population.py)
    ANSWERED_OTHER_POPULATION = "answered_other_population"
    TOOL_RESULT = "tool_result"  # a tool's output answers (query/tool_loop.py)
    TOOL_ERROR = "tool_error"  # the tool the question needs failed; the reply says why
    REFUSED = "refused"  # the input screen flagged the request (voiceassist.safety): a short refusal, nothing run


class RetrievalAttempt(Model):
    """One step of the retrieval fallback ladder (query/ladder.py): its evidence, or why it was skipped."""

    step: str  # hybrid | relaxed | dense | pubmed
    evidence: float | None = None  # the best passage's evidence score at this step; None: not searched
    reason: str


class RetrievalLadder(Model):
    step: str = "hybrid"  # the step the answer (or the abstention) comes from
    tried: list[RetrievalAttempt] = Field(default_factory=list)


class Critique(Model):
    """The critic's verdict on one answer (query/critic.py): the grounding check, and what followed."""

    grounding: float | None = None  # the supported share of the answer's sentences
    passed: bool
    action: str  # accepted | retried | abstained | skipped (an answer from tool results)
    step: str  # the ladder step the answer came from
    reason: str


class QueryPlan(Model):
    """What the planner chose and how sure it is (query/planner.py, docs/conversation.md)."""

    action: str  # answer | tool | clarify | no_evidence
    confidence: float = Field(ge=0.0, le=1.0)
    reason: str
    retrieval: RetrievalLadder = Field(default_factory=RetrievalLadder)
    critiques: list[Critique] = Field(default_factory=list)


class QueryMetadata(Model):
    query_id: str
    phi_detected: bool
    phi_entity_types: list[str] = Field(default_factory=list)
    intent: Intent = Intent.GENERAL
    intent_confidence: float = 0.0
    model: str
    extractive: bool = False
    degraded: bool = False
    sources_searched: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_ms: dict[str, float] = Field(default_factory=dict)
    trace_id: str | None = None
    answer_status: AnswerStatus = AnswerStatus.ANSWERED
    evidence_score: float | None = None  # the best passage's evidence score (query/evidence.py), 0..1
    grounding: float | None = None  # the share of answer sentences supported by the excerpt they cite
    context: dict[str, Any] | None = None  # how history shaped the question (conversation.context)
    plan: QueryPlan | None = None  # the planner's choice, the retrieval ladder and the critic (query/planner.py)


class QueryResponse(Model):
    answer: str
    citations: list[Citation]
    clarifying_question: str | None = None
    metadata: QueryMetadata


# --------------------------------------------------------------------------- chat


class ChatMessage(Model):
    role: str  # system | user | assistant | tool (OpenAI chat-completions shape)
    content: str
    tool_calls: list[ToolCall] = Field(default_factory=list)  # an assistant turn that called tools
    tool_call_id: str | None = None  # a tool turn: the call it answers


class ChatCompletion(Model):
    text: str
    model: str
    usage: TokenUsage = Field(default_factory=TokenUsage)
    tool_calls: list[ToolCall] = Field(default_factory=list)  # the model asked for these instead of answering


# --------------------------------------------------------------------------- sessions and audit


class Session(Model):
    session_id: str = Field(default_factory=lambda: new_id("ses"))
    user_id: str
    clinical_context: str | None = Field(default=None, max_length=4000)
    created_at: datetime = Field(default_factory=utc_now)
    expires_at: datetime | None = None


class Message(Model):
    session_id: str
    message_id: str = Field(default_factory=lambda: new_id("msg"))
    role: str
    content: str  # redacted text only: raw PHI never reaches a store
    created_at: datetime = Field(default_factory=utc_now)


class AuditOutcome(StrEnum):
    ANSWERED = "answered"
    CLARIFY = "clarify"
    DEGRADED = "degraded"
    REFUSED = "refused"
    ERROR = "error"
    NO_EVIDENCE = "no_evidence"  # no passage answered: the reply said so, without citations
    ACCEPTED = "accepted"  # an administrative action (upload, delete, retry) that went ahead
    DENIED = "denied"  # a caller whose role may not do what it asked


class AuditRecord(Model):
    """A question answered (query_* fields) or an administrative action (`action`, `target`)."""

    audit_id: str = Field(default_factory=lambda: new_id("aud"))
    user_id: str
    session_id: str | None = None
    query_redacted: str = ""
    query_sha256: str = ""
    phi_detected: bool = False
    phi_entity_types: list[str] = Field(default_factory=list)
    intent: str | None = None
    model: str | None = None
    sources: list[str] = Field(default_factory=list)
    response_id: str | None = None
    outcome: AuditOutcome
    latency_ms: dict[str, float] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utc_now)
    tool: str | None = None  # set on a tool call's record (voiceassist.tools.executor)
    tool_status: int | None = None  # its HTTP-like status: 200, 202 pending, 4xx refused, 5xx failed
    action: str | None = None  # document.upload, document.delete, job.retry, ...; None for a question
    target: str | None = None  # the doc_id or job_id acted on
    roles: list[str] = Field(default_factory=list)  # the caller's roles when it acted
    # The planner's last decision for a question (query/planner.py): its action (answer | tool | clarify |
    # no_evidence) and confidence. Added after records were first chained: hashed only when set (audit_chain).
    plan_action: str | None = None
    plan_confidence: float | None = None
    # The hash chain (voiceassist.audit_chain): filled in by the AuditLog as it appends, per user_id partition.
    sequence: int | None = None
    prev_hash: str | None = None
    record_hash: str | None = None


@dataclass(frozen=True)
class StoredAuditRow:
    """One audit record as its store holds it, before it is read: what `voiceassist audit verify` checks (a row
    whose body no longer reads as a record is a break naming its key, not a crash)."""

    key: str  # the store's key for the record (its audit_id, as stored)
    body: str | dict[str, Any]  # the record's JSON text (SQLite) or attribute values (DynamoDB), as stored
    columns: dict[str, str] = field(default_factory=dict)  # copies kept beside the body: user_id, created_at


# --------------------------------------------------------------------------- tools (voiceassist.tools)


class ToolCategory(StrEnum):
    CALENDAR = "calendar"
    FILE = "file"
    MEDICAL = "medical"
    CALCULATION = "calculation"
    SEARCH = "search"


class RiskLevel(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class ToolDefinition(Model):
    """What a caller (a model, the API, an MCP client) sees of a tool; `parameters` is a JSON Schema."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=dict)
    category: ToolCategory = ToolCategory.CALCULATION
    requires_phi: bool = False  # False: the tool never receives PHI in its arguments (it may leave the boundary)
    requires_confirmation: bool = False
    risk_level: RiskLevel = RiskLevel.LOW
    rate_limit: int = Field(default=60, ge=1, description="calls per user per minute")
    timeout_seconds: float = Field(default=5.0, gt=0, le=30)
    allowed_roles: list[str] = Field(default_factory=lambda: ["clinician", "admin"])


class ToolCall(Model):
    """One call of a tool: the OpenAI function-call shape (arguments already parsed from JSON)."""

    call_id: str = Field(default_factory=lambda: new_id("call"))
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    timeout_seconds: int | None = None  # the state machine's backstop for this call (set by the tool loop)


class PendingAction(Model):
    action_id: str
    tool: str
    summary: str  # a human sentence: what confirming will do
    expires_at: datetime


class ToolResult(Model):
    name: str
    ok: bool
    content: str  # what the model reads: the result, or the error and how to fix the call
    call_id: str | None = None
    status: int = 200  # 200 done, 202 pending confirmation, 4xx refused, 5xx failed
    error: str | None = None  # the error code when not ok
    data: dict[str, Any] = Field(default_factory=dict)
    sources: list[SearchHit] = Field(default_factory=list)  # what the answer may cite (becomes citations)
    pending_action: PendingAction | None = None
    retry_after: int | None = None  # seconds, with a 429
    carries_phi: bool = False  # True: only in-boundary models may see the rest of the turn
    latency_ms: float = 0.0


class ToolExchange(Model):
    """One call of the query's tool loop and its result, in the order the model made them."""

    call: ToolCall
    result: ToolResult
