"""The query pipeline's first steps: detect PHI, classify the intent, and plan the searches.

Sources outside the knowledge base (PubMed, web search) are SearchSource adapters from the composition root.
Planning gates them on `in_boundary`, never on their names: a source outside the boundary is searched only
with a question that was checked and carries no PHI, and never in local-only mode.
"""

from __future__ import annotations

from voiceassist import phi
from voiceassist.admin.config import merged_sources
from voiceassist.models import PhiResult, RoutingMode, SourceKind
from voiceassist.observability import logger
from voiceassist.phi.heard import WARNING as UNSURE_SPEECH_WARNING
from voiceassist.phi.heard import with_unsure_speech
from voiceassist.query import intent as intents
from voiceassist.query import ladder, planner, sources
from voiceassist.query.embedding_ahead import embed_question_ahead
from voiceassist.query.state import QueryContext, QueryState, history_text, run_config, run_detector, timed
from voiceassist.query.tool_route import route_to_tool
from voiceassist.safety.question_screen import screen_question

SKIPPED_PHI = ("{name} was not searched: the question contains patient details (PHI), and {name} is outside the "
               "PHI boundary")
SKIPPED_UNCHECKED = ("{name} was not searched: the question could not be checked for patient details (PHI), and "
                     "{name} is outside the PHI boundary")
HISTORY_PHI = ("the earlier messages contain patient details (PHI) or could not be checked; the answer stays "
               "inside the PHI boundary")
EARLIER_UNCHECKED = "the earlier messages are too long to check for patient details (PHI)"
NOT_CONFIGURED = "{name} is not configured in this deployment; searched the other sources"
OFF_LOCAL_ONLY = ("{name} was not searched: this deployment runs in local-only mode, where no question leaves the "
                  "PHI boundary; searched the other sources")


def detect_phi(ctx: QueryContext, state: QueryState) -> QueryState:
    detector = run_detector(ctx, state)  # the admin configuration's PHI mode
    with timed(state, "detect_phi"):
        state.phi = detector.detect(state.request.query)
    if state.request.phi_unsure_words and ctx.settings.voice_phi_doubt:  # a name the recognizer may have misheard
        if not state.phi.contains_phi:
            state.warnings.append(UNSURE_SPEECH_WARNING)
        state.phi = with_unsure_speech(state.phi, state.request.query, state.request.phi_unsure_words)
    if earlier := history_text(state):  # earlier messages a client sent with the question: the question's rules
        with timed(state, "detect_phi_history"):
            state.phi = _with_history(state.phi, detector.detect(earlier), state)
    if state.earlier_unchecked:
        unchecked = PhiResult(contains_phi=False, redacted_text="", error=EARLIER_UNCHECKED)
        state.phi = _with_history(state.phi, unchecked, state)
    if state.phi.error and state.phi.error != EARLIER_UNCHECKED:
        state.warnings.append("PHI detection failed; the question was treated as containing PHI")
    logger.info("phi checked", extra={"query_id": state.query_id, "phi": state.phi.contains_phi,
                                      "types": state.phi.entity_types})
    return state


def _with_history(question: PhiResult, history: PhiResult, state: QueryState) -> PhiResult:
    """PHI (or a failed check) in the earlier messages keeps the whole run inside the boundary. The entities
    stay the question's own (their offsets point into it)."""
    if not (history.contains_phi or history.error):
        return question
    state.warnings.append(HISTORY_PHI)
    return question.model_copy(update={"contains_phi": True, "error": question.error or history.error})


def classify(ctx: QueryContext, state: QueryState) -> QueryState:
    """Intent, a clarifying question when needed, and otherwise the sources to search (search_plan). A request
    the input screen flags is refused here, before any tool, source or model is chosen."""
    embed_question_ahead(ctx, state)  # the screen's text and the search's, embedded at once
    if screen_question(ctx, state):
        return state
    with timed(state, "classify"):
        result = intents.classify_intent(state.request.query)
        state.intent, state.intent_confidence = result.intent, result.confidence
        state.clarifying_question = result.clarifying_question
        route_to_tool(state)  # a calculator question goes to the calculator (query.asl.json skips the search)
        if not state.clarifying_question and not state.tool_route:
            plan_sources(ctx, state)
        state.plan = planner.plan_of(ctx.settings, state)
    return state


def plan_sources(ctx: QueryContext, state: QueryState) -> QueryState:
    """Select the sources (intent and the caller's preferences) and turn them into parallel searches.

    A question with detected PHI, or one the detector could not check, never goes to a source outside the
    boundary: a redacted clinical question still describes one patient, a missed identifier is likeliest in
    exactly those questions, and the in-boundary knowledge base answers them. The clinician sees a warning
    whenever such a source would otherwise have been searched. In local-only mode they are all off.
    """
    config = run_config(ctx, state)
    preferences = merged_sources(config, state.request.sources)  # the request's, then the deployment's
    available = {name.value for name in sources.PARTITIONS}
    local_only = config.routing_mode is RoutingMode.LOCAL_ONLY  # nothing leaves the boundary
    configured = ctx.external_sources
    for name in sources.EXTERNAL_SOURCES:
        source = configured.get(name)
        outside = source is None or not source.in_boundary
        if source is None or (outside and local_only):
            if name in preferences.prioritize:
                message = OFF_LOCAL_ONLY if source is not None else NOT_CONFIGURED
                state.warnings.append(message.format(name=_title(name)))
        elif not outside or phi.egress_decision(state.request.query, checked=state.phi).allowed:
            available.add(name)
        elif any(s.name == name for s in sources.select_sources(state.intent, preferences, available | {name})):
            message = SKIPPED_UNCHECKED if state.phi is None or state.phi.error else SKIPPED_PHI
            state.warnings.append(message.format(name=_title(name)))
    selected = [s.model_copy(update={"timeout_seconds": configured[s.name].budget_seconds})
                if s.kind is SourceKind.EXTERNAL else s
                for s in sources.select_sources(state.intent, preferences, available)]
    state.search_plan = sources.search_branches(selected, source_types=state.request.filters.source_types)
    state.fallback_pubmed = ladder.pubmed_fallback(state, available, configured)  # the ladder's last step
    if any(s.kind is SourceKind.KNOWLEDGE_BASE for s in selected) and not any(
            b.kind is SourceKind.KNOWLEDGE_BASE for b in state.search_plan):
        state.warnings.append("the source_types filter excludes every selected knowledge-base source ("
                              + ", ".join(s.name for s in selected if s.kind is SourceKind.KNOWLEDGE_BASE) + ")")
    return state


def _title(name: str) -> str:
    return sources.TITLES.get(name, name)
