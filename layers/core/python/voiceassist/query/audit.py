"""The query pipeline's last step: the audit record, with redacted text and a hash, never the raw question, and
the question's metrics (query/metrics.py) from the same finished state."""

from __future__ import annotations

import hashlib

from voiceassist.models import AnswerStatus, AuditOutcome, AuditRecord
from voiceassist.query.metrics import question_points
from voiceassist.query.state import QueryContext, QueryState


def audit(ctx: QueryContext, state: QueryState, *, outcome: AuditOutcome | None = None) -> QueryState:
    """Append the audit record: redacted text and a hash, never the raw question."""
    record = AuditRecord(
        user_id=state.user_id, session_id=state.request.session_id, query_redacted=state.safe_text,
        query_sha256=hashlib.sha256(state.request.query.encode("utf-8")).hexdigest(),
        phi_detected=state.phi_detected, phi_entity_types=state.phi.entity_types if state.phi else [],
        intent=f"input_screen:{state.screen_categories[0]}" if state.screen_categories else state.intent.value,
        model=state.model, sources=state.sources_searched,
        response_id=state.query_id, outcome=outcome or outcome_of(state), latency_ms=state.latency_ms,
        plan_action=state.plan.action if state.plan else None,
        plan_confidence=state.plan.confidence if state.plan else None,
    )
    ctx.audit.append(record)
    state.audit_id = record.audit_id
    ctx.metrics.record(question_points(state))  # what the record says, as the operator's metrics
    return state


def outcome_of(state: QueryState) -> AuditOutcome:
    if state.answer_status is AnswerStatus.REFUSED:
        return AuditOutcome.REFUSED
    if state.clarifying_question and not state.answer:
        return AuditOutcome.CLARIFY
    if state.degraded:
        return AuditOutcome.DEGRADED
    if state.answer_status is AnswerStatus.NO_EVIDENCE:
        return AuditOutcome.NO_EVIDENCE
    return AuditOutcome.ANSWERED if state.answer else AuditOutcome.ERROR
