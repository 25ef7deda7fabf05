"""The tools of this deployment: the calculators, the searches and the differential (one list, built once per
process), plus the workspace tools the composition root configured (composition/workspace.py)."""

from __future__ import annotations

from collections.abc import Iterable

from voiceassist.tools import differential, medical, search
from voiceassist.tools.registry import Tool, ToolRegistry


def default_registry(configured: Iterable[Tool] = ()) -> ToolRegistry:
    return ToolRegistry([medical.CALCULATE_MEDICAL_SCORE, *search.SEARCH_TOOLS,
                         differential.GENERATE_DIFFERENTIAL_DIAGNOSIS, *configured])
