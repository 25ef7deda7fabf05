"""Search the planned sources (each an iteration of the "Search Sources" Map) and merge their hits."""

from __future__ import annotations

import time
from typing import Any

from voiceassist import phi
from voiceassist.errors import DependencyError, InvalidInput, NotFound, StoreUnavailable
from voiceassist.models import (
    AnswerStatus,
    FusionMethod,
    RoutingMode,
    SearchBranch,
    SearchFilters,
    SearchHit,
    SearchMode,
    SearchQuery,
    SourceKind,
    SourceType,
)
from voiceassist.observability import log_failure, stage_span
from voiceassist.query import abstention, embedding_ahead, ladder, misheard, planner, read_ahead, search, sources
from voiceassist.query import intent as intents
from voiceassist.query.expansion import expand_query
from voiceassist.query.state import (
    QueryContext,
    QueryState,
    history_text,
    record_latency,
    run_config,
    run_detector,
    timed,
)

# A hit scoring below this (min-max fused, 0..1) is not "a good result" for the clarification rule.
MIN_GOOD_SCORE = 0.05
SEARCH_CANDIDATES = 100
# Several chunks of one document must not crowd out the others (docs/benchmarks.md, "Retrieval quality"), but
# one is too few: the passage that answers ("first-line treatment is amoxicillin", page 2) is often not the
# document's best-scoring chunk (its overview, page 1). Three keeps both and still leaves room for others.
MAX_CHUNKS_PER_DOCUMENT = 3
EMBEDDER_FAILED = "the embedding model failed; the knowledge base was searched by keywords only"
SOURCES_UNAVAILABLE_REPLY = ("The knowledge base could not be searched just now, so there is no cited answer "
                             "to give. Please ask again in a minute.")


def search_source(ctx: QueryContext, state: QueryState, source: SearchBranch | str) -> list[SearchHit]:
    """One parallel search branch: an item of state.search_plan ("knowledge_base" alone: the whole index)."""
    if source == SourceKind.KNOWLEDGE_BASE.value:
        return search_knowledge_base(ctx, state)
    if isinstance(source, str):
        raise InvalidInput(f"unknown search branch {source!r}; known: {SourceKind.KNOWLEDGE_BASE.value} or an "
                           "item of search_plan")
    if source.kind is SourceKind.EXTERNAL:
        return search_external(ctx, state, source.sources[0], deadline_s=source.budget_seconds)
    return search_knowledge_base(ctx, state, source_types=source.source_types)


def search_knowledge_base(ctx: QueryContext, state: QueryState, *, source_types: list[SourceType] | None = None
                          ) -> list[SearchHit]:
    """The knowledge base: hybrid BM25 + vector with the configured fusion, then the reranker (or the same search
    run ahead when the question arrived, query/read_ahead.py)."""
    started = time.perf_counter()
    filters, top_k, mode = knowledge_base_search_arguments(state, source_types)
    hits = read_ahead.collect(read_ahead.search_key(ctx, state.request.query, filters=filters, top_k=top_k,
                                                    mode=mode))
    if hits is None:
        try:
            query = knowledge_base_query(ctx, state.request.query, top_k=top_k, filters=filters, mode=mode)
        except Exception as exc:  # noqa: BLE001 - any embedder failure: keywords alone beat no search at all
            log_failure("the embedder failed; searching by keywords only", exc)  # its message may quote the question
            state.warnings.append(EMBEDDER_FAILED)
            query = knowledge_base_query(ctx, state.request.query, top_k=top_k, filters=filters,
                                         mode=SearchMode.BM25)
        hits = run_knowledge_base_query(ctx, query, phi_detected=state.phi_detected)
    record_latency(state, "search_knowledge_base", started)
    return hits


def knowledge_base_search_arguments(state: QueryState, source_types: list[SourceType] | None = None
                                    ) -> tuple[SearchFilters, int, SearchMode]:
    """The filters, depth and mode of the question's knowledge-base search (a branch's source types applied)."""
    filters = state.request.filters
    if source_types:
        filters = filters.model_copy(update={"source_types": source_types})
    mode = SearchMode.DENSE if state.ladder.step == ladder.DENSE else SearchMode.HYBRID  # the ladder's dense step
    return filters, max(state.request.top_k * 2, 10), mode


