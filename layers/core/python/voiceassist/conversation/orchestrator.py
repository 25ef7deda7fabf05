"""One orchestrator for every way of asking: REST, Server-Sent Events, WebSocket, chat completions.

`run` resolves a follow-up against its history (conversation.context), executes the query pipeline (the same
state machine everywhere) with an optional EventTarget, so its steps publish their events as they finish, then
emits the final events through `emit`. REST is `respond`: the same run, its events aggregated into the `done`
event's QueryResponse. Sync and stream therefore share one path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from voiceassist import service
from voiceassist.conversation import budget, context, events, facts, memory
from voiceassist.errors import NotFound, StoreUnavailable
from voiceassist.models import Message, QueryRequest, QueryResponse, Session
from voiceassist.observability import log_failure
from voiceassist.query import generation
from voiceassist.query.answering import NOT_SAVED_WARNING
from voiceassist.query.state import EventTarget

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies

Emit = Callable[[events.Event], None]
HISTORY_MESSAGES = 6
HISTORY_TOKENS = budget.HISTORY_TOKENS  # the window of earlier turns a follow-up is resolved against
# Chat messages older than the window reach no model, search or screen (only their closed-vocabulary facts join the
# prompt), yet PHI in them keeps the run inside the boundary: they are PHI-checked up to this many characters, and
# beyond it the run counts as unchecked (fail closed) rather than sending a whole long conversation to the detector
# (a 900 KB history held the detector for 85 s) and through the workflow (Step Functions' 256 KB state).
EARLIER_CHECK_CHARS = 8000
EVIDENCE_KEY = "conversation-evidence:{session_id}"  # the last answer's cited excerpts, in the shared state
EVIDENCE_CHARS = 6000
EVIDENCE_TTL_SECONDS = 12 * 3600


def run(deps: Dependencies, request: QueryRequest, *, user_id: str, trace_id: str | None,
        emit: Emit, stream: EventTarget | None = None, history: list[context.Turn] | None = None
        ) -> QueryResponse:
    """Answer `request`, emitting token, citations, critique and done (or error, then re-raise).

    `history`: the earlier turns a client sent with it (chat messages), PHI-checked with the question; without
    it, a session's stored (redacted) messages are the history.
    """
    try:
        prepared = _prepare(deps, request, user_id, history)
        asked = request.model_copy(update={"query": budget.cut_question(prepared.resolution.query)[:4000]})
        earlier = prepared.earlier_lines()
        response = service.answer(deps, asked, user_id=user_id, trace_id=trace_id, stream=stream,
                                  history=[f"{t.role}: {t.text}" for t in prepared.window] if history else [],
                                  earlier=earlier, earlier_unchecked=earlier is None, memory=prepared.for_prompt())
        response.metadata.context = prepared.describe(asked.query, response)
        if prepared.kept and prepared.kept.summary_capped not in ("", *response.metadata.warnings):
            response.metadata.warnings.append(prepared.kept.summary_capped)  # the summary this answer read
        _remember_clarification(deps, asked, response)
        _remember_evidence(deps, asked, response)
    except Exception as exc:  # the caller maps it (REST: routes/errors.py) and logs it once
        emit(events.error(exc, trace_id))
        raise
    for item in events.final(response):
        emit(item)
    # After the answer has gone out: a summary written by a model takes seconds, which a streaming client
    # should not wait for (best effort, never raises; REST returns when it is done).
    _remember_memory(deps, asked, response, question=request.query, user_id=user_id)
    return response


def respond(deps: Dependencies, request: QueryRequest, *, user_id: str, trace_id: str | None) -> QueryResponse:
    """The synchronous answer: the run's events, aggregated (the `done` event carries the response)."""
    collected: list[events.Event] = []
    run(deps, request, user_id=user_id, trace_id=trace_id, emit=collected.append)
    done = next(item for item in reversed(collected) if item["type"] == "done")
    return QueryResponse.model_validate(done["data"])


