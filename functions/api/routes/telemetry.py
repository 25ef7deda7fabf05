"""Operators' views, admins only: the metrics of the last hour, day and month, and one session's trace."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from routes.identity import admin, audit_accepted
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
