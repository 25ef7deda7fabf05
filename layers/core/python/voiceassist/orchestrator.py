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
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import Field

from voiceassist import intent as intents
from voiceassist import search, sources
from voiceassist.errors import DependencyError, InvalidInput, PhiBoundaryViolation
from voiceassist.models import (
    AuditOutcome,
    AuditRecord,
    Citation,
    FusionMethod,
    Intent,
    Model,
    PhiResult,
    QueryMetadata,
    QueryRequest,
    QueryResponse,
    RoutingMode,
    SearchBranch,
    SearchFilters,
    SearchHit,
    SearchMode,
    SearchQuery,
    SourceKind,
    SourceName,
    SourceType,
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
    LiteratureSearch,
    PhiDetector,
    Reranker,
    SearchIndex,
    SessionStore,
)
from voiceassist.query_expansion import expand_abbreviations
from voiceassist.rerank import IdentityReranker
from voiceassist.settings import Settings

# A hit scoring below this (min-max fused, 0..1) is not "a good result" for the clarification rule.
MIN_GOOD_SCORE = 0.05
SEARCH_CANDIDATES = 100
# Several chunks of one document must not crowd out the others (docs/benchmarks.md, "Retrieval quality"), but
# one is too few: the passage that answers ("first-line treatment is amoxicillin", page 2) is often not the
# document's best-scoring chunk (its overview, page 1). Three keeps both and still leaves room for others.
MAX_CHUNKS_PER_DOCUMENT = 3
SOURCES_UNAVAILABLE_REPLY = ("The knowledge base could not be searched just now, so there is no cited answer "
                             "to give. Please ask again in a minute.")
PUBMED_SKIPPED_PHI = ("PubMed was not searched: the question contains patient details (PHI), and PubMed is "
                      "outside the PHI boundary")
PUBMED_SKIPPED_UNCHECKED = ("PubMed was not searched: the question could not be checked for patient details "
                            "(PHI), and PubMed is outside the PHI boundary")
PUBMED_NOT_CONFIGURED = "PubMed is not configured in this deployment; searched the other sources"
PUBMED_OFF_LOCAL_ONLY = ("PubMed was not searched: this deployment runs in local-only mode, where no question "
                         "leaves the PHI boundary; searched the other sources")


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
    reranker: Reranker = field(default_factory=IdentityReranker)
    literature: LiteratureSearch | None = None  # PubMed, outside the boundary; None when not configured


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
    """Intent, a clarifying question when needed, and otherwise the sources to search (search_plan)."""
    with timed(state, "classify"):
        result = intents.classify_intent(state.request.query)
        state.intent, state.intent_confidence = result.intent, result.confidence
        state.clarifying_question = result.clarifying_question
        if not state.clarifying_question:
            plan_sources(ctx, state)
    return state


def plan_sources(ctx: QueryContext, state: QueryState) -> QueryState:
    """Select the sources (intent and the caller's preferences) and turn them into parallel searches.

    PubMed is outside the PHI boundary. A question with detected PHI, or one the detector could not check,
    never goes there: a redacted clinical question still describes one patient, a missed identifier is
    likeliest in exactly those questions, and the in-boundary knowledge base answers them. The clinician
    sees a warning whenever PubMed would otherwise have been searched. In local-only mode PubMed is off.
    """
    preferences = state.request.sources
    available = {name.value for name in sources.PARTITIONS}
    pubmed = SourceName.PUBMED.value
    local_only = ctx.settings.routing_mode is RoutingMode.LOCAL_ONLY  # nothing leaves the boundary
    if ctx.literature is None or local_only:
        if SourceName.PUBMED in preferences.prioritize:
            state.warnings.append(PUBMED_OFF_LOCAL_ONLY if local_only else PUBMED_NOT_CONFIGURED)
    elif not state.phi_detected:
        available.add(pubmed)
    elif any(s.name == pubmed for s in sources.select_sources(state.intent, preferences, available | {pubmed})):
        state.warnings.append(PUBMED_SKIPPED_UNCHECKED if state.phi is None or state.phi.error
                              else PUBMED_SKIPPED_PHI)
    selected = [s.model_copy(update={"timeout_seconds": ctx.settings.pubmed_budget_seconds})
                if s.kind is SourceKind.PUBMED else s
                for s in sources.select_sources(state.intent, preferences, available)]
    state.search_plan = sources.search_branches(selected, source_types=state.request.filters.source_types)
    if any(s.kind is SourceKind.KNOWLEDGE_BASE for s in selected) and not any(
            b.kind is SourceKind.KNOWLEDGE_BASE for b in state.search_plan):
        state.warnings.append("the source_types filter excludes every selected knowledge-base source ("
                              + ", ".join(s.name for s in selected if s.kind is SourceKind.KNOWLEDGE_BASE) + ")")
    return state


def search_source(ctx: QueryContext, state: QueryState, source: SearchBranch | str) -> list[SearchHit]:
    """One parallel search branch: an item of state.search_plan ("knowledge_base" alone: the whole index)."""
    if source == SourceKind.KNOWLEDGE_BASE.value:
        return search_knowledge_base(ctx, state)
    if isinstance(source, str):
        raise InvalidInput(f"unknown search branch {source!r}; known: {SourceKind.KNOWLEDGE_BASE.value} or an "
                           "item of search_plan")
    if source.kind is SourceKind.PUBMED:
        return search_literature(ctx, state, deadline_s=source.budget_seconds)
    return search_knowledge_base(ctx, state, source_types=source.source_types)