def session_turns(deps: Dependencies, session_id: str, user_id: str) -> list[context.Turn]:
    """A session's recent messages as turns (redacted as stored); none for another user's session."""
    try:
        if deps.sessions.get(session_id).user_id != user_id:
            return []  # service.answer refuses the request
        messages = deps.sessions.messages(session_id, limit=HISTORY_MESSAGES)
    except NotFound:
        return []
    except StoreUnavailable as exc:  # the question is asked on its own; the pipeline warns (answering._session)
        log_failure("could not read the session's history", exc)
        return []
    turns = [context.Turn(m.role, m.content) for m in messages]
    if turns and turns[-1].role == "assistant":
        kept = _kept_evidence(deps, session_id)
        turns[-1] = context.Turn("assistant", turns[-1].text, evidence=kept.get("text", ""),
                                 named=tuple(kept.get("drugs", ())))
    return turns


def _kept_evidence(deps: Dependencies, session_id: str) -> dict[str, Any]:
    """The last answer's excerpts (_remember_evidence); best effort, as they are only a help to a follow-up:
    with the state store down, the follow-up is resolved without them."""
    try:
        return deps.state.get(EVIDENCE_KEY.format(session_id=session_id))[0] or {}
    except StoreUnavailable as exc:
        log_failure("could not read the last answer's evidence for a follow-up", exc)
        return {}


def window(turns: list[context.Turn], max_tokens: int = HISTORY_TOKENS,
           max_turns: int = HISTORY_MESSAGES) -> list[context.Turn]:
    """The most recent turns, at most `max_turns` (a session's window: its last 6 messages), that fit in
    `max_tokens` (tiktoken's count); the last turn always, cut to `max_tokens` when it alone is longer. A chat of
    thousands of one-word turns fit the tokens whole, and the screen and the PHI check read every one of them."""
    kept: list[context.Turn] = []
    used = 0
    for turn in reversed(turns[-max_turns:]):
        cost = generation.count_tokens(turn.text)
        if kept and used + cost > max_tokens:
            break
        if cost > max_tokens:
            turn = replace(turn, text=generation.truncate_to_tokens(turn.text, max_tokens))
        kept.append(turn)
        used += cost
    return kept[::-1]


@dataclass
class Prepared:
    """The question resolved against its context: the history window, and a session's memory (its facts and the
    summary of the turns the window no longer holds)."""

    resolution: context.Resolution
    window: list[context.Turn] = field(default_factory=list)
    kept: memory.Memory | None = None
    facts_used: list[str] = field(default_factory=list)
    turn_facts: facts.Facts = field(default_factory=facts.Facts)  # what the user's turns stated
    earlier: list[context.Turn] = field(default_factory=list)  # a chat's turns not wholly in the window

    def earlier_lines(self) -> list[str] | None:
        """The earlier turns as the PHI check reads them; None when they are too long to check."""
        lines = [f"{t.role}: {t.text}" for t in self.earlier]
        return lines if sum(len(line) for line in lines) <= EARLIER_CHECK_CHARS else None

    def for_prompt(self) -> str | None:
        """The answering model's view of the conversation beyond its history window: the facts the user's
        turns stated (closed vocabularies: no name or number) and the summary of the older turns (written from
        the stored, redacted turns)."""
        parts = []
        if stated := facts.render(self.turn_facts):
            parts.append(f"Patient facts stated: {stated}.")
        if self.kept and self.kept.summary:
            parts.append(f"Earlier turns, summarized:\n{self.kept.summary}")
        return "\n".join(parts) or None

    def describe(self, asked: str, response: QueryResponse) -> dict[str, Any]:
        """`metadata.context`, for every query: how the history shaped the question and each stage's tokens."""
        described: dict[str, Any] = self.resolution.describe() if self.resolution.rewritten else {"rewritten": False}
        if self.resolution.rewritten:
            described["standalone_query"] = asked
        kept = self.kept or memory.Memory()
        described.update({
            "history_turns": len(self.window), "from_facts": self.facts_used,
            "summary_by": kept.summary_by or None,
            "budget": budget.record(history=self.window, summary_text=kept.summary, facts_used=self.facts_used,
                                    question=asked, response=response)})
        return described


