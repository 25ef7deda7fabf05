"""A tool call's metrics, from the ToolResult the executor audits: its outcome and its time.

The tool dimension is a registered tool's name, never a name a model or client made up (those count as
"other"); the outcome is one of constants.metrics.TOOL_OUTCOMES, read off the result's HTTP-like status.
"""

from __future__ import annotations

from collections.abc import Container

from voiceassist.constants import metrics as names
from voiceassist.models import ToolResult
from voiceassist.telemetry.points import MetricPoint, closed


def tool_points(result: ToolResult, *, registered: Container[str], confirmed: bool = False) -> list[MetricPoint]:
    tool = closed(result.name, registered)
    return [MetricPoint(names.TOOL_CALLS, 1, {"tool": tool, "outcome": outcome_of(result, confirmed=confirmed)}),
            MetricPoint(names.TOOL_LATENCY, result.latency_ms, {"tool": tool})]


def outcome_of(result: ToolResult, *, confirmed: bool = False) -> str:
    if result.status == 200:
        return "confirmed" if confirmed else "ok"
    if result.status == 202:
        return "pending_confirmation"
    if result.status == 429:
        return "rate_limited"
    if result.status == 504 or result.error == "tool_timeout":
        return "timeout"
    return "refused" if result.status < 500 else "error"
