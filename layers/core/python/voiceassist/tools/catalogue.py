"""The tools of this deployment: the calculators, the searches and the differential (one list, built once per
process), plus the workspace tools the composition root configured (composition/workspace.py)."""

from __future__ import annotations

from collections.abc import Iterable

from voiceassist.tools import differential, medical, search
from voiceassist.tools.registry import Tool, ToolRegistry


def default_registry(configured: Iterable[Tool] = (), *, leaving_boundary: bool = True) -> ToolRegistry:
    """The built-in tools and the `configured` ones (the workspace's, as the composition root chose them).
    `leaving_boundary=False`: without the built-in tools whose arguments leave the boundary (requires_phi false:
    search_pubmed), for a deployment whose tool functions cannot check their arguments for PHI."""
    built_in = [medical.CALCULATE_MEDICAL_SCORE, *search.SEARCH_TOOLS, differential.GENERATE_DIFFERENTIAL_DIAGNOSIS]
    kept = [t for t in built_in if leaving_boundary or t.definition.requires_phi]
    return ToolRegistry([*kept, *configured])
