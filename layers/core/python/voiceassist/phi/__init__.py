"""The PHI boundary: detection (a port with a fail-closed wrapper), redaction, and the egress policy."""

from __future__ import annotations

from voiceassist.phi.detection import (
    DEFAULT_TIMEOUT_S,
    WITHHELD,
    DisabledPhiDetector,
    FailClosedDetector,
    ensure_no_phi,
    failed_result,
    redact,
)

__all__ = ["DEFAULT_TIMEOUT_S", "WITHHELD", "DisabledPhiDetector", "FailClosedDetector", "ensure_no_phi",
           "failed_result",
           "redact"]
