"""The query's tool loop: Generate may answer with tool calls, the "Run Tools" Map runs each through the
executor (its own function, per-tool time-outs), and Generate reads the results on its next turn.

At most MAX_TOOL_CALLS calls and TOOL_BUDGET_S seconds of tools per query, counted in the state. A tool result
that carries PHI keeps the rest of the turn inside the boundary. Without a model that calls tools (the
extractive default, or a model without tool calls), a question that names a calculator is answered by the
calculator: its parameters are read from the question by rule, and missing ones are asked for.
"""

from __future__ import annotations

import math
from typing import Any

from voiceassist.models import AnswerStatus, ChatMessage, SearchHit, ToolCall, ToolDefinition, ToolExchange, ToolResult
from voiceassist.query import answering, generation
from voiceassist.query.state import QueryContext, QueryState, run_config
from voiceassist.tools.calculators.question import extract_parameters
from voiceassist.tools.calculators.registry import get_calculator
from voiceassist.tools.executor import Caller, ToolExecutor
from voiceassist.tools.registry import ToolRegistry

MAX_TOOL_CALLS = 5
TOOL_BUDGET_S = 10.0
BACKSTOP_S = 2  # the Map task's time-out is the tool's own plus this (the executor stops first)
CALCULATOR_TOOL = "calculate_medical_score"
TOOL_RESULT = AnswerStatus.TOOL_RESULT
WITHHELD = "The result holds protected health information, so it stays inside the boundary."
LIMIT_WARNING = ("The tool limit of this question was reached ({calls} calls, {seconds:g} s); {dropped} more "
                 "were not run.")
# The user's note when a tool failed (the model reads the error itself): a slow or unreachable server degrades
# the answer, it never hangs the query.
TIMEOUT_NOTE = "The tool {name} did not answer in time; the answer was composed without its result."
FAILURE_NOTE = "The tool {name} failed or could not reach its server; the answer was composed without its result."


turn_has_phi = answering.turn_has_phi


def generate(ctx: QueryContext, registry: ToolRegistry, state: QueryState, *, tier: str,
             on_draft: answering.DraftSink | None = None) -> QueryState:
    """One Generate turn of a tier: fold in the tools' results, then call tools or answer.

    Every question takes the one answer path of query/answering.py (session context, history, breakers,
    fallbacks, the PHI routing and egress guard); a model that takes tool calls is offered the tools allowed
    now. A question routed to a calculator with no such model is answered by the calculator, by rule. A model
    that streams sends its text to `on_draft` while a client streams the run (answering.generate)."""
    absorb_results(state)
    state.generation_tier, state.tool_calls, state.tool_calls_pending = tier, [], False
    if state.tool_route and answering.tool_model(ctx, state, tier) is None:
        return _answer_by_rule(state)
    config = run_config(ctx, state)
    offered = [d for d in _offered(registry, state) if config.tool(d.name).enabled] if config.offer_tools else []
    answering.generate(ctx, state, tier=tier, tools=_tool_turn(state, offered), on_draft=on_draft)
    if state.extractive:
        return state
    return _after_completion(state, registry, offered)


def absorb_results(state: QueryState) -> None:
    """The Map's output into the history: a Catch's {"call", "error"} becomes a failed result."""
    for item in state.tool_results:
        if "error" in item and "ok" not in item:
            call = ToolCall.model_validate(item["call"])
            timed_out = item["error"] == "States.Timeout"
            result = ToolResult(name=call.name, call_id=call.call_id, ok=False, status=504 if timed_out else 500,
                                error="tool_timeout" if timed_out else "tool_failed",
                                content=f"the tool {call.name} did not answer ({item['error']})",
                                latency_ms=float((call.timeout_seconds or 0) * 1000) if timed_out else 0.0)
        else:
            result = ToolResult.model_validate(item)
            call = next((c for c in state.tool_calls if c.call_id == result.call_id), ToolCall(name=result.name))
        state.tool_history.append(ToolExchange(call=call, result=result))
        _note_failure(state, result)
        state.tool_seconds_used = round(state.tool_seconds_used + result.latency_ms / 1000, 3)
        _cite(state, result.sources)
    state.tool_results = []


def _note_failure(state: QueryState, result: ToolResult) -> None:
    """A tool that timed out or failed on the server's side (5xx) leaves a note in the answer's warnings; a
    refusal (4xx: arguments, PHI, rate limit) is the model's to handle."""
    if result.ok or result.status < 500:
        return
    note = (TIMEOUT_NOTE if result.status == 504 else FAILURE_NOTE).format(name=result.name)
    if note not in state.warnings:
        state.warnings.append(note)


def run_tool(executor: ToolExecutor, state: QueryState, call: ToolCall) -> ToolResult:
    """One iteration of the "Run Tools" Map: the call through the executor, as the asking user."""
    caller = Caller(user_id=state.user_id, channel="model", turn_has_phi=turn_has_phi(state),
                    budget_seconds=max(TOOL_BUDGET_S - state.tool_seconds_used, 0.0),
                    session_id=state.request.session_id)
    return executor.execute(call, caller)


def _cite(state: QueryState, sources: list[SearchHit]) -> None:
    """Tool sources go first among the excerpts, so the answer cites them like any passage."""
    seen = {hit.chunk.chunk_id for hit in sources}
    state.hits = [*sources, *(hit for hit in state.hits if hit.chunk.chunk_id not in seen)]


