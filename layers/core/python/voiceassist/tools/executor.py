"""The tool executor: one lifecycle for every caller (the model's tool loop, the REST API, MCP).

validate -> authorize -> PHI rule -> rate limit -> confirm -> time out and execute -> audit. Each refusal is a
ToolResult with an HTTP-like status, so a model reads it as a tool error and the API maps it once.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import ValidationError

from voiceassist.admin.config import ToolPolicy
from voiceassist.errors import InvalidInput, NotFound, VoiceAssistError
from voiceassist.models import AuditOutcome, AuditRecord, PhiResult, ToolCall, ToolDefinition, ToolResult
from voiceassist.observability import log_failure
from voiceassist.phi.detection import failed_result
from voiceassist.ports import AuditLog, MetricSink, PhiDetector, RateLimiter
from voiceassist.safety.input_screen import ScreenVerdict, reply_for, screen_all
from voiceassist.tools.actions import PendingActions
from voiceassist.tools.calculators.registry import describe_validation_error
from voiceassist.tools.errors import InputRefused, PhiRefused, RateLimited, ToolForbidden, ToolTimeout
from voiceassist.tools.events import ToolEvent, ToolEvents
from voiceassist.tools.metrics import tool_points
from voiceassist.tools.registry import Tool, ToolEnvironment, ToolOutput, ToolRegistry, recorded_name

RATE_WINDOW_S = 60


@dataclass(frozen=True)
class Caller:
    """Who calls: the person (their id and roles) and through what (the model's loop, the API, MCP)."""

    user_id: str
    roles: tuple[str, ...] = ("clinician",)
    channel: str = "api"  # model | api | mcp
    turn_has_phi: bool = False  # the turn (question, earlier tool results) carries PHI or was not checked
    budget_seconds: float | None = None  # what is left of the turn's tool budget
    session_id: str | None = None  # the session whose turn made the call (the model's loop), for the audit record


@dataclass
class _Checked:
    tool: Tool
    params: Any
    phi: list[PhiResult] = field(default_factory=list)
    redacted: dict[str, Any] = field(default_factory=dict)
    screened: str | None = None  # the input screen's category when it refused a string argument

    @property
    def args_have_phi(self) -> bool:
        return any(result.contains_phi for result in self.phi)


class ToolExecutor:
    def __init__(self, registry: ToolRegistry, *, env: ToolEnvironment, detector: PhiDetector,
                 limiter: RateLimiter, actions: PendingActions, audit: AuditLog,
                 events: ToolEvents | None = None, metrics: MetricSink | None = None,
                 policy: Callable[[str], ToolPolicy] | None = None) -> None:
        self.registry = registry
        self._policy = policy or (lambda _name: ToolPolicy())  # the admin configuration's, read per call
        self._env = env
        self._detector = detector
        self._limiter = limiter
        self.actions = actions
        self._audit = audit
        self.events = events or ToolEvents()
        self._metrics = metrics

    def execute(self, call: ToolCall, caller: Caller) -> ToolResult:
        """Run one call through the whole lifecycle; never raises for a refusal or a tool's failure."""
        return self._run(call, caller, confirmed=False)

    def confirm(self, action_id: str, caller: Caller) -> ToolResult:
        """Run a pending action as its proposer (404 another's, 409 taken, 410 expired: raised)."""
        stored = self.actions.take(action_id, user_id=caller.user_id, confirm=True)
        proposer = Caller(**{**stored.caller, "roles": tuple(stored.caller["roles"])})
        return self._run(stored.call, proposer, confirmed=True)

    def cancel(self, action_id: str, caller: Caller) -> str:
        return self.actions.take(action_id, user_id=caller.user_id, confirm=False).action.action_id

    # ---- the lifecycle ----------------------------------------------------------------------------------
    def _run(self, call: ToolCall, caller: Caller, *, confirmed: bool) -> ToolResult:
        started = time.perf_counter()
        self.events.emit(ToolEvent("tool_call", call.call_id, recorded_name(call.name)))
        checked: _Checked | None = None
        try:
            checked = self._validate(call)
            self._authorize(checked.tool, caller)
            self._apply_phi_rule(checked, call, caller)
            self._screen(checked, call)
            if not confirmed:
                self._rate_limit(checked.tool, caller)
            if checked.tool.definition.requires_confirmation and not confirmed:
                result = self._propose(checked, call, caller)
            else:
                result = self._execute(checked, call, caller)
        except VoiceAssistError as exc:
            result = _refusal(call, exc)
        except Exception as exc:  # noqa: BLE001 - a tool's bug is the model's tool error, never the turn's end
            log_failure("tool failed", exc, tool=call.name)
            result = ToolResult(name=call.name, call_id=call.call_id, ok=False, status=500, error="tool_failed",
                                content=f"the tool {call.name} failed ({type(exc).__name__}); do not retry it")
        result.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        result.carries_phi = result.carries_phi or caller.turn_has_phi or bool(checked and checked.args_have_phi)
        self._write_audit(call, caller, checked, result, confirmed=confirmed)
        self.events.emit(ToolEvent("tool_result", call.call_id, result.name, result.status, result.latency_ms))
        return result

    def offered_definitions(self) -> list[ToolDefinition]:
        """The tools the administrator has not turned off: what /v1/tools and MCP's tools/list show."""
        return [d for d in self.registry.definitions() if self._policy(d.name).enabled]

    def _validate(self, call: ToolCall) -> _Checked:
        tool = self.registry.get(call.name)
        try:
            params = tool.params.model_validate(call.arguments)
        except ValidationError as error:
            raise InvalidInput(describe_validation_error(error, subject="tool")) from error
        return _Checked(tool=tool, params=params)

    def _authorize(self, tool: Tool, caller: Caller) -> None:
        if not self._policy(tool.name).enabled:
            raise ToolForbidden(f"the tool {tool.name} is turned off by the administrator (/v1/admin/config)")
        allowed = tool.definition.allowed_roles
        if not set(caller.roles) & set(allowed):
            raise ToolForbidden(f"the tool {tool.name} is for the roles {', '.join(allowed)}")

    def _apply_phi_rule(self, checked: _Checked, call: ToolCall, caller: Caller) -> None:
        """Detect PHI in every string argument (a detector failure counts as PHI); a tool that may not receive
        PHI gets none, and none from a turn that carries PHI either (its text describes one patient)."""
        if checked.tool.scan_arguments:
            checked.redacted = _map_strings(call.arguments, lambda text: self._detect(text, checked))
        else:
            checked.redacted = dict(call.arguments)
        if checked.tool.definition.requires_phi:
            return
        if checked.args_have_phi or caller.turn_has_phi:
            raise PhiRefused(f"the tool {checked.tool.name} runs outside the PHI boundary and may not receive "
                             "patient details; call it with a question that carries none")

    def _screen(self, checked: _Checked, call: ToolCall) -> None:
        """A tool's free-text arguments pass the input screen (the meaning model where the in-boundary embedder is
        deployed): an injected instruction in a search query or a letter is refused, never run (the calculator's
        validated arguments hold no free text)."""
        if not checked.tool.scan_arguments:
            return
        texts: list[str] = []

        def collect(text: str) -> str:
            texts.append(text)
            return text

        _map_strings(call.arguments, collect)
        verdict = self.screen_verdict(texts)
        if verdict.flagged and verdict.category:
            checked.screened = verdict.category
            raise InputRefused(reply_for(verdict), category=verdict.category)

    def screen_verdict(self, texts: list[str]) -> ScreenVerdict:
        """The input screen's verdict on a call's text arguments, read here (every reading, spaCy's parse among them,
        and the meaning model where this function has the in-boundary embedder)."""
        env = self._env
        return screen_all(texts, embedder=env.ctx.embedder if env.ctx is not None else None)

    def _detect(self, text: str, checked: _Checked) -> str:
        try:
            result = self._detector.detect(text)
        except Exception as exc:  # noqa: BLE001 - a detector that fails counts as PHI (fail closed)
            result = failed_result(f"PHI detector failed ({type(exc).__name__})")
        checked.phi.append(result)
        return result.redacted_text

    def _rate_limit(self, tool: Tool, caller: Caller) -> None:
        limit = self._policy(tool.name).rate_limit or tool.definition.rate_limit
        decision = self._limiter.acquire(f"tool:{caller.user_id}:{tool.name}", limit=limit,
                                         window_seconds=RATE_WINDOW_S)
        if not decision.allowed:
            raise RateLimited(f"the tool {tool.name} allows {limit} calls a minute; retry "
                              f"after {decision.retry_after} s", retry_after=decision.retry_after)

    def _propose(self, checked: _Checked, call: ToolCall, caller: Caller) -> ToolResult:
        summarize = checked.tool.summarize or (lambda _params: f"run {checked.tool.name}")
        action = self.actions.create(call, summary=summarize(checked.params), user_id=caller.user_id,
                                     caller=asdict(caller))
        return ToolResult(name=call.name, call_id=call.call_id, ok=True, status=202, pending_action=action,
                          content=f"Waiting for the user's confirmation: {action.summary} (action "
                                  f"{action.action_id}, expires {action.expires_at.isoformat()}).")

    def _execute(self, checked: _Checked, call: ToolCall, caller: Caller) -> ToolResult:
        timeout = checked.tool.definition.timeout_seconds
        if caller.budget_seconds is not None:
            timeout = min(timeout, max(caller.budget_seconds, 0.001))
        env = ToolEnvironment(ctx=self._env.ctx, turn_has_phi=caller.turn_has_phi or checked.args_have_phi,
                              user_id=caller.user_id)
        output = run_with_timeout(lambda: checked.tool.run(checked.params, env), timeout, checked.tool.name)
        return ToolResult(name=call.name, call_id=call.call_id, ok=True, content=output.content,
                          data=output.data, sources=output.sources, carries_phi=output.carries_phi)

    def _write_audit(self, call: ToolCall, caller: Caller, checked: _Checked | None, result: ToolResult, *,
                     confirmed: bool = False) -> None:
        redacted = checked.redacted if checked and checked.redacted else {"arguments": "<NOT_CHECKED>"}
        canonical = json.dumps(call.arguments, sort_keys=True, default=str)
        outcome = (AuditOutcome.ANSWERED if result.status == 200 else AuditOutcome.CLARIFY if result.status == 202
                   else AuditOutcome.REFUSED if result.status < 500 else AuditOutcome.ERROR)
        entity_types = sorted({t for r in (checked.phi if checked else []) for t in r.entity_types})
        self._audit.append(AuditRecord(
            user_id=caller.user_id, session_id=caller.session_id,
            query_redacted=f"{recorded_name(call.name)} {json.dumps(redacted, sort_keys=True)}",
            query_sha256=hashlib.sha256(canonical.encode()).hexdigest(),
            phi_detected=bool(checked and checked.args_have_phi), phi_entity_types=entity_types,
            intent=f"input_screen:{checked.screened}" if checked and checked.screened else "tool",
            model=caller.channel, response_id=call.call_id, outcome=outcome,
            latency_ms={"tool": result.latency_ms}, tool=recorded_name(call.name), tool_status=result.status))
        if self._metrics is not None:
            self._metrics.record(tool_points(result, registered=self.registry, confirmed=confirmed))


class DeferredDetector:
    """The detector asked for at each check (`build` returns the one in the PHI mode configured now; the
    composition root keeps each built): a tool call with no string argument never loads Presidio, and a
    function that does not ship it (ImportError) fails closed instead of failing every call."""

    def __init__(self, build: Callable[[], PhiDetector]) -> None:
        self._build = build

    def detect(self, text: str) -> PhiResult:
        try:
            detector = self._build()
        except ImportError:
            return failed_result("PHI detector is not deployed with this function")
        return detector.detect(text)


def run_with_timeout(function: Callable[[], ToolOutput], timeout_s: float, name: str) -> ToolOutput:
    """Run `function` in a daemon thread and stop waiting after `timeout_s` (the thread cannot be killed; a pure
    tool ends by itself, a client's own deadline ends the others)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = function()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name=f"tool-{name}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        raise ToolTimeout(f"the tool {name} did not finish within {timeout_s:g} s")
    if "error" in box:
        raise box["error"]
    output: ToolOutput = box["value"]
    return output


def _map_strings(value: Any, transform: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return transform(value)
    if isinstance(value, dict):
        return {key: _map_strings(item, transform) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_map_strings(item, transform) for item in value]
    return value


def _refusal(call: ToolCall, exc: VoiceAssistError) -> ToolResult:
    retry_after = getattr(exc, "retry_after", None)
    status = 404 if isinstance(exc, NotFound) else exc.status_code
    # our own words; a dependency's may echo input (an error class marked `readable` words its own message)
    readable = status < 500 or isinstance(exc, ToolTimeout) or getattr(exc, "readable", False)
    # the name as sent when it is shaped like a tool's; free text (a name sent where a tool's goes) never comes back
    return ToolResult(name=recorded_name(call.name), call_id=call.call_id, ok=False, status=status, error=exc.code,
                      content=str(exc) if readable else f"the tool {recorded_name(call.name)} failed ({exc.code})",
                      retry_after=retry_after)