def search_ahead(ctx: QueryContext, state: QueryState) -> None:
    """Start the question's PHI detection in the detector's worker and its knowledge-base search on a thread.
    Without a detector that detects beside this process (no `begin`), nothing starts: the search would only
    take turns with the detection. Never raises: what fails here is done again, as always, by its own step."""
    begin = getattr(run_detector(ctx, state), "begin", None)
    if not callable(begin):
        return
    try:
        begin(state.request.query)
        if earlier := history_text(state):
            begin(earlier)
    except Exception as exc:  # noqa: BLE001 - Detect PHI asks again and fails closed itself
        log_failure("PHI detection could not start ahead", exc)
        return
    if not (ctx.embedder.in_boundary and ctx.reranker.in_boundary):
        return
    filters, top_k, mode = knowledge_base_search_arguments(state)
    key = read_ahead.search_key(ctx, state.request.query, filters=filters, top_k=top_k, mode=mode)
    read_ahead.start(key, lambda: searched_ahead(ctx, state.request.query, filters=filters, top_k=top_k, mode=mode))
    embedding_ahead.embed_screen_text_ahead(ctx, state)  # beside the search ahead, which embeds its own text


def searched_ahead(ctx: QueryContext, question: str, *, filters: SearchFilters, top_k: int, mode: SearchMode
                   ) -> list[SearchHit]:
    """The search Search One Source would run, run ahead (query/read_ahead.py: only with an embedder and a
    reranker inside the boundary, so it is the search a question with PHI gets). An embedder failure raises:
    the step then searches itself and says so."""
    started = time.perf_counter()
    query = knowledge_base_query(ctx, question, top_k=top_k, filters=filters, mode=mode)
    hits = run_knowledge_base_query(ctx, query, phi_detected=True)
    stage_span("search_knowledge_base_ahead", started, time.perf_counter())
    return hits


def knowledge_base_query(ctx: QueryContext, question: str, *, top_k: int, filters: SearchFilters | None = None,
                         mode: SearchMode = SearchMode.HYBRID, candidates: int = SEARCH_CANDIDATES,
                         fusion: FusionMethod | None = None, bm25_weight: float | None = None) -> SearchQuery:
    """The index request for a question (shared with `voiceassist eval retrieval`, so it measures this path).

    Known clinical abbreviations are expanded first ("AF" -> "AF (atrial fibrillation)") for both
    sub-queries: evaluated in docs/benchmarks.md, "Retrieval quality". So are clinical synonyms
    ("adrenaline (epinephrine)", query/synonyms.py). The embedder is in-boundary, so a
    question with PHI may be embedded.
    """
    text = expand_query(question)
    vector = None if mode is SearchMode.BM25 else ctx.embedder.embed([text])[0].tolist()
    return SearchQuery(
        text=text, vector=vector, top_k=top_k, mode=mode, candidates=candidates,
        fusion=fusion or ctx.settings.fusion,
        bm25_weight=ctx.settings.bm25_weight if bm25_weight is None else bm25_weight,
        filters=filters or SearchFilters(),
    )


def run_knowledge_base_query(ctx: QueryContext, query: SearchQuery, *, phi_detected: bool) -> list[SearchHit]:
    """Search the index, then rerank (a reranker outside the boundary never sees a question with PHI). A
    reranker that reads more candidates than the caller keeps (its `depth`) gets that many from the index."""
    depth = min(ctx.reranker.depth, query.candidates)
    hits = ctx.index.search(query if depth <= query.top_k else query.model_copy(update={"top_k": depth}))
    if ctx.reranker.in_boundary or not phi_detected:
        hits = ctx.reranker.rerank(query.text, hits, top_k=query.top_k)
    return hits[: query.top_k]


def search_external(ctx: QueryContext, state: QueryState, name: str, *, deadline_s: float) -> list[SearchHit]:
    """A source outside the knowledge base. One outside the boundary gets the question only when it was
    checked and carries no PHI (plan_sources skips it otherwise; the egress policy is the last line). The
    query_retrieve function ships without the PHI detector, so the policy reuses Detect PHI's result for this
    exact text rather than running it again."""
    source = ctx.external_sources.get(name)
    if source is None:
        raise DependencyError(f"{sources.TITLES.get(name, name)} is not configured in this deployment")
    if not source.in_boundary:
        phi.ensure_may_leave(state.request.query, checked=state.phi,
                             local_only=run_config(ctx, state).routing_mode is RoutingMode.LOCAL_ONLY)
    started = time.perf_counter()
    hits = source.search(state.request.query, top_k=state.request.top_k, deadline_s=deadline_s)
    record_latency(state, f"search_{name}", started)
    return hits


