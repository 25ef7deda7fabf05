"""The PHI detector a function uses, built from Settings (the Presidio adapter behind the fail-closed wrapper)."""

from __future__ import annotations

from voiceassist.phi.detection import DEFAULT_TIMEOUT_S, DisabledPhiDetector, FailClosedDetector
from voiceassist.ports import PhiDetector
from voiceassist.settings import PhiMode, Settings


def build_detector(settings: Settings, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> PhiDetector:
    """The detector a function uses: Presidio behind the fail-closed wrapper, or the disabled one (off)."""
    if settings.phi_mode is PhiMode.OFF:
        return DisabledPhiDetector()
    from voiceassist.adapters.presidio.detector import PresidioPhiDetector

    return FailClosedDetector(PresidioPhiDetector(mode=settings.phi_mode), timeout_s=timeout_s)
