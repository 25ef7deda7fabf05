"""The egress policy: the one rule that decides whether text may leave the PHI boundary.

Every point where text goes to a system outside the boundary asks it: the cloud chat model (its guard sees the
question, the clinical context and the history), an external search source such as PubMed, and any tool that
does not require PHI. The rule, in order:

1. In a local-only deployment nothing leaves.
2. A detection the caller already ran counts when it was made on this exact text (or found PHI at all).
3. Otherwise the detector runs now; with no detector at hand the text was never checked, so it stays.
4. A detection that failed counts as PHI (fail closed); a clean detection lets the text go.

The reason names entity types and failures, never the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from voiceassist.errors import PhiBoundaryViolation
from voiceassist.models import PhiResult
from voiceassist.ports import PhiDetector


@dataclass(frozen=True)
class EgressDecision:
    allowed: bool
    reason: str = ""


def egress_decision(text: str, *, detector: PhiDetector | None = None, checked: PhiResult | None = None,
                    local_only: bool = False) -> EgressDecision:
    """May `text` leave the boundary? See the module's rule; `checked` is an earlier detection to reuse."""
    if local_only:
        return EgressDecision(False, "the deployment is local-only")
    if checked is not None and (checked.contains_phi or checked.redacted_text == text):
        result = checked
    elif detector is not None:
        result = detector.detect(text)
    else:
        return EgressDecision(False, "the text was not checked for PHI")
    if result.error:
        return EgressDecision(False, f"the PHI check failed ({result.error})")
    if result.contains_phi:
        return EgressDecision(False, f"found {', '.join(result.entity_types) or 'PHI'}")
    return EgressDecision(True)


def ensure_may_leave(text: str, *, detector: PhiDetector | None = None, checked: PhiResult | None = None,
                     local_only: bool = False) -> None:
    """The egress guard: raise PhiBoundaryViolation unless egress_decision lets `text` go."""
    decision = egress_decision(text, detector=detector, checked=checked, local_only=local_only)
    if not decision.allowed:
        raise PhiBoundaryViolation(f"refused to send text outside the PHI boundary: {decision.reason}")


def ensure_no_phi(text: str, detector: PhiDetector) -> None:
    """The guard in front of a model or service outside the boundary, detecting afresh (the last line, not
    the only one: the pipeline checked the question before)."""
    ensure_may_leave(text, detector=detector)
