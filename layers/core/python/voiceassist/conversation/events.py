"""The query run's typed events: what a streaming client sees as it happens, and what REST aggregates.

An event is {"type": <type>, "data": {...}}. The steps publish `route`, `plan` and `retrieval` (and a second
`route` once a model answered) as they finish, to the run's EventTarget; the orchestrator then emits `token`,
`citations`, `critique` and `done` (the QueryResponse, exactly as POST /v1/query returns it), or `error`.

While a model generates, Generate publishes its text live as draft tokens, {"text": ..., "draft": <id>}: each
model call of the run is a new draft id (a tool round, a fallback model, a retried step or an answer the critic
withdrew starts a new draft, which replaces the one before). A draft is not the answer: the answer is checked
against its excerpts, its citations renumbered, perhaps withdrawn. The final `token`s (no "draft") are the
checked answer and replace any draft; joined, they are `done`'s answer.

No event carries the question: the steps' events hold decisions, counts, source names and document titles
from the knowledge base; the answer (tokens, done) is the clinician's own reply, as REST returns it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any, Protocol

from voiceassist.errors import VoiceAssistError
from voiceassist.models import QueryResponse
from voiceassist.observability import log_failure
from voiceassist.ports import EventPublisher
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings

EVENT_TYPES = ("route", "plan", "retrieval", "tool", "token", "citations", "critique", "done", "error")
Event = dict[str, Any]
SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
DRAFT_INTERVAL_S = 0.05  # draft tokens coalesce to at most 20 events a second per run
INTERNAL_ERROR = "the question could not be answered; quote the trace id"


class Publishing(Protocol):
    settings: Settings

    def event_publisher(self, endpoint: str | None) -> EventPublisher: ...


def event(kind: str, data: dict[str, Any]) -> Event:
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event type {kind}")
    return {"type": kind, "data": data}


def sse(item: Event) -> bytes:
    """One Server-Sent Event: `event: <type>`, `data: <json>` and a blank line."""
    return f"event: {item['type']}\ndata: {json.dumps(item['data'], default=str)}\n\n".encode()


# ---- the steps' events ---------------------------------------------------------------------------------------

def route_decision(settings: Settings, state: QueryState) -> Event:
    """After Detect PHI: where the question may go, and why."""
    failed = state.phi is None or state.phi.error is not None
    if state.phi_detected:
        reason = ("the PHI detector failed, so the question counts as containing PHI" if failed
                  else "the question contains PHI")
        reason += ": only in-boundary models and sources"
    else:
        reason = "no PHI detected: the cloud model and external sources are allowed"
    return event("route", {
        "stage": "phi", "phi_detected": state.phi_detected,
        "phi_entity_types": state.phi.entity_types if state.phi else [], "detector_failed": failed,
        "boundary": "in_boundary_only" if state.phi_detected else "cloud_allowed",
        "routing_mode": str(state.config.routing_mode if state.config else settings.routing_mode), "reason": reason,
    })


def route_model(state: QueryState) -> Event:
    """After Generate: the model that answered (or the extractive composer, which runs inside) and why."""
    if state.extractive:
        inside = True
        reason = "no language model could answer" if state.degraded else "no language model is configured"
        reason += ": the cited sentences, composed without a model"
    else:
        inside = state.phi_detected if state.model_in_boundary is None else state.model_in_boundary
        reason = "the in-boundary model" if inside else "the cloud model"
        reason += " (the question has PHI)" if state.phi_detected else " (no PHI)"
    return event("route", {"stage": "generate", "model": state.model or "none", "extractive": state.extractive,
                           "degraded": state.degraded, "in_boundary": inside, "reason": reason})


def plan(state: QueryState) -> Event:
    """After Classify: clarify, or search these sources."""
    return event("plan", {
        "intent": str(state.intent), "confidence": state.intent_confidence,
        "action": "clarify" if state.clarifying_question else "search",
        "clarifying_question": state.clarifying_question,
        "searches": [{"kind": str(b.kind), "sources": b.sources} for b in state.search_plan],
        "plan": state.plan.model_dump(mode="json") if state.plan else None,  # the planner's (query/planner.py)
    })


def retrieval(state: QueryState) -> Event:
    """After Rank: what was found where (titles from the knowledge base, never the question)."""
    documents: dict[str, dict[str, Any]] = {}
    for hit in state.hits[: state.request.top_k]:
        documents.setdefault(hit.chunk.doc_id, {"doc_id": hit.chunk.doc_id, "doc_key": hit.chunk.doc_key,
                                                "title": hit.chunk.metadata.title, "source": hit.source})
    return event("retrieval", {"sources_searched": state.sources_searched, "hits": len(state.hits),
                               "documents": list(documents.values()),
                               "enough_evidence": bool(state.hits),
                               # the retrieval ladder (query/ladder.py): this step, and every step so far
                               "step": state.ladder.step, "search_again": state.search_again,
                               "tried": [a.model_dump(mode="json") for a in state.ladder.tried]})


def tools(state: QueryState) -> list[Event]:
    """After Generate: the tool results it folded in since the last events (each once), then the calls it
    asks the "Run Tools" Map to make. Argument values stay out; a result is what the clinician's answer shows."""
    items = []
    for exchange in state.tool_history[state.tool_events_sent:]:
        result = exchange.result
        items.append(event("tool", {
            "phase": "result", "call_id": exchange.call.call_id, "name": result.name, "ok": result.ok,
            "status": result.status, "error": result.error, "content": result.content, "data": result.data,
            "pending_action": result.pending_action.model_dump(mode="json") if result.pending_action else None,
            "retry_after": result.retry_after}))
    state.tool_events_sent = len(state.tool_history)
    if state.tool_calls_pending:
        items.extend(event("tool", {"phase": "call", "call_id": call.call_id, "name": call.name,
                                    "arguments": sorted(call.arguments)}) for call in state.tool_calls)
    return items


