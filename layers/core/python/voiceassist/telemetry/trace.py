"""An admin's trace of one session (`GET /v1/admin/sessions/{session_id}/trace`): each turn's plan (the planner's
action and confidence, the intent and the outcome), steps with their milliseconds, sources searched, model, and
the tools the model called, read from the audit log (both runtimes keep it; nothing new is stored). The audit log
holds redacted text and hashes only, so the trace carries no PHI; tool arguments are left out altogether.

A model-channel tool call's record carries the session of the turn that made it, and belongs to that session's
next question record (the turn's own: a question is audited after its tools ran). Records written before the
session was kept on a tool call belong to the same user's next question, whichever session; `attribution` says
which rule a trace used. Each turn shows the planner's last action and confidence (metadata.plan), as audited.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from voiceassist.models import AuditRecord
from voiceassist.ports import AuditLog, SessionStore

RECORDS_READ = 1000  # the owner's newest audit records searched for the session's turns
ATTRIBUTION = "tool calls are those the model made in this session's turn (the tool call's audit record names it)"
LEGACY_ATTRIBUTION = ("tool calls are those the model made in this session's turn; calls audited without a session "
                      "are those the model made for this user between the previous question and this one")


class TraceTool(BaseModel):
    name: str
    status: int | None = Field(description="200 done, 202 pending confirmation, 4xx refused, 5xx failed")
    latency_ms: float | None
    at: datetime


class TraceTurn(BaseModel):
    audit_id: str
    at: datetime
    question: str = Field(description="the question as audited: PHI replaced by its type")
    phi_detected: bool
    phi_entity_types: list[str]
    intent: str | None
    plan: str | None = Field(description="the planner's last action: answer, tool, clarify or no_evidence "
                                         "(null: audited before the plan was kept)")
    plan_confidence: float | None
    outcome: str
    model: str | None
    sources: list[str]
    steps: dict[str, float] = Field(description="milliseconds per pipeline stage (QueryState.latency_ms)")
    total_ms: float
    tools: list[TraceTool]


class SessionTrace(BaseModel):
    session_id: str
    turns: list[TraceTurn]
    attribution: str = ATTRIBUTION


def session_trace(audit: AuditLog, sessions: SessionStore, session_id: str) -> SessionTrace:
    """Raises NotFound for an unknown (or expired) session."""
    owner = sessions.get(session_id).user_id
    records = sorted(audit.list(user_id=owner, limit=RECORDS_READ), key=lambda r: (r.created_at, r.audit_id))
    turns: list[TraceTurn] = []
    ours: list[TraceTool] = []  # this session's calls since its previous question
    unsessioned: list[TraceTool] = []  # calls audited without a session, since the user's previous question
    legacy = False
    for record in records:
        if record.action is not None:
            continue
        if record.tool is not None:
            if record.model == "model" and record.session_id in (session_id, None):  # API and MCP: no turn's
                tool = TraceTool(name=record.tool, status=record.tool_status,
                                 latency_ms=record.latency_ms.get("tool"), at=record.created_at)
                (ours if record.session_id else unsessioned).append(tool)
            continue
        if record.session_id == session_id:
            legacy = legacy or bool(unsessioned)
            turns.append(_turn(record, sorted([*ours, *unsessioned], key=lambda t: t.at)))
            ours = []
        unsessioned = []
    return SessionTrace(session_id=session_id, turns=turns,
                        attribution=LEGACY_ATTRIBUTION if legacy else ATTRIBUTION)


def _turn(record: AuditRecord, tools: list[TraceTool]) -> TraceTurn:
    return TraceTurn(
        audit_id=record.audit_id, at=record.created_at, question=record.query_redacted,
        phi_detected=record.phi_detected, phi_entity_types=record.phi_entity_types, intent=record.intent,
        plan=record.plan_action, plan_confidence=record.plan_confidence, outcome=record.outcome.value,
        model=record.model, sources=record.sources, steps=record.latency_ms,
        total_ms=round(sum(record.latency_ms.values()), 2), tools=list(tools))