def _prepare(deps: Dependencies, request: QueryRequest, user_id: str,
             history: list[context.Turn] | None) -> Prepared:
    if history:  # a chat's messages: the facts of every user turn, also those the window cut, are read as
        # they come (closed vocabularies: no name or number becomes one) and never stored
        turns = window(history)
        resolution = context.resolve_conversation([*turns, context.Turn("user", request.query)])
        stated = facts.of_turns(history)
        resolution, used = budget.with_facts(resolution, stated)
        cut = turns[-1].text != history[-1].text  # the last turn alone was longer than the window
        return Prepared(resolution, turns, facts_used=used, turn_facts=stated,
                        earlier=history[:len(history) - len(turns) + cut])
    session = _own_session(deps, request.session_id, user_id) if request.session_id else None
    turns = window(session_turns(deps, session.session_id, user_id)) if session else []
    resolution = context.resolve(request.query, turns)
    if session is None:
        return Prepared(resolution, turns)  # no session, or not the caller's (service.answer refuses it)
    kept = memory.load(deps, session.session_id)
    resolution, used = budget.with_facts(resolution, memory.known_facts(session, kept))
    return Prepared(resolution, turns, kept, used, turn_facts=kept.facts)


def _own_session(deps: Dependencies, session_id: str, user_id: str) -> Session | None:
    try:
        session = deps.sessions.get(session_id)
    except NotFound:
        return None
    return session if session.user_id == user_id else None


def _remember_memory(deps: Dependencies, request: QueryRequest, response: QueryResponse, *, question: str,
                     user_id: str) -> None:
    """Read the question as asked into the session's facts, and the turns the window no longer holds into its
    summary (conversation/memory.py: sealed; a summary model's call billed to `user_id`)."""
    if request.session_id:
        memory.update(deps, request.session_id, user_id=user_id, question=question,
                      phi=response.metadata.phi_detected, window=window, recent=HISTORY_MESSAGES)


def _remember_clarification(deps: Dependencies, request: QueryRequest, response: QueryResponse) -> None:
    """Keep a clarifying exchange in the session, so that the reply joins it. Only a question without PHI: raw
    PHI never reaches a store, and this runs where the PHI detector may not be shipped (the API function), so a
    question with PHI (or an unchecked one) is not kept, and its reply is asked on its own."""
    if not request.session_id or not response.clarifying_question or response.metadata.phi_detected:
        return
    try:
        deps.sessions.add_message(Message(session_id=request.session_id, role="user", content=request.query))
        deps.sessions.add_message(Message(session_id=request.session_id, role="assistant",
                                          content=response.clarifying_question))
    except NotFound:
        response.metadata.warnings.append("the session has expired; this exchange was not saved")
    except StoreUnavailable as exc:
        log_failure("could not save a clarifying exchange", exc)
        response.metadata.warnings.append(NOT_SAVED_WARNING)


def _remember_evidence(deps: Dependencies, request: QueryRequest, response: QueryResponse) -> None:
    """Keep the answer's cited excerpts (knowledge-base text, not the user's) for the next follow-up ("the
    alternative" may be named only there), and the drugs the answer named that the excerpts name too (the
    stored answer is redacted). Best effort: a conflicting or failed write loses only that help."""
    if not request.session_id:
        return
    key = EVIDENCE_KEY.format(session_id=request.session_id)
    text = " ".join(c.excerpt for c in response.citations)[:EVIDENCE_CHARS]
    in_excerpts = set(context.drugs(text))  # knowledge-base words: whatever the answer echoed, these are not PHI
    named = [d for d in context.drugs(response.answer) if d in in_excerpts]
    try:
        _, version = deps.state.get(key)
        deps.state.put(key, {"text": text, "drugs": named}, expected_version=version,
                       ttl_seconds=EVIDENCE_TTL_SECONDS)
    except Exception as exc:
        log_failure("could not keep the answer's evidence for follow-ups", exc)
