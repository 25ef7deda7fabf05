"""Operators' views, admins only: the metrics of the last hour, day and month, one session's trace, and the
verification of one user's audit chain (all users' is the CLI's: it reads the whole table)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel

from routes.identity import admin, audit_accepted
from voiceassist import audit_chain
from voiceassist.composition import dependencies
from voiceassist.telemetry.report import TelemetryReport, telemetry_report
from voiceassist.telemetry.trace import SessionTrace, session_trace

router = Router()


@router.get("/admin/telemetry", summary="Counts and p50/p95 per stage over the last hour, day and month")
def get_telemetry() -> TelemetryReport:
    admin(router, "telemetry.read")
    return telemetry_report(dependencies().metric_reader)


@router.get("/admin/sessions/<session_id>/trace",
            summary="One session's turns: plan, steps and timings, sources, model and tools (PHI redacted)")
def get_session_trace(session_id: str) -> SessionTrace:
    who = admin(router, "session.trace", session_id)
    trace = session_trace(dependencies().audit, dependencies().sessions, session_id)
    audit_accepted(who, "session.trace", session_id)
    return trace


class ChainBreakView(BaseModel):
    sequence: int | None
    audit_id: str | None
    problem: str


class AuditVerification(BaseModel):
    user_id: str
    records: int
    ok: bool
    breaks: list[ChainBreakView]


@router.get("/admin/audit/verify",
            summary="Verify one user's audit hash chain (every user's: `voiceassist audit verify --aws`)")
def verify_audit(user_id: Annotated[str, Query(min_length=1, max_length=200)]) -> AuditVerification:
    who = admin(router, "audit.verify", user_id)
    report = audit_chain.verify(dependencies().audit, only=user_id)
    audit_accepted(who, "audit.verify", user_id)
    return AuditVerification(user_id=user_id, records=report.records, ok=report.ok, breaks=[
        ChainBreakView(sequence=b.sequence, audit_id=b.audit_id, problem=b.problem) for b in report.breaks])