def merge_search_results(ctx: QueryContext, state: QueryState, branches: list[dict[str, Any]]) -> QueryState:
    """Collect the parallel branches: hits from each source, a warning for each failed or slow one.

    Each branch ranks at most MAX_CHUNKS_PER_DOCUMENT chunks of a document first (the rest after all of
    those); the branches are then interleaved
    by priority (sources.interleave says why) and near-duplicate passages dropped, before the cut to the hits the
    generator sees (docs/search.md, "Query enhancement, post-processing and reranking").
    """
    state.search_again = False
    rankings: list[list[SearchHit]] = []
    deferred: list[SearchHit] = []
    failed = [branch for branch in branches if branch.get("error")]
    for branch in branches:
        names = _source_names(branch.get("source"))
        state.sources_searched.extend(n for n in names if n not in state.sources_searched)
        if branch.get("error"):
            state.unavailable_sources.extend(n for n in names if n not in state.unavailable_sources)
            rest = "; answered without them" if len(failed) < len(branches) else ""
            subject = f"source {names[0]} was" if len(names) == 1 else f"sources {', '.join(names)} were"
            state.warnings.append(f"{subject} unavailable ({branch['error']}){rest}")
            continue
        hits = sorted((SearchHit.model_validate(h) for h in branch.get("hits", [])), key=lambda h: h.score,
                      reverse=True)
        limited = search.limit_chunks_per_document(hits, limit=MAX_CHUNKS_PER_DOCUMENT)
        rankings.append(limited)
        kept_ids = {id(hit) for hit in limited}
        deferred.extend(hit for hit in hits if id(hit) not in kept_ids)
        state.latency_ms.update(branch.get("latency_ms", {}))
        state.warnings.extend(w for w in branch.get("warnings", []) if w not in state.warnings)
    # A document's further chunks are deferred, not dropped: they fill the slots no other document needs (the
    # dosing section of a drug reference whose renal and adverse-effects sections ranked higher).
    deferred.sort(key=lambda hit: hit.score, reverse=True)
    hits = search.drop_near_duplicates(sources.interleave(rankings) + deferred)
    state.hits = hits[: max(state.request.top_k * 2, 10)]
    first_step = state.ladder.step == ladder.HYBRID  # later steps (query/ladder.py) end in an answer or no evidence
    if failed and len(failed) == len(branches) and first_step:
        # Nothing to answer from, and rephrasing would not help: say so. The reply takes the clarification
        # route past generation (query.asl.json) and is audited as degraded.
        state.answer = state.clarifying_question = SOURCES_UNAVAILABLE_REPLY
        state.degraded = True
        state.answer_status = AnswerStatus.NO_EVIDENCE
        return _planned(ctx, state)
    if first_step and not state.clarifying_question and (
            not state.hits or max(h.score for h in state.hits) < MIN_GOOD_SCORE):
        state.clarifying_question = intents.NO_GOOD_RESULTS_QUESTION
    if not state.clarifying_question:
        with timed(state, "evidence"):
            state = judge_evidence(ctx, state, ctx.settings.evidence_threshold)
        state = ladder.after_evidence(ctx.settings, state, lambda s, t: judge_evidence(ctx, s, t))
    return _planned(ctx, state)


def judge_evidence(ctx: QueryContext, state: QueryState, threshold: float) -> QueryState:
    """Keep the documents with a passage that answers at `threshold`, or abstain (query/abstention.py)."""
    previous = _previous_question(ctx, state) if abstention.needs_topic(state) else ""
    abstention.keep_supported_hits(state, threshold=threshold, previous_question=previous)
    if state.answer_status is AnswerStatus.NO_EVIDENCE and not previous:
        state = abstention.in_conversation_topic(state, threshold=threshold,
                                                 previous_question=_previous_question(ctx, state))
    return misheard.judged_without_misheard(state, threshold=threshold, previous_question=previous)


def _planned(ctx: QueryContext, state: QueryState) -> QueryState:
    state.warnings_after_rank = len(state.warnings)
    state.plan = planner.plan_of(ctx.settings, state)
    return state


def _source_names(source: Any) -> list[str]:
    """The source names a branch result covers: a search_plan item's, or a bare name."""
    if isinstance(source, dict):
        return [str(name) for name in source.get("sources", [])] or [str(source.get("kind", "unknown"))]
    return [str(source or "unknown")]


def _previous_question(ctx: QueryContext, state: QueryState) -> str:
    """The session's last question (stored redacted); without a session, the last user message a chat client
    sent with the question, when it was checked and holds no PHI; else ""."""
    if not state.request.session_id:
        checked = state.phi is not None and state.phi.error is None and not state.phi_detected
        asked = [line.removeprefix("user: ") for line in state.history if line.startswith("user: ")]
        return asked[-1] if checked and asked else ""
    try:
        turns = ctx.sessions.messages(state.request.session_id, limit=abstention.HISTORY_MESSAGES)
    except (NotFound, StoreUnavailable):  # Generate says when the session could not be read
        return ""
    return next((m.content for m in reversed(turns) if m.role == "user"), "")
