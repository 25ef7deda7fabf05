"""Generate and assemble the answer: the query pipeline's last stages as plain functions.

The state machine runs `generate` once per tier: "primary" (cloud for PHI-free questions, the in-boundary
model for PHI), then on failure "fallback", then "extractive" (degraded mode: cited sentences, no model).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from voiceassist import phi
from voiceassist.errors import ModelUnavailable, NotFound, StoreUnavailable
from voiceassist.models import AnswerStatus, ChatCompletion, ChatMessage, Message, Session, ToolDefinition, new_id
from voiceassist.observability import log_failure
from voiceassist.ports import ChatModel, StreamingChatModel, ToolCallingChatModel
from voiceassist.query import (
    abstention,
    citations,
    critic,
    extractive,
    generation,
    grounding,
    model_plan,
    routing,
    terms,
)
from voiceassist.query.circuit_breaker import BreakerRegistry
from voiceassist.query.state import QueryContext, QueryState, run_config, run_detector, timed

EXTRACTIVE_MODEL = "extractive"
DEGRADED_WARNING = ("No language model could answer, so this is an extractive answer: the most relevant "
                    "sentences of the cited excerpts, quoted as they are (degraded mode).")
HISTORY_MESSAGES = 6
UNGROUNDED_REPLY = ("The answer could not be checked against the knowledge base's passages, so it is withheld. "
                    "Try rephrasing the question.")
FALLBACK_WARNING = "The preferred language model was unavailable; {model} answered."  # as routing words it
# Receives a model's answer as it is generated, while a client streams the run: (the draft's id, the text).
DraftSink = Callable[[str, str], None]
NOT_SAVED_WARNING = "the session store was unavailable; this exchange was not saved"
UNREAD_WARNING = "the session could not be read; answered without its context and earlier turns"


def _excerpts(state: QueryState) -> list[generation.Excerpt]:
    return generation.number_excerpts(state.hits[: state.request.top_k])


def _session(ctx: QueryContext, state: QueryState) -> tuple[Session | None, list[Message]]:
    if not state.request.session_id:
        return None, []
    try:
        session = ctx.sessions.get(state.request.session_id)
        return session, ctx.sessions.messages(session.session_id, limit=HISTORY_MESSAGES)
    except NotFound:
        state.warnings.append("the session has expired; answered without its context")
        return None, []
    except StoreUnavailable as exc:  # the answer matters more than the session's context: say it is missing
        log_failure("could not read the session", exc)
        if UNREAD_WARNING not in state.warnings:
            state.warnings.append(UNREAD_WARNING)
        return None, []


@dataclass(frozen=True)
class ToolTurn:
    """The tool loop's part of a Generate turn (query/tool_loop.py): the tools offered now (none past the
    limits), and the earlier rounds as OpenAI messages, in full and with PHI-carrying results withheld (for a
    model outside the boundary, which only a redacted plan reaches)."""

    tools: tuple[ToolDefinition, ...] = ()
    transcript: tuple[ChatMessage, ...] = ()
    withheld: tuple[ChatMessage, ...] = ()
    egress_text: str = ""  # what the rounds add that did not come from the knowledge base (arguments, results)
    withheld_egress_text: str = ""


def turn_has_phi(state: QueryState) -> bool:
    """PHI in the question, or in a tool result of this turn: either keeps the turn inside the boundary."""
    return state.phi_detected or any(exchange.result.carries_phi for exchange in state.tool_history)


def tier_plan(ctx: QueryContext, state: QueryState, tier: str) -> routing.RoutePlan:
    return model_plan.plan_for(ctx, state, turn_has_phi(state)).tier(tier)


def tool_model(ctx: QueryContext, state: QueryState, tier: str) -> ToolCallingChatModel | None:
    """The tier's model when it may be offered tools: tools are on (Settings.offer_tools), the model takes them,
    and the plan is not redacted (cloud-only with PHI: the model outside the boundary gets the redacted question
    only, never tools)."""
    if tier == "extractive" or not run_config(ctx, state).offer_tools:
        return None
    plan = tier_plan(ctx, state, tier)
    model = plan.models[0] if plan.models else None
    return model if isinstance(model, ToolCallingChatModel) and not plan.redacted else None


def generate(ctx: QueryContext, state: QueryState, *, tier: str, tools: ToolTurn | None = None,
             on_draft: DraftSink | None = None) -> QueryState:
    """Answer with the tier's model; raises ModelUnavailable so the state machine moves to the next tier.

    With `tools`, a model that takes tool calls is offered them and may answer with calls instead
    (`state.tool_calls`, for the tool loop to limit and issue); any other model answers from the excerpts,
    where the tools' sources already are. With `on_draft` (a client streams the run), a model that streams
    sends its text there as it is generated, each model call a new draft: the answer is still checked,
    renumbered and perhaps withdrawn afterwards, exactly as without streaming."""
    tools = tools or ToolTurn()
    with timed(state, f"generate_{tier}"):
        cloud, local = ctx.cloud_chat, ctx.local_chat
        if tier == "extractive" or (cloud is None and local is None):
            capped = model_plan.capped_warning(ctx, state, turn_has_phi(state)) if cloud is not None else None
            if capped and capped not in state.warnings:  # the cost limit, not an outage, left no model
                state.warnings.append(capped)
            return _extractive(state, degraded=tier == "extractive")
        plan = model_plan.plan_for(ctx, state, turn_has_phi(state))
        tier_models = plan.tier(tier)
        session, history = _session(ctx, state)
        question = state.safe_text if plan.redacted else state.request.query
        context = session.clinical_context if session else None
        memory = state.memory  # the facts and summary of the conversation so far
        if plan.redacted:
            context = run_detector(ctx, state).detect(context).redacted_text if context else None
            memory = run_detector(ctx, state).detect(memory).redacted_text if memory else None
        prompt = generation.build_prompt(question, _excerpts(state), clinical_context=context, history=history,
                                         memory=memory)
        # The egress guard re-checks what came from the user (question, context, memory, history) and what the tool
        # rounds added. The excerpts come from the curated knowledge base: author names and study dates there
        # are not PHI.
        rounds_text = tools.withheld_egress_text if plan.redacted else tools.egress_text
        user_text = "\n".join(part for part in [question, context, memory, *(m.content for m in history), rounds_text]
                              if part)
        # Detect PHI's result counts for exactly the text it checked (phi/policy.py): a question asked alone is
        # not detected twice. A redacted question is new text, and is detected.
        checked = None if plan.redacted else state.phi
        rounds = list(tools.withheld if plan.redacted else tools.transcript)
        offered = [] if plan.redacted else list(tools.tools)

        def complete(model: ChatModel) -> ChatCompletion:
            tool_turn = isinstance(model, ToolCallingChatModel) and bool(offered or rounds)
            messages = [*prompt.messages, *rounds] if tool_turn else list(prompt.messages)
            if on_draft is not None and isinstance(model, StreamingChatModel):
                draft = new_id("drf")  # unique: a retried step (its state discarded) starts a new draft too
                return model.stream_completion(messages, offered if tool_turn else (),
                                               on_text=lambda text: on_draft(draft, text))
            if tool_turn and isinstance(model, ToolCallingChatModel):
                return model.complete_with_tools(messages, offered)
            return model.complete(messages)

        try:
            result = routing.complete_with_fallbacks(
                tier_models, prompt.messages, complete, breakers=BreakerRegistry(ctx.state),
                retries=0,  # the state machine retries the primary tier once
                egress_check=lambda _payload: phi.ensure_may_leave(user_text, detector=run_detector(ctx, state),
                                                                  checked=checked))
        except routing.NoModelAvailable as exc:
            if tier == "primary" and _transient(exc):
                # query.asl.json retries on "ModelUnavailable", the error name Step Functions matches exactly;
                # an open circuit or a refused egress would fail the same way again, so those stay unretried.
                raise ModelUnavailable(str(exc)) from exc
            raise
    state.answer, state.model, state.tool_calls = result.text, result.model, result.tool_calls
    state.model_in_boundary = next((a.in_boundary for a in reversed(result.attempts) if a.ok), None)
    state.usage.prompt_tokens += result.usage.prompt_tokens
    state.usage.completion_tokens += result.usage.completion_tokens
    state.usage.cost_usd = round(state.usage.cost_usd + result.usage.cost_usd, 8)
    model_plan.record_call(ctx, state, result)
    state.extractive = False
    warnings = [*plan.warnings, *result.warnings]
    if tier == "fallback":
        warnings.append(FALLBACK_WARNING.format(model=result.model))
    if prompt.dropped_excerpts:
        warnings.append(f"{prompt.dropped_excerpts} lower-ranked excerpts did not fit the model's budget")
    state.warnings.extend(w for w in warnings if w not in state.warnings)
    return state


def _transient(exc: routing.NoModelAvailable) -> bool:
    return any(attempt.error == ModelUnavailable.__name__ for attempt in exc.attempts)


def _extractive(state: QueryState, *, degraded: bool) -> QueryState:
    state.answer = extractive.compose_extractive(state.request.query, _excerpts(state))
    state.model, state.extractive, state.degraded = EXTRACTIVE_MODEL, True, degraded
    if state.answer == extractive.EXTRACTIVE_LABEL + extractive.NO_ANSWER:
        state.answer_status = AnswerStatus.NO_EVIDENCE  # no quotable sentence (or only flagged excerpts)
    if degraded and DEGRADED_WARNING not in state.warnings:
        state.warnings.append(DEGRADED_WARNING)
    return state


def assemble(ctx: QueryContext, state: QueryState) -> QueryState:
    """Keep the citations the answer uses (renumbered 1..k); drop and flag those that point at nothing."""
    with timed(state, "assemble"):
        excerpts = _excerpts(state)
        cited = citations.parse_citations(state.answer or "", len(excerpts))
        if cited.invalid:
            state.warnings.append("removed citations that pointed at no excerpt: "
                                  + ", ".join(f"[{n}]" for n in cited.invalid))
        if state.answer and state.answer_status is None:
            with timed(state, "grounding"):
                cited = _grounded(state, cited, excerpts)
        renumbered = citations.renumber(cited)
        state.answer = renumbered.text
        state.citations = citations.citations_for(renumbered, excerpts)
        state.population_conflict = abstention.cited_population_conflict(
            state, [e for e in excerpts if e.number in set(renumbered.sources)])
        if critic.review(ctx.settings, state):  # withdrawn: searched again one step down the ladder
            return state
        if state.answer and not state.citations and not state.extractive:
            state.warnings.append("the answer cites no excerpt of the knowledge base; verify it independently")
        _remember(ctx, state)
    return state


def _grounded(state: QueryState, cited: citations.CitedAnswer, excerpts: list[generation.Excerpt]
              ) -> citations.CitedAnswer:
    """The critic: keep what the cited excerpts support (query/grounding.py), and say what was removed."""
    label = extractive.EXTRACTIVE_LABEL if cited.text.startswith(extractive.EXTRACTIVE_LABEL) else ""
    checked = grounding.check(cited.text[len(label):], excerpts, given=_given(state))
    state.grounding = checked.share
    if checked.removed_citations:
        state.warnings.append("removed citations whose excerpt does not support the sentence: "
                              + ", ".join(f"[{n}]" for n in checked.removed_citations))
    if checked.removed_sentences:
        state.warnings.append(f"removed {checked.removed_sentences} sentence(s) that no cited excerpt supports")
    state.warnings.extend(checked.dose_warnings)  # a dose, frequency or route its excerpt does not state
    state.dose_mismatches = len(checked.dose_warnings)
    if not checked.text:
        state.answer_status = AnswerStatus.NO_EVIDENCE
        return citations.parse_citations(UNGROUNDED_REPLY, 0)
    used = {n for sentence in checked.sentences if sentence.kept for n in sentence.supporting}
    missing = abstention.missing_topics(state, [e for e in excerpts if e.number in used])
    if missing:
        state.warnings.append(f"no cited passage mentions {missing}: that part of the question has no evidence")
    return citations.parse_citations(label + checked.text, len(excerpts))


def _given(state: QueryState) -> frozenset[str]:
    """What the question states about the case (its numbers, the PHI it names): an answer may repeat it."""
    query = state.request.query
    if state.phi is None or state.phi.error is not None:  # unchecked: whatever looks like a name or an id
        phi_values = abstention.identifiers_in(query)
    else:
        phi_values = " ".join(query[e.start:e.end] for e in state.phi.entities)
    return frozenset(grounding.numbers_of(query)) | terms.content_terms(phi_values) | grounding.numbers_of(
        phi_values)


def _remember(ctx: QueryContext, state: QueryState) -> None:
    """Add the exchange to the session, redacted: raw PHI never reaches a store."""
    if not state.request.session_id or not state.answer:
        return
    answer = _without_question_phi(run_detector(ctx, state).detect(state.answer).redacted_text, state)
    try:
        ctx.sessions.add_message(Message(session_id=state.request.session_id, role="user", content=state.safe_text))
        ctx.sessions.add_message(Message(session_id=state.request.session_id, role="assistant", content=answer))
    except NotFound:
        state.warnings.append("the session has expired; this exchange was not saved")
    except StoreUnavailable as exc:  # the answer is given; only the session's history misses this turn
        log_failure("could not save the exchange to the session", exc)
        state.warnings.append(NOT_SAVED_WARNING)


def _without_question_phi(text: str, state: QueryState) -> str:
    """Hide every PHI value found in the question wherever the answer repeats it, and each part of a name.

    Models echo the patient without the cues the detector relies on ("Smith's eGFR", "(4417823)"); stored
    answers become the history a later PHI-free question sends to the cloud model.
    """
    for entity in state.phi.entities if state.phi else ():
        value = state.request.query[entity.start:entity.end]
        parts = {value, *value.split()} if entity.entity_type == "PERSON" else {value}
        for part in sorted((p.strip(".,;:") for p in parts), key=len, reverse=True):
            if len(part) >= 2:
                text = re.sub(rf"(?<!\w){re.escape(part)}(?!\w)", f"<{entity.entity_type}>", text,
                              flags=re.IGNORECASE)
    return text
