"""The query flow as plain functions; each Lambda stage of query.asl.json calls one of them.

A QueryState travels through the state machine. It holds the raw question only inside the PHI boundary
(Step Functions and Lambda in our account, executed with execution-data logging off); everything that is
logged, audited or sent to a non-boundary model is the redacted text.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import Field

from voiceassist import intent as intents
from voiceassist.errors import InvalidInput
from voiceassist.models import (
    AuditOutcome,
    AuditRecord,
    Citation,
    Intent,
    Model,
    PhiResult,
    QueryMetadata,
    QueryRequest,
    QueryResponse,
    SearchHit,
    SearchQuery,
    TokenUsage,
    new_id,
    utc_now,
)
from voiceassist.observability import logger
from voiceassist.ports import (
    AuditLog,
    ChatModel,
    Embedder,
    KeyValueState,
    PhiDetector,
    SearchIndex,
    SessionStore,
)
from voiceassist.settings import Settings

# A hit scoring below this (min-max fused, 0..1) is not "a good result" for the clarification rule.
MIN_GOOD_SCORE = 0.05
SEARCH_CANDIDATES = 100
SOURCES_UNAVAILABLE_REPLY = ("The knowledge base could not be searched just now, so there is no cited answer "
                             "to give. Please ask again in a minute.")


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
    hits: list[SearchHit] = Field(default_factory=list)
    sources_searched: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    answer: str | None = None
    citations: list[Citation] = Field(default_factory=list)
    model: str | None = None
    extractive: bool = False
    degraded: bool = False
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_ms: dict[str, float] = Field(default_factory=dict)
    audit_id: str | None = None
    failure: dict[str, str] | None = None  # the Error/Cause a Catch recorded before a fallback tier ran

    @property
    def phi_detected(self) -> bool:
        return self.phi is None or self.phi.contains_phi  # not yet checked counts as PHI (fail closed)

    @property
    def safe_text(self) -> str:
        """What may be logged, audited or sent outside the boundary: the redacted question."""
        if self.phi is None:
            return "<NOT_CHECKED>"
        return self.phi.redacted_text


@dataclass
class QueryContext:
    """What the query stages need; built by voiceassist.composition."""

    settings: Settings
    phi_detector: PhiDetector
    index: SearchIndex
    embedder: Embedder
    audit: AuditLog
    sessions: SessionStore
    state: KeyValueState  # shared circuit-breaker state
    cloud_chat: ChatModel | None = None  # never sees PHI
    local_chat: ChatModel | None = None  # in-boundary


@contextmanager
def timed(state: QueryState, stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        state.latency_ms[stage] = round((time.perf_counter() - start) * 1000, 2)


# --------------------------------------------------------------------------- stages


def detect_phi(ctx: QueryContext, state: QueryState) -> QueryState:
    with timed(state, "detect_phi"):
        state.phi = ctx.phi_detector.detect(state.request.query)
    if state.phi.error:
        state.warnings.append("PHI detection failed; the question was treated as containing PHI")
    logger.info("phi checked", extra={"query_id": state.query_id, "phi": state.phi.contains_phi,
                                      "types": state.phi.entity_types})
    return state


def classify(ctx: QueryContext, state: QueryState) -> QueryState:
    with timed(state, "classify"):
        result = intents.classify_intent(state.request.query)
    state.intent, state.intent_confidence = result.intent, result.confidence
    state.clarifying_question = result.clarifying_question
    return state


def search_source(ctx: QueryContext, state: QueryState, source: str) -> list[SearchHit]:
    """One parallel search branch, by source name."""
    if source == "knowledge_base":
        return search_knowledge_base(ctx, state)
    raise InvalidInput(f"unknown source {source!r}; known sources: knowledge_base")


def search_knowledge_base(ctx: QueryContext, state: QueryState) -> list[SearchHit]:
    """The knowledge base: hybrid BM25 + vector with the configured fusion."""
    started = time.perf_counter()
    vector = ctx.embedder.embed([state.request.query])[0]  # in-boundary embedder: PHI text may be embedded
    query = SearchQuery(
        text=state.request.query, vector=vector.tolist(), top_k=max(state.request.top_k * 2, 10),
        fusion=ctx.settings.fusion, bm25_weight=ctx.settings.bm25_weight, candidates=SEARCH_CANDIDATES,
        filters=state.request.filters,
    )
    hits = ctx.index.search(query)
    state.latency_ms["search_knowledge_base"] = round((time.perf_counter() - started) * 1000, 2)
    return hits


def merge_search_results(ctx: QueryContext, state: QueryState, branches: list[dict[str, Any]]) -> QueryState:
    """Collect the parallel branches: hits from each source, a warning for each failed or slow one."""
    hits: list[SearchHit] = []
    failed = [branch for branch in branches if branch.get("error")]
    for branch in branches:
        source = str(branch.get("source", "unknown"))
        state.sources_searched.append(source)
        if branch.get("error"):
            rest = "; answered without it" if len(failed) < len(branches) else ""
            state.warnings.append(f"source {source} was unavailable ({branch['error']}){rest}")
            continue
        hits.extend(SearchHit.model_validate(h) for h in branch.get("hits", []))
        state.latency_ms.update(branch.get("latency_ms", {}))
    hits.sort(key=lambda h: h.score, reverse=True)
    state.hits = hits[: max(state.request.top_k * 2, 10)]
    if failed and len(failed) == len(branches):
        # Nothing to answer from, and rephrasing would not help: say so. The reply takes the clarification
        # route past generation (query.asl.json) and is audited as degraded.
        state.answer = state.clarifying_question = SOURCES_UNAVAILABLE_REPLY
        state.degraded = True
        return state
    if not state.clarifying_question and (not state.hits or state.hits[0].score < MIN_GOOD_SCORE):
        state.clarifying_question = intents.NO_GOOD_RESULTS_QUESTION
    return state


def audit(ctx: QueryContext, state: QueryState, *, outcome: AuditOutcome | None = None) -> QueryState:
    """Append the audit record: redacted text and a hash, never the raw question."""
    record = AuditRecord(
        user_id=state.user_id, session_id=state.request.session_id, query_redacted=state.safe_text,
        query_sha256=hashlib.sha256(state.request.query.encode("utf-8")).hexdigest(),
        phi_detected=state.phi_detected, phi_entity_types=state.phi.entity_types if state.phi else [],
        intent=state.intent.value, model=state.model, sources=state.sources_searched,
        response_id=state.query_id, outcome=outcome or outcome_of(state), latency_ms=state.latency_ms,
    )
    ctx.audit.append(record)
    state.audit_id = record.audit_id
    return state


def outcome_of(state: QueryState) -> AuditOutcome:
    if state.clarifying_question and not state.answer:
        return AuditOutcome.CLARIFY
    if state.degraded:
        return AuditOutcome.DEGRADED
    return AuditOutcome.ANSWERED if state.answer else AuditOutcome.ERROR


def response_of(state: QueryState) -> QueryResponse:
    """The API's view of a finished state."""
    answer = state.answer or state.clarifying_question or ""
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
        ),
    )
