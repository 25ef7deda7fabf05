"""The PHI boundary: detection (a port with a fail-closed wrapper), redaction, and the egress policy."""

from __future__ import annotations

from voiceassist.phi.detection import (
    DEFAULT_TIMEOUT_S,
    WITHHELD,
    DisabledPhiDetector,
    FailClosedDetector,
    failed_result,
    redact,
)
from voiceassist.phi.policy import EgressDecision, egress_decision, ensure_may_leave, ensure_no_phi

__all__ = ["DEFAULT_TIMEOUT_S", "WITHHELD", "DisabledPhiDetector", "EgressDecision", "FailClosedDetector",
           "egress_decision", "ensure_may_leave", "ensure_no_phi", "failed_result", "redact"]