STEP_EVENTS = {
    "detect_phi": lambda settings, state: [route_decision(settings, state)],
    "classify": lambda settings, state: [plan(state)],
    "rank": lambda settings, state: [retrieval(state)],
    "generate": lambda settings, state: [*tools(state), *([] if state.tool_calls_pending else [route_model(state)])],
}


def after_step(deps: Publishing, step: str, state: QueryState) -> None:
    """Publish a step's events to the run's target, if it streams. A lost event never fails the query."""
    if state.stream is None:
        return
    publisher = deps.event_publisher(state.stream.endpoint)
    for item in STEP_EVENTS[step](deps.settings, state):
        try:
            publisher.publish(state.stream.connection_id, item)
        except Exception as exc:  # a gone connection or a throttled API: the answer still completes
            log_failure("could not publish a query event", exc, step=step)
            return


class DraftPublisher:
    """A streaming model's text to the run's target as draft `token` events, coalesced: at most one event per
    `interval_s` (the first piece of each draft at once), so a WebSocket gets a few posts a second, not one
    per token. `close` sends what is left. A failed publish stops the drafts (the connection is gone or
    throttled): the answer still completes and its final events still try."""

    def __init__(self, publisher: EventPublisher, connection_id: str, *, interval_s: float = DRAFT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.publisher, self.connection_id = publisher, connection_id
        self.interval_s, self.clock = interval_s, clock
        self._draft, self._pending, self._sent_at = "", "", float("-inf")
        self._broken = False

    def __call__(self, draft: str, text: str) -> None:
        if draft != self._draft:
            self.close()
            self._draft, self._sent_at = draft, float("-inf")
        self._pending += text
        if self.clock() - self._sent_at >= self.interval_s:
            self.close()

    def close(self) -> None:
        """Publish the text not yet sent."""
        if not self._pending or self._broken:
            return
        item = event("token", {"text": self._pending, "draft": self._draft})
        self._pending, self._sent_at = "", self.clock()
        try:
            self.publisher.publish(self.connection_id, item)
        except Exception as exc:  # a gone connection or a throttled API: the answer still completes
            self._broken = True
            log_failure("could not publish a draft token", exc)


def drafts(deps: Publishing, state: QueryState) -> DraftPublisher | None:
    """Where Generate sends a streaming model's text: the run's target, if a client streams it."""
    if state.stream is None:
        return None
    return DraftPublisher(deps.event_publisher(state.stream.endpoint), state.stream.connection_id)


# ---- the run's final events -------------------------------------------------------------------------------

def tokens(text: str) -> list[str]:
    """The answer in word pieces; joined they are the answer exactly."""
    return re.findall(r"\S+\s*|\s+", text)


def critique(response: QueryResponse) -> Event:
    """The grounding check of the final answer: how many of its sentences cite an excerpt."""
    sentences = [s.strip() for s in SENTENCE.findall(response.answer) if s.strip()]
    cited = [s for s in sentences if re.search(r"\[\d+\]", s)]
    return event("critique", {
        "grounded": bool(response.citations), "sentences": len(sentences), "cited_sentences": len(cited),
        "clarifying": response.clarifying_question is not None, "extractive": response.metadata.extractive,
        "degraded": response.metadata.degraded, "warnings": response.metadata.warnings,
        "grounding": response.metadata.grounding,  # the critic's verdicts (query/critic.py), in order
        "critic": [c.model_dump(mode="json") for c in chosen.critiques] if (chosen := response.metadata.plan) else [],
    })


def final(response: QueryResponse) -> list[Event]:
    body = response.model_dump(mode="json")
    return [*(event("token", {"text": piece}) for piece in tokens(response.answer)),
            event("citations", {"citations": body["citations"]}), critique(response), event("done", body)]


def error(exc: Exception, trace_id: str | None) -> Event:
    if isinstance(exc, VoiceAssistError) and exc.status_code < 500:
        code, message = exc.code, str(exc)
    else:
        code = exc.code if isinstance(exc, VoiceAssistError) else "internal_error"
        message = INTERNAL_ERROR
    return event("error", {"error": {"code": code, "message": message}, "trace_id": trace_id})