def search_knowledge_base(ctx: QueryContext, state: QueryState, *, source_types: list[SourceType] | None = None
                          ) -> list[SearchHit]:
    """The knowledge base: hybrid BM25 + vector with the configured fusion, then the reranker."""
    started = time.perf_counter()
    filters = state.request.filters
    if source_types:
        filters = filters.model_copy(update={"source_types": source_types})
    query = knowledge_base_query(ctx, state.request.query, top_k=max(state.request.top_k * 2, 10), filters=filters)
    hits = run_knowledge_base_query(ctx, query, phi_detected=state.phi_detected)
    state.latency_ms["search_knowledge_base"] = round((time.perf_counter() - started) * 1000, 2)
    return hits


def knowledge_base_query(ctx: QueryContext, question: str, *, top_k: int, filters: SearchFilters | None = None,
                         mode: SearchMode = SearchMode.HYBRID, candidates: int = SEARCH_CANDIDATES,
                         fusion: FusionMethod | None = None, bm25_weight: float | None = None) -> SearchQuery:
    """The index request for a question (shared with `voiceassist eval retrieval`, so it measures this path).

    Known clinical abbreviations are expanded first ("AF" -> "AF (atrial fibrillation)") for both
    sub-queries: evaluated in docs/benchmarks.md, "Retrieval quality". The embedder is in-boundary, so a
    question with PHI may be embedded.
    """
    text = expand_abbreviations(question)
    vector = None if mode is SearchMode.BM25 else ctx.embedder.embed([text])[0].tolist()
    return SearchQuery(
        text=text, vector=vector, top_k=top_k, mode=mode, candidates=candidates,
        fusion=fusion or ctx.settings.fusion,
        bm25_weight=ctx.settings.bm25_weight if bm25_weight is None else bm25_weight,
        filters=filters or SearchFilters(),
    )


def run_knowledge_base_query(ctx: QueryContext, query: SearchQuery, *, phi_detected: bool) -> list[SearchHit]:
    """Search the index, then rerank (a reranker outside the boundary never sees a question with PHI)."""
    hits = ctx.index.search(query)
    if ctx.reranker.in_boundary or not phi_detected:
        hits = ctx.reranker.rerank(query.text, hits, top_k=query.top_k)
    return hits


def search_literature(ctx: QueryContext, state: QueryState, *, deadline_s: float) -> list[SearchHit]:
    """PubMed, with the question only when it was checked and carries no PHI (plan_sources skips it
    otherwise; this is the egress guard's last line). The query_retrieve function ships without the PHI
    detector, so the guard relies on Detect PHI's result for this exact text rather than running it again."""
    if ctx.literature is None:
        raise DependencyError("PubMed is not configured in this deployment")
    checked = state.phi is not None and state.phi.redacted_text == state.request.query  # this exact text
    if state.phi_detected or not checked or ctx.settings.routing_mode is RoutingMode.LOCAL_ONLY:
        raise PhiBoundaryViolation("refused to send the question outside the PHI boundary: it was not "
                                   "checked, it carries PHI, or the deployment is local-only")
    started = time.perf_counter()
    hits = ctx.literature.search(state.request.query, top_k=state.request.top_k, deadline_s=deadline_s)
    state.latency_ms["search_pubmed"] = round((time.perf_counter() - started) * 1000, 2)
    return hits


def merge_search_results(ctx: QueryContext, state: QueryState, branches: list[dict[str, Any]]) -> QueryState:
    """Collect the parallel branches: hits from each source, a warning for each failed or slow one.

    Each branch keeps at most MAX_CHUNKS_PER_DOCUMENT chunks of a document; the branches are then interleaved
    by priority (sources.interleave says why) and near-duplicate passages dropped, before the cut to the hits the
    generator sees (docs/search.md, "Query enhancement, post-processing and reranking").
    """
    rankings: list[list[SearchHit]] = []
    failed = [branch for branch in branches if branch.get("error")]
    for branch in branches:
        names = _source_names(branch.get("source"))
        state.sources_searched.extend(n for n in names if n not in state.sources_searched)
        if branch.get("error"):
            rest = "; answered without them" if len(failed) < len(branches) else ""
            subject = f"source {names[0]} was" if len(names) == 1 else f"sources {', '.join(names)} were"
            state.warnings.append(f"{subject} unavailable ({branch['error']}){rest}")
            continue
        hits = sorted((SearchHit.model_validate(h) for h in branch.get("hits", [])), key=lambda h: h.score,
                      reverse=True)
        rankings.append(search.limit_chunks_per_document(hits, limit=MAX_CHUNKS_PER_DOCUMENT))
        state.latency_ms.update(branch.get("latency_ms", {}))
    hits = search.drop_near_duplicates(sources.interleave(rankings))
    state.hits = hits[: max(state.request.top_k * 2, 10)]
    if failed and len(failed) == len(branches):
        # Nothing to answer from, and rephrasing would not help: say so. The reply takes the clarification
        # route past generation (query.asl.json) and is audited as degraded.
        state.answer = state.clarifying_question = SOURCES_UNAVAILABLE_REPLY
        state.degraded = True
        return state
    if not state.clarifying_question and (not state.hits or max(h.score for h in state.hits) < MIN_GOOD_SCORE):
        state.clarifying_question = intents.NO_GOOD_RESULTS_QUESTION
    return state


def _source_names(source: Any) -> list[str]:
    """The source names a branch result covers: a search_plan item's, or a bare name."""
    if isinstance(source, dict):
        return [str(name) for name in source.get("sources", [])] or [str(source.get("kind", "unknown"))]
    return [str(source or "unknown")]


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
