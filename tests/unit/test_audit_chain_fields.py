"""Fields AuditRecord gained after records were first chained (audit_chain.ADDED_FIELDS) are hashed only when
set: a record without them hashes exactly as the record schema before them did, so chains written before keep
verifying; a record with them has them under its hash."""

from __future__ import annotations

import hashlib
import json

from voiceassist.audit_chain import ADDED_FIELDS, digest
from voiceassist.models import AuditOutcome, AuditRecord


def _before_the_fields(record: AuditRecord) -> str:
    """The digest as written before ADDED_FIELDS existed: the canonical JSON of every other field."""
    body = {k: v for k, v in record.model_dump(mode="json", exclude={"record_hash"}).items() if k not in ADDED_FIELDS}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode("utf-8")).hexdigest()


def test_audit_digest_of_a_record_without_the_added_fields_is_unchanged() -> None:
    record = AuditRecord(audit_id="aud_1", user_id="u1", session_id="ses_1", query_redacted="metformin dose?",
                         intent="dosing", outcome=AuditOutcome.ANSWERED, latency_ms={"detect_phi": 12.5})

    assert digest(record) == _before_the_fields(record)


def test_audit_digest_covers_the_planners_action_once_set() -> None:
    record = AuditRecord(audit_id="aud_1", user_id="u1", outcome=AuditOutcome.ANSWERED, plan_action="answer",
                         plan_confidence=0.82)

    assert digest(record) != _before_the_fields(record)
    assert digest(record) != digest(record.model_copy(update={"plan_action": "clarify"}))