def _offered(registry: ToolRegistry, state: QueryState) -> list[ToolDefinition]:
    """The tools the model may call now: none past the limits; only in-boundary ones in a turn with PHI."""
    if state.tool_calls_made >= MAX_TOOL_CALLS or state.tool_seconds_used >= TOOL_BUDGET_S:
        return []
    with_phi = turn_has_phi(state)
    return [d for d in registry.definitions(for_model=True) if d.requires_phi or not with_phi]


def _tool_turn(state: QueryState, offered: list[ToolDefinition]) -> answering.ToolTurn:
    excerpts = generation.number_excerpts(state.hits[: state.request.top_k])
    return answering.ToolTurn(tools=tuple(offered), transcript=tuple(_transcript(state, excerpts)),
                              withheld=tuple(_transcript(state, excerpts, withhold_phi=True)),
                              egress_text=_egress_text(state),
                              withheld_egress_text=_egress_text(state, withhold_phi=True))


def _egress_text(state: QueryState, *, withhold_phi: bool = False) -> str:
    """What the rounds add to a payload that the knowledge base did not write: the models' arguments, and the
    results that cite no source (a calculator's or a search's text quotes its sources). A pending action's
    reply adds only its summary: its id and expiry are ours, and a random id can look like a licence number."""
    parts: list[str] = []
    for exchange in state.tool_history:
        result = exchange.result
        if withhold_phi and result.carries_phi:
            continue
        parts.extend(str(value) for value in exchange.call.arguments.values())
        if result.pending_action is not None:
            parts.append(result.pending_action.summary)
        elif not result.sources:
            parts.append(result.content)
    return "\n".join(parts)


def _after_completion(state: QueryState, registry: ToolRegistry, offered: list[ToolDefinition]) -> QueryState:
    """Issue the calls the model asked for, within the limits; else keep its answer."""
    if state.tool_calls:
        room = MAX_TOOL_CALLS - state.tool_calls_made if offered else 0
        issued, dropped = state.tool_calls[:room], state.tool_calls[room:]
        state.tool_calls = []
        if dropped:
            state.warnings.append(LIMIT_WARNING.format(calls=MAX_TOOL_CALLS, seconds=TOOL_BUDGET_S,
                                                       dropped=len(dropped)))
        if issued:
            state.answer = None
            _issue(state, registry, issued)
            return state
    if not (state.answer or "").strip():
        state.answer = "No answer could be composed from the tools' results."
    if state.tool_history and any(e.result.ok and e.call.name == CALCULATOR_TOOL for e in state.tool_history):
        state.answer_status = TOOL_RESULT
    return state


def _issue(state: QueryState, registry: ToolRegistry, calls: list[ToolCall]) -> None:
    remaining = max(TOOL_BUDGET_S - state.tool_seconds_used, 0.0)
    for call in calls:
        own = registry.get(call.name).definition.timeout_seconds if call.name in registry else 1.0
        call.timeout_seconds = math.ceil(min(own, remaining)) + BACKSTOP_S
    state.tool_calls, state.tool_calls_pending = calls, True
    state.tool_calls_made += len(calls)


def _transcript(state: QueryState, excerpts: list[Any], *, withhold_phi: bool = False) -> list[ChatMessage]:
    """The earlier rounds in the OpenAI shape: the assistant's calls, then one tool message per result (with
    `withhold_phi`, a result that carries PHI is replaced by a note: it stays inside the boundary)."""
    number = {e.chunk.chunk_id: e.number for e in excerpts}
    messages: list[ChatMessage] = []
    for exchange in state.tool_history:
        cited = [number[h.chunk.chunk_id] for h in exchange.result.sources if h.chunk.chunk_id in number]
        cite = f" (cite as [{cited[0]}])" if cited else ""
        call, content = exchange.call, exchange.result.content + cite
        if withhold_phi and exchange.result.carries_phi:  # neither its arguments nor its result leave
            call, content = call.model_copy(update={"arguments": {}}), WITHHELD
        messages.append(ChatMessage(role="assistant", content="", tool_calls=[call]))
        messages.append(ChatMessage(role="tool", tool_call_id=call.call_id, content=content))
    return messages


def _answer_by_rule(state: QueryState) -> QueryState:
    """No model calls tools: the named calculator is called with the parameters read from the question."""
    name = state.tool_route or ""
    done = [e for e in state.tool_history if e.call.name == CALCULATOR_TOOL]
    state.model, state.extractive = answering.EXTRACTIVE_MODEL, True
    if not done:
        params, missing = extract_parameters(name, state.request.query)
        if missing:
            title = get_calculator(name).title
            state.clarifying_question = (f"To calculate {title} I still need: {', '.join(missing)}. Please give "
                                         "them in your question.")
            state.answer_status = AnswerStatus.CLARIFICATION
            return state
        _issue(state, _CALCULATOR_ONLY, [ToolCall(name=CALCULATOR_TOOL,
                                                  arguments={"calculator": name, "parameters": params})])
        return state
    result = done[-1].result
    if result.ok:
        state.answer, state.answer_status = f"{result.content} [1]", TOOL_RESULT
    else:
        state.answer = f"The calculator could not compute this: {result.content}"
        state.answer_status = AnswerStatus.TOOL_ERROR
    return state


def _calculator_registry() -> ToolRegistry:
    from voiceassist.tools.medical import CALCULATE_MEDICAL_SCORE

    return ToolRegistry([CALCULATE_MEDICAL_SCORE])


_CALCULATOR_ONLY = _calculator_registry()
