"""The tools of this deployment: the calculators and the searches (one list, built once per process)."""

from __future__ import annotations

from voiceassist.tools import medical, search
from voiceassist.tools.registry import ToolRegistry


def default_registry() -> ToolRegistry:
    return ToolRegistry([medical.CALCULATE_MEDICAL_SCORE, *search.SEARCH_TOOLS])
