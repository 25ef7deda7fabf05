"""The admin's session trace (telemetry/trace.py) from audit records: a tool call's record names its session, so
two sessions of one user asking at the same moment keep their own tool calls; records audited before the session
was kept on a tool call fall back to the user's next question, and the trace says so."""

from __future__ import annotations

from datetime import datetime, timedelta

from voiceassist.models import AuditOutcome, AuditRecord, Session, utc_now
from voiceassist.telemetry.trace import ATTRIBUTION, LEGACY_ATTRIBUTION, session_trace

USER = "clinician-1"
START = utc_now()


class ListedAudit:
    def __init__(self, records: list[AuditRecord]) -> None:
        self.records = records

    def list(self, *, user_id: str | None = None, limit: int = 100) -> list[AuditRecord]:
        return [r for r in self.records if r.user_id == user_id][:limit]


class OneUserSessions:
    def get(self, session_id: str) -> Session:
        return Session(session_id=session_id, user_id=USER)


def _at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def question(session_id: str, seconds: float) -> AuditRecord:
    return AuditRecord(user_id=USER, session_id=session_id, query_redacted="metformin dose?", intent="dosing",
                       model="gpt-4o-mini", outcome=AuditOutcome.ANSWERED, created_at=_at(seconds),
                       latency_ms={"detect_phi": 10.0})


def tool_call(name: str, session_id: str | None, seconds: float) -> AuditRecord:
    return AuditRecord(user_id=USER, session_id=session_id, query_redacted=f"{name} {{}}", intent="tool",
                       model="model", tool=name, tool_status=200, outcome=AuditOutcome.ANSWERED,
                       created_at=_at(seconds), latency_ms={"tool": 5.0})


def test_session_trace_gives_each_session_its_own_tool_calls_when_they_interleave() -> None:
    # session A's turn calls a tool, session B's turn calls another and is audited first, then A's turn
    records = [tool_call("search_knowledge_base", "ses_a", 1), tool_call("calculate_medical_score", "ses_b", 2),
               question("ses_b", 3), question("ses_a", 4)]
    audit = ListedAudit(records)

    a = session_trace(audit, OneUserSessions(), "ses_a")  # type: ignore[arg-type]
    b = session_trace(audit, OneUserSessions(), "ses_b")  # type: ignore[arg-type]

    assert [[t.name for t in turn.tools] for turn in a.turns] == [["search_knowledge_base"]]
    assert [[t.name for t in turn.tools] for turn in b.turns] == [["calculate_medical_score"]]
    assert a.attribution == b.attribution == ATTRIBUTION


def test_session_trace_attributes_tool_calls_audited_without_a_session_to_the_next_question() -> None:
    records = [tool_call("search_knowledge_base", None, 1), question("ses_b", 2),
               tool_call("search_pubmed", None, 3), question("ses_a", 4)]

    trace = session_trace(ListedAudit(records), OneUserSessions(), "ses_a")  # type: ignore[arg-type]

    assert [[t.name for t in turn.tools] for turn in trace.turns] == [["search_pubmed"]]
    assert trace.attribution == LEGACY_ATTRIBUTION
