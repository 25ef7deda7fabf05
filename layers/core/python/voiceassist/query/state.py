"""The query pipeline's state, and the context its steps take.

A QueryState travels through the state machine. It holds the raw question only inside the PHI boundary
(Step Functions and Lambda in our account, executed with execution-data logging off); everything that is
logged, audited or sent to a non-boundary model is the redacted text.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Protocol

from pydantic import Field

from voiceassist.admin.billing import CostGate
from voiceassist.admin.config import AdminConfig, defaults_from
from voiceassist.models import (
    AnswerStatus,
    Citation,
    Critique,
    Intent,
    Model,
    PhiResult,
    QueryMetadata,
    QueryPlan,
    QueryRequest,
    QueryResponse,
    RetrievalLadder,
    SearchBranch,
    SearchHit,
    TokenUsage,
    ToolCall,
    ToolExchange,
    new_id,
    utc_now,
)
from voiceassist.observability import stage_span
from voiceassist.ports import (
    AuditLog,
    ChatModel,
    Embedder,
    KeyValueState,
    MetricSink,
    PhiDetector,
    Reranker,
    SearchIndex,
    SearchSource,
    SessionStore,
)
from voiceassist.settings import PhiMode, Settings


class EventTarget(Model):
    """Where a streamed run's steps publish their events: a WebSocket connection (with the API Gateway
    management endpoint) on AWS, an in-process channel locally (no endpoint)."""

    connection_id: str
    endpoint: str | None = None


class QueryState(Model):
    """The state machine's payload for one question."""

    query_id: str = Field(default_factory=lambda: new_id("qry"))
    user_id: str
    received_at: datetime = Field(default_factory=utc_now)
    trace_id: str | None = None
    request: QueryRequest
    phi: PhiResult | None = None
    intent: Intent = Intent.GENERAL
    intent_confidence: float = 0.0
    clarifying_question: str | None = None
    search_plan: list[SearchBranch] = Field(default_factory=list)  # the "Search Sources" Map's items
    hits: list[SearchHit] = Field(default_factory=list)
    sources_searched: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    answer: str | None = None
    citations: list[Citation] = Field(default_factory=list)
    model: str | None = None
    model_in_boundary: bool | None = None  # whether the model that answered may see PHI (None: no model)
    extractive: bool = False
    degraded: bool = False
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_ms: dict[str, float] = Field(default_factory=dict)
    audit_id: str | None = None
    failure: dict[str, str] | None = None  # the Error/Cause a Catch recorded before a fallback tier ran
    # the tool loop (voiceassist.query.tool_loop): Generate <-> Run Tools, at most 5 calls and 10 s a query
    tool_route: str | None = None  # the calculator the question names, set by Classify
    tool_calls: list[ToolCall] = Field(default_factory=list)  # the "Run Tools" Map's items
    tool_calls_pending: bool = False
    tool_results: list[dict[str, Any]] = Field(default_factory=list)  # the Map's output, folded in by Generate
    tool_history: list[ToolExchange] = Field(default_factory=list)
    tool_calls_made: int = 0
    tool_seconds_used: float = 0.0
    tool_events_sent: int = 0  # tool results already streamed as "tool" events (conversation.events)
    generation_tier: str | None = None  # the tier the loop returns to after running tools
    answer_status: AnswerStatus | None = None  # None: "answered", or "clarification" for a question back
    evidence_score: float | None = None
    # the question's population that the kept evidence does not cover, stated before the answer (abstention.py)
    population_conflict: str | None = None
    # a score the question gives that its own findings compute otherwise, stated before the answer (tool_route.py)
    score_note: str | None = None
    grounding: float | None = None
    stream: EventTarget | None = None  # set when a client streams the run's events (conversation.events)
    history: list[str] = Field(default_factory=list)  # earlier turns a client sent (chat messages): PHI-checked
    # a chat's turns older than the history window: read by the PHI check only; unchecked when too long to check
    # (conversation.orchestrator.EARLIER_CHECK_CHARS), which keeps the run inside the boundary
    earlier_history: list[str] = Field(default_factory=list)
    earlier_unchecked: bool = False
    # what the conversation established before the history window (its facts, the summary of older turns): for
    # the answering model's prompt; from redacted turns and closed vocabularies (conversation/memory.py)
    memory: str | None = None
    dose_mismatches: int = 0  # sentences the grounding check removed for a dose, frequency or route (query/critic.py)
    screen_categories: list[str] = Field(default_factory=list)  # what the input screen flagged (voiceassist.safety)
    # the planner (query/planner.py), the retrieval fallback ladder (query/ladder.py) and the critic (query/critic.py)
    plan: QueryPlan | None = None
    ladder: RetrievalLadder = Field(default_factory=RetrievalLadder)
    fallback_pubmed: SearchBranch | None = None  # the ladder's PubMed step, set by Classify when the PHI rules allow
    search_again: bool = False  # Rank or the critic sends the run back to "Search Sources" one step down the ladder
    unavailable_sources: list[str] = Field(default_factory=list)  # failed or too slow when searched (Rank)
    warnings_after_rank: int = 0  # the warnings a withdrawn answer's retry keeps
    critiques: list[Critique] = Field(default_factory=list)
    withdrawn_usage: TokenUsage = Field(default_factory=TokenUsage)  # tokens of an answer the critic withdrew
    # the admin configuration in force when the question arrived (voiceassist.admin): every step reads this one
    config: AdminConfig | None = None

    @property
    def phi_detected(self) -> bool:
        return self.phi is None or self.phi.contains_phi  # not yet checked counts as PHI (fail closed)

    @property
    def safe_text(self) -> str:
        """What may be logged, audited or sent outside the boundary: the redacted question."""
        if self.phi is None:
            return "<NOT_CHECKED>"
        return self.phi.redacted_text


