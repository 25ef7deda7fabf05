"""Tools that run in another function: the api and mcp functions have no ML layer (the embedder), so the
knowledge-base searches they are asked for run in the query loop's `query_tools` function, which has it.

The input screen of the tools they run themselves (calendar, files, the calculators' free text) is read there too
(`screen_event`): query_tools ships spaCy's parse (the purpose clauses) and the meaning model's embedder, so a tool
argument is judged by every reading `make run` applies (decision 0027, "On AWS too", session 20). The request carries
the texts only; the reply carries the verdict's categories and reasons, never a text.

The call is handed over whole, with the caller (its user, roles, channel and the turn's PHI flag): validation,
authorization, the PHI rule, the rate limit, the time-out and the audit record happen once, in the function
that runs the tool, through the same executor the tool loop uses. The invoker only writes an audit record when
the runner did not answer (nothing may have been recorded there). Only IAM-granted invokers (the query
workflow, the api and mcp functions, which authenticated the caller with Cognito) may invoke the runner.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any, Protocol

from voiceassist.errors import DependencyError
from voiceassist.models import ToolCall, ToolResult
from voiceassist.observability import log_failure
from voiceassist.safety.input_screen import ScreenVerdict
from voiceassist.tools.events import ToolEvent
from voiceassist.tools.executor import Caller, ToolExecutor

# The tools that need the embedder (the ML layer): the knowledge-base searches.
EMBEDDING_TOOLS = frozenset({"search_knowledge_base", "search_guidelines"})


class ToolRunner(Protocol):
    """Runs one call through the executor of another function (adapters/aws/lambda_tool_runner.py); raises
    DependencyError when that function does not answer."""

    def run(self, call: ToolCall, caller: Caller) -> ToolResult: ...

    def screen(self, texts: list[str]) -> ScreenVerdict:
        """The input screen's verdict on `texts`, read by the runner's executor; raises DependencyError when that
        function does not answer."""
        ...


def runner_event(call: ToolCall, caller: Caller) -> dict[str, Any]:
    """What the runner function receives (functions/query_tools/handler.py reads it back)."""
    return {"call": call.model_dump(mode="json"), "caller": asdict(caller)}


def screen_event(texts: list[str]) -> dict[str, Any]:
    """What the runner function receives to screen a call's text arguments (functions/query_tools/handler.py)."""
    return {"screen": list(texts)}


def verdict_reply(verdict: ScreenVerdict) -> dict[str, Any]:
    """The runner's answer to `screen_event`: the categories and the readings' kinds, never a text."""
    return {"categories": list(verdict.categories), "reasons": list(verdict.reasons)}


def verdict_from_reply(reply: dict[str, Any]) -> ScreenVerdict:
    return ScreenVerdict(categories=tuple(reply["categories"]), reasons=tuple(reply["reasons"]))


def caller_from_event(payload: dict[str, Any]) -> Caller:
    return Caller(**{**payload, "roles": tuple(payload.get("roles", ("clinician",)))})


class RemoteToolExecutor(ToolExecutor):
    """The executor of a function that cannot run every tool: calls of `remote` tools go to `runner`, the rest
    through this function's own lifecycle; confirmations and cancellations stay here (no remote tool needs
    confirmation)."""

    def __init__(self, *args: Any, runner: ToolRunner, remote: frozenset[str] = EMBEDDING_TOOLS,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._runner = runner
        self._remote = remote

    def screen_verdict(self, texts: list[str]) -> ScreenVerdict:
        """Read by the runner, which has the parse and the embedder; a runner that does not answer fails the call
        closed (DependencyError: 502, nothing run)."""
        texts = [text for text in texts if text.strip()]
        return self._runner.screen(texts) if texts else ScreenVerdict()

    def execute(self, call: ToolCall, caller: Caller) -> ToolResult:
        if call.name not in self._remote or call.name not in self.registry:
            return super().execute(call, caller)
        started = time.perf_counter()
        self.events.emit(ToolEvent("tool_call", call.call_id, call.name))
        try:
            result = self._runner.run(call, caller)
        except DependencyError as exc:
            log_failure("the tool runner did not answer", exc, tool=call.name)
            result = ToolResult(name=call.name, call_id=call.call_id, ok=False, status=502,
                                error="tool_runner_unavailable",
                                content=f"the tool {call.name} could not be run: the function that runs it did "
                                        "not answer; try again later",
                                latency_ms=round((time.perf_counter() - started) * 1000, 3),
                                carries_phi=caller.turn_has_phi)
            self._write_audit(call, caller, None, result)
        self.events.emit(ToolEvent("tool_result", call.call_id, call.name, result.status, result.latency_ms))
        return result
