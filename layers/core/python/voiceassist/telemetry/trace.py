"""An admin's trace of one session (`GET /v1/admin/sessions/{session_id}/trace`): each turn's plan (the intent
and the outcome), steps with their milliseconds, sources searched, model, and the tools the model called, read
from the audit log (both runtimes keep it; nothing new is stored). The audit log holds redacted text and
hashes only, so the trace carries no PHI; tool arguments are left out altogether.

Tool calls carry no session id in the audit log: a model-channel call belongs to the turn of the same user
whose record follows it. Two sessions of one user asking at the same moment can swap tool calls; the trace
says so in `attribution`.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from voiceassist.models import AuditRecord
from voiceassist.ports import AuditLog, SessionStore

RECORDS_READ = 1000  # the owner's newest audit records searched for the session's turns
ATTRIBUTION = ("tool calls are those the model made for this user between the previous question and this one "
               "(the audit log does not record a tool call's session)")


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
    tools: list[TraceTool] = []
    for record in records:
        if record.action is not None:
            continue
        if record.tool is not None:
            if record.model == "model":  # the tool loop's calls; API and MCP calls are nobody's turn
                tools.append(TraceTool(name=record.tool, status=record.tool_status,
                                       latency_ms=record.latency_ms.get("tool"), at=record.created_at))
            continue
        if record.session_id == session_id:
            turns.append(_turn(record, tools))
        tools = []
    return SessionTrace(session_id=session_id, turns=turns)


def _turn(record: AuditRecord, tools: list[TraceTool]) -> TraceTurn:
    return TraceTurn(
        audit_id=record.audit_id, at=record.created_at, question=record.query_redacted,
        phi_detected=record.phi_detected, phi_entity_types=record.phi_entity_types, intent=record.intent,
        outcome=record.outcome.value, model=record.model, sources=record.sources, steps=record.latency_ms,
        total_ms=round(sum(record.latency_ms.values()), 2), tools=list(tools))
