"""Model routing: which chat models may answer a question and the fallback chain (breakers: circuit_breaker.py).

The PHI rule is enforced twice. `choose_models` never puts a model outside the boundary into the plan of a
question with PHI (except cloud-only mode, where the plan says the caller must send the redacted question),
and `generate_with_fallbacks` re-checks every payload with the egress guard before it leaves the boundary.

When every model fails, `generate_with_fallbacks` raises NoModelAvailable (a ModelUnavailable carrying the
attempts and warnings): the caller then composes an extractive answer and marks the response degraded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from pydantic import Field

from voiceassist.errors import DependencyError, ModelUnavailable, PhiBoundaryViolation
from voiceassist.models import ChatCompletion, ChatMessage, Model, RoutingMode, TokenUsage, ToolCall
from voiceassist.observability import log_failure
from voiceassist.query.circuit_breaker import BreakerRegistry, CircuitBreaker, CircuitOpen

if TYPE_CHECKING:
    from voiceassist.ports import ChatModel

EgressCheck = Callable[[str], None]
T = TypeVar("T")


class ModelAttempt(Model):
    model: str
    in_boundary: bool
    ok: bool
    error: str | None = None  # the exception's class name only: messages can echo prompt text (PHI)
    latency_ms: float = 0.0


class Generation(Model):
    text: str
    model: str
    usage: TokenUsage = Field(default_factory=TokenUsage)
    attempts: list[ModelAttempt] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)  # the model asked for these (query/tool_loop.py)


class NoModelAvailable(ModelUnavailable):
    """Every model in the plan failed, was refused by the egress guard, or had its circuit open."""

    code = "no_model_available"

    def __init__(self, attempts: Sequence[ModelAttempt], warnings: Sequence[str]) -> None:
        tried = ", ".join(f"{a.model}: {a.error}" for a in attempts) or "no model may answer this question"
        super().__init__(f"no language model could answer ({tried})")
        self.attempts = list(attempts)
        self.warnings = list(warnings)


@dataclass(frozen=True)
class RoutePlan:
    mode: RoutingMode
    phi_detected: bool
    models: tuple[ChatModel, ...]
    # True only in cloud-only mode with PHI: build the messages from the redacted question, history and
    # context. If redaction removed what the question was about, the answer is weaker: the clinician sees
    # the redaction warning and chose a deployment without an in-boundary model.
    redacted: bool = False
    warnings: tuple[str, ...] = field(default=())

    def tier(self, name: str) -> RoutePlan:
        """The one-model plan of a state-machine tier: "primary" is the first model, "fallback" the second."""
        index = {"primary": 0, "fallback": 1}[name]
        models = self.models[index:index + 1]
        return RoutePlan(self.mode, self.phi_detected, models, self.redacted, self.warnings)


def choose_models(phi_detected: bool, mode: RoutingMode, *, cloud: ChatModel | None, local: ChatModel | None
                  ) -> RoutePlan:
    """The models that may answer, best first.

    hybrid: no PHI -> cloud, then local; PHI -> in-boundary models only.
    local-only: the local model, PHI or not.
    cloud-only: the cloud model; with PHI it gets the redacted question (never the raw one).
    A model's own in_boundary flag decides, whichever slot it was configured in.
    """
    if mode is RoutingMode.LOCAL_ONLY:
        candidates = [local]
    elif mode is RoutingMode.CLOUD_ONLY:
        candidates = [cloud]
    else:
        candidates = [local, cloud] if phi_detected else [cloud, local]
    models = tuple(m for m in candidates if m is not None)
    if not phi_detected:
        return RoutePlan(mode, False, models)
    if mode is RoutingMode.CLOUD_ONLY and any(not m.in_boundary for m in models):
        return RoutePlan(mode, True, models, redacted=True, warnings=(
            "The question contained protected health information; only a redacted version was sent to the "
            "language model, so details the redaction removed were not considered.",
        ))
    inside = tuple(m for m in models if m.in_boundary)
    warnings = () if inside else (
        "The question contained protected health information and no in-boundary language model is available.",
    )
    return RoutePlan(mode, True, inside, warnings=warnings)


def egress_payload(messages: Sequence[ChatMessage]) -> str:
    return "\n\n".join(m.content for m in messages)


def generate_with_fallbacks(plan: RoutePlan, messages: Sequence[ChatMessage], *, breakers: BreakerRegistry,
                            egress_check: EgressCheck, max_tokens: int = 700, temperature: float = 0.1,
                            retries: int = 1, sleep: Callable[[float], None] = time.sleep,
                            retry_backoff_s: float = 0.5) -> Generation:
    """Try each model of the plan in turn; a transient failure (ModelUnavailable) is retried `retries` times.

    Before any model outside the boundary is called, egress_check sees the whole payload; if it raises (or
    fails), no model outside the boundary is tried for this request. Raises NoModelAvailable at the end.
    """
    def complete(model: ChatModel) -> ChatCompletion:
        return model.complete(messages, max_tokens=max_tokens, temperature=temperature)

    return complete_with_fallbacks(plan, messages, complete, breakers=breakers, egress_check=egress_check,
                                   retries=retries, sleep=sleep, retry_backoff_s=retry_backoff_s)


def complete_with_fallbacks(plan: RoutePlan, messages: Sequence[ChatMessage],
                            complete: Callable[[ChatModel], ChatCompletion], *, breakers: BreakerRegistry,
                            egress_check: EgressCheck, retries: int = 1,
                            sleep: Callable[[float], None] = time.sleep, retry_backoff_s: float = 0.5
                            ) -> Generation:
    """generate_with_fallbacks with the caller's own call of each model (the tool loop offers tools to a model
    that takes them): same plan, egress guard, breakers and retries. A completion counts as an answer when it
    has text or tool calls."""
    def answer(model: ChatModel) -> ChatCompletion | None:
        completion = complete(model)
        return completion if completion.text.strip() or completion.tool_calls else None

    model, completion, attempts, warnings = _first_answer(
        plan, messages, answer, breakers=breakers, egress_check=egress_check,
        retry=_Retry(retries, sleep, retry_backoff_s))
    return Generation(text=completion.text, model=completion.model or model.name, usage=completion.usage,
                      attempts=attempts, warnings=warnings, tool_calls=completion.tool_calls)


@dataclass(frozen=True)
class _Retry:
    retries: int
    sleep: Callable[[float], None]
    backoff_s: float


def _first_answer(plan: RoutePlan, messages: Sequence[ChatMessage], call: Callable[[ChatModel], T | None], *,
                  breakers: BreakerRegistry, egress_check: EgressCheck, retry: _Retry
                  ) -> tuple[ChatModel, T, list[ModelAttempt], list[str]]:
    attempts: list[ModelAttempt] = []
    warnings = list(plan.warnings)
    egress_blocked = False
    for model in plan.models:
        if not model.in_boundary:
            if egress_blocked or (plan.phi_detected and not plan.redacted):
                attempts.append(ModelAttempt(model=model.name, in_boundary=False, ok=False,
                                             error=PhiBoundaryViolation.__name__))
                continue
            if not _egress_allowed(egress_check, messages):
                egress_blocked = True
                attempts.append(ModelAttempt(model=model.name, in_boundary=False, ok=False,
                                             error=PhiBoundaryViolation.__name__))
                warnings.append("The egress check found protected health information, so the question was "
                                "kept inside the boundary.")
                continue
        answer = _call_with_retries(model, call, breaker=breakers.for_model(model.name), attempts=attempts,
                                    retry=retry)
        if answer is not None:
            if attempts[0].model != model.name:
                warnings.append(f"The preferred language model was unavailable; {model.name} answered.")
            return model, answer, attempts, warnings
    raise NoModelAvailable(attempts, warnings)


def _egress_allowed(egress_check: EgressCheck, messages: Sequence[ChatMessage]) -> bool:
    try:
        egress_check(egress_payload(messages))
    except PhiBoundaryViolation:
        return False
    except Exception as exc:  # a detector failure counts as PHI (fail closed)
        log_failure("egress check failed; treated as PHI", exc)
        return False
    return True


def _call_with_retries(model: ChatModel, call: Callable[[ChatModel], T | None], *, breaker: CircuitBreaker,
                       attempts: list[ModelAttempt], retry: _Retry) -> T | None:
    for attempt_number in range(retry.retries + 1):
        if attempt_number:
            retry.sleep(retry.backoff_s * 2 ** (attempt_number - 1))
        try:
            permit = breaker.acquire()
        except CircuitOpen:
            attempts.append(ModelAttempt(model=model.name, in_boundary=model.in_boundary, ok=False,
                                         error=CircuitOpen.__name__))
            return None
        started = time.perf_counter()
        try:
            answer = call(model)
        except Exception as exc:
            breaker.record_failure(permit)
            attempts.append(ModelAttempt(model=model.name, in_boundary=model.in_boundary, ok=False,
                                         error=type(exc).__name__, latency_ms=_since(started)))
            if not isinstance(exc, DependencyError):
                log_failure("chat model raised an unexpected error", exc, model=model.name)
            if isinstance(exc, ModelUnavailable):
                continue
            return None
        breaker.record_success(permit)  # the endpoint answered, even if it said nothing useful
        attempts.append(ModelAttempt(model=model.name, in_boundary=model.in_boundary, ok=answer is not None,
                                     error=None if answer is not None else "EmptyCompletion",
                                     latency_ms=_since(started)))
        return answer
    return None


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