class QueryContext(Protocol):
    """What the query steps may use. The composition root provides it and builds each adapter on first use,
    so a step builds only what it touches (Classify never loads the PHI detector; it embeds the question for the
    input screen when the embedding model is deployed with it)."""

    settings: Settings

    @property
    def phi_detector(self) -> PhiDetector: ...
    @property
    def index(self) -> SearchIndex: ...
    @property
    def embedder(self) -> Embedder: ...
    @property
    def audit(self) -> AuditLog: ...
    @property
    def metrics(self) -> MetricSink: ...
    @property
    def sessions(self) -> SessionStore: ...
    @property
    def state(self) -> KeyValueState: ...  # shared circuit-breaker state
    @property
    def cloud_chat(self) -> ChatModel | None: ...  # never sees PHI
    @property
    def local_chat(self) -> ChatModel | None: ...  # in-boundary
    @property
    def admin_config(self) -> AdminConfig: ...  # the configuration in force now (outside a question's run)
    def cost_gate(self, config: AdminConfig) -> CostGate: ...  # the cost ledger under the config's limits
    def phi_detector_for(self, mode: PhiMode) -> PhiDetector: ...  # the admin configuration's PHI mode
    @property
    def reranker(self) -> Reranker: ...
    @property
    def external_sources(self) -> dict[str, SearchSource]: ...  # outside the knowledge base, by name


def run_config(ctx: QueryContext, state: QueryState) -> AdminConfig:
    """The question's admin configuration: the one it arrived with, else the deployment's settings."""
    return state.config if state.config is not None else defaults_from(ctx.settings)


def history_text(state: QueryState) -> str:
    """What the PHI check reads of a chat's earlier messages: its older turns (within the check's size) and the
    window."""
    return "\n".join([*state.earlier_history, *state.history])


def run_detector(ctx: QueryContext, state: QueryState) -> PhiDetector:
    """The question's PHI detector: in its configuration's PHI mode, at every check (Detect PHI, the egress guard,
    the redactions), so that no step checks with another mode than the one that routed the question."""
    return ctx.phi_detector_for(run_config(ctx, state).phi_mode)


@contextmanager
def timed(state: QueryState, stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        record_latency(state, stage, start)


def record_latency(state: QueryState, stage: str, started: float) -> None:
    """The stage's wall time since `started` (time.perf_counter()) in the state, and its span to a listener."""
    ended = time.perf_counter()
    state.latency_ms[stage] = round((ended - started) * 1000, 2)
    stage_span(stage, started, ended)


def carried(state: QueryState) -> dict[str, Any]:
    """The state as the state machine carries it between steps: JSON, without the top-level fields still at
    their defaults (the next step's QueryState.model_validate restores them). A question that uses no tool, no
    critic retry and no ladder step carries none of their empty state: an unanswered state is ~150 bytes, not
    ~1,300. Nested values stay whole (the ASL reads "$.search_plan" items' timeout_seconds, and tests compare
    state trees); query.asl.json's Choices test every optional field with IsPresent first."""
    defaults = _defaults()
    return state.model_dump(mode="json", exclude={name for name, default in defaults.items()
                                                  if getattr(state, name) == default})


def _defaults() -> dict[str, Any]:
    """Each optional field's default; fields whose factory makes a new value each time (ids, times) never match."""
    if not _DEFAULTS:
        _DEFAULTS.update({name: field.get_default(call_default_factory=True)
                          for name, field in QueryState.model_fields.items()
                          if not field.is_required() and name not in ("query_id", "received_at")})
    return _DEFAULTS


_DEFAULTS: dict[str, Any] = {}


def response_of(state: QueryState) -> QueryResponse:
    """The API's view of a finished state."""
    answer = state.answer or state.clarifying_question or ""
    if status_of(state) is AnswerStatus.ANSWERED_OTHER_POPULATION and state.population_conflict:
        answer = f"{state.population_conflict}\n\n{answer}"
    if state.score_note and answer:  # before the answer, or before the reply that the sources have none
        answer = f"{state.score_note}\n\n{answer}"
    return QueryResponse(
        answer=answer,
        citations=state.citations,
        clarifying_question=state.clarifying_question if not state.answer else None,
        metadata=QueryMetadata(
            query_id=state.query_id, phi_detected=state.phi_detected,
            phi_entity_types=state.phi.entity_types if state.phi else [], intent=state.intent,
            intent_confidence=state.intent_confidence, model=state.model or "none", extractive=state.extractive,
            degraded=state.degraded, sources_searched=state.sources_searched, warnings=state.warnings,
            usage=state.usage, latency_ms=state.latency_ms, trace_id=state.trace_id,
            answer_status=status_of(state), evidence_score=state.evidence_score, grounding=state.grounding,
            plan=state.plan,
        ),
    )


def status_of(state: QueryState) -> AnswerStatus:
    """The kind of reply the response carries (its metadata.answer_status)."""
    if state.answer_status is not None:
        return state.answer_status
    if state.population_conflict and state.answer and state.citations:
        return AnswerStatus.ANSWERED_OTHER_POPULATION
    return AnswerStatus.CLARIFICATION if state.clarifying_question and not state.answer else AnswerStatus.ANSWERED
