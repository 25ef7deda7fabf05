"""The tools of this deployment: the calculators, the searches and the differential (one list, built once per
process), plus the workspace tools the composition root configured (composition/workspace.py)."""

from __future__ import annotations

from collections.abc import Iterable

from voiceassist.tools import differential, medical, search
from voiceassist.tools.registry import Tool, ToolRegistry


def default_registry(configured: Iterable[Tool] = (), *, leaving_boundary: bool = True) -> ToolRegistry:
    """`leaving_boundary=False`: without the tools whose arguments leave the boundary (requires_phi false:
    search_pubmed, web_search), for a deployment whose tool functions cannot check their arguments for PHI."""
    tools = [medical.CALCULATE_MEDICAL_SCORE, *search.SEARCH_TOOLS, differential.GENERATE_DIFFERENTIAL_DIAGNOSIS,
             *configured]
    return ToolRegistry([t for t in tools if leaving_boundary or t.definition.requires_phi])
