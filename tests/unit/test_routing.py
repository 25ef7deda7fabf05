"""Model routing: the PHI rule in every mode and failure, the fallback chain, the shared circuit breaker."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from voiceassist import observability
from voiceassist.errors import Conflict, DependencyError, ModelUnavailable, PhiBoundaryViolation
from voiceassist.models import ChatCompletion, ChatMessage, RoutingMode, TokenUsage, ToolCall
from voiceassist.query.circuit_breaker import BreakerRegistry, BreakerState, CircuitBreaker, CircuitOpen
from voiceassist.query.routing import (
    NoModelAvailable,
    RoutePlan,
    choose_models,
    complete_with_fallbacks,
    generate_with_fallbacks,
)

RAW_QUESTION = "John Smith, MRN 4411902, eGFR 25: can he take metformin?"
REDACTED_QUESTION = "<PERSON>, MRN <ID>, eGFR 25: can he take metformin?"
CLEAN_QUESTION = "Can metformin be used when eGFR is 25?"


class MemoryState:
    """KeyValueState in a dict, with the same compare-and-set contract as the SQLite and DynamoDB adapters."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[dict[str, Any], int]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[dict[str, Any] | None, int]:
        with self._lock:
            value, version = self.items.get(key, (None, 0))
            return (dict(value) if value else None), version

    def put(self, key: str, value: dict[str, Any], *, expected_version: int, ttl_seconds: int | None = None
            ) -> int:
        with self._lock:
            current = self.items.get(key, (None, 0))[1]
            if current != expected_version:
                raise Conflict(f"{key} is at version {current}, not {expected_version}")
            self.items[key] = (dict(value), current + 1)
            return current + 1


class FakeChat:
    """A ChatModel playing a script of outcomes (an exception or an answer), recording what it was sent."""

    def __init__(self, name: str, *, in_boundary: bool, script: Sequence[Exception | str] = ("answer",)
                 ) -> None:
        self.name = name
        self.in_boundary = in_boundary
        self._script = itertools.chain(script, itertools.repeat(script[-1]))
        self.received: list[str] = []

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        self.received.append("\n".join(m.content for m in messages))
        outcome = next(self._script)
        if isinstance(outcome, Exception):
            raise outcome
        return ChatCompletion(text=f"{outcome} from {self.name} [1].", model=self.name,
                              usage=TokenUsage(prompt_tokens=10, completion_tokens=5))

    def stream(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
               temperature: float = 0.1) -> Iterator[str]:
        yield self.complete(messages).text


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def messages_for(question: str) -> list[ChatMessage]:
    return [ChatMessage(role="system", content="clinical reference assistant"),
            ChatMessage(role="user", content=f"Excerpts: [1] ...\n\nQuestion: {question}")]


def detector_guard(text: str) -> None:
    """The egress guard: a stand-in detector that knows the raw question's identifiers."""
    if "John Smith" in text or "4411902" in text:
        raise PhiBoundaryViolation("PHI in an outbound payload")


def allow_all(text: str) -> None:
    return None


@pytest.fixture
def breakers() -> BreakerRegistry:
    return BreakerRegistry(MemoryState(), clock=Clock())


def no_sleep(seconds: float) -> None:
    return None


# --------------------------------------------------------------------------- the routing matrix

FAILURES = {
    "none": {},
    "cloud down": {"cloud": [ModelUnavailable("HTTP 503")]},
    "local down": {"local": [ModelUnavailable("HTTP 503")]},
    "both down": {"cloud": [ModelUnavailable("HTTP 503")], "local": [ModelUnavailable("HTTP 503")]},
}


@pytest.mark.parametrize("phi", [True, False])
@pytest.mark.parametrize("mode", list(RoutingMode))
@pytest.mark.parametrize("failure", list(FAILURES))
def test_routing_never_sends_phi_outside_the_boundary(phi: bool, mode: RoutingMode, failure: str,
                                                      breakers: BreakerRegistry) -> None:
    scripts = FAILURES[failure]
    cloud = FakeChat("gpt-4o-mini", in_boundary=False, script=scripts.get("cloud", ["answer"]))
    local = FakeChat("llama-3.1-8b", in_boundary=True, script=scripts.get("local", ["answer"]))

    plan = choose_models(phi, mode, cloud=cloud, local=local)
    question = RAW_QUESTION if phi and not plan.redacted else REDACTED_QUESTION if phi else CLEAN_QUESTION
    try:
        generation = generate_with_fallbacks(plan, messages_for(question), breakers=breakers,
                                             egress_check=detector_guard, sleep=no_sleep)
        answered_by: str | None = generation.model
    except NoModelAvailable:
        answered_by = None

    assert all("John Smith" not in payload for payload in cloud.received)
    if phi and mode is not RoutingMode.CLOUD_ONLY:
        assert cloud.received == []
    expected_order = {
        RoutingMode.HYBRID: ["llama-3.1-8b"] if phi else ["gpt-4o-mini", "llama-3.1-8b"],
        RoutingMode.LOCAL_ONLY: ["llama-3.1-8b"],
        RoutingMode.CLOUD_ONLY: ["gpt-4o-mini"],
    }[mode]
    working = [name for name in expected_order
               if not scripts.get("cloud" if name == "gpt-4o-mini" else "local")]
    assert answered_by == (working[0] if working else None)


def test_choose_models_cloud_only_with_phi_sends_the_redacted_question_and_says_so() -> None:
    cloud = FakeChat("gpt-4o-mini", in_boundary=False)

    plan = choose_models(True, RoutingMode.CLOUD_ONLY, cloud=cloud, local=None)

    assert plan.redacted and plan.models == (cloud,)
    assert "redacted" in plan.warnings[0]


def test_choose_models_hybrid_with_phi_and_no_local_model_has_no_model() -> None:
    plan = choose_models(True, RoutingMode.HYBRID, cloud=FakeChat("gpt", in_boundary=False), local=None)

    assert plan.models == () and "no in-boundary language model" in plan.warnings[0]


def test_choose_models_trusts_in_boundary_flags_over_the_slot() -> None:
    inside_in_cloud_slot = FakeChat("vllm-in-vpc", in_boundary=True)
    outside_in_local_slot = FakeChat("hosted-llama", in_boundary=False)

    plan = choose_models(True, RoutingMode.HYBRID, cloud=inside_in_cloud_slot, local=outside_in_local_slot)

    assert plan.models == (inside_in_cloud_slot,)


def test_route_plan_tier_gives_one_model_per_state_machine_tier() -> None:
    cloud, local = FakeChat("gpt", in_boundary=False), FakeChat("llama", in_boundary=True)
    plan = choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local)

    assert plan.tier("primary").models == (cloud,)
    assert plan.tier("fallback").models == (local,)
    assert choose_models(True, RoutingMode.HYBRID, cloud=cloud, local=local).tier("fallback").models == ()


# --------------------------------------------------------------------------- the egress guard


def test_egress_guard_keeps_phi_the_detector_missed_inside_the_boundary(breakers: BreakerRegistry) -> None:
    cloud = FakeChat("gpt-4o-mini", in_boundary=False)
    local = FakeChat("llama-3.1-8b", in_boundary=True)
    plan = choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local)  # first detector missed it

    generation = generate_with_fallbacks(plan, messages_for(RAW_QUESTION), breakers=breakers,
                                         egress_check=detector_guard, sleep=no_sleep)

    assert cloud.received == [] and generation.model == "llama-3.1-8b"
    assert [(a.model, a.error) for a in generation.attempts] == [
        ("gpt-4o-mini", "PhiBoundaryViolation"), ("llama-3.1-8b", None),
    ]
    assert any("egress check" in w for w in generation.warnings)


def test_egress_guard_failure_counts_as_phi(breakers: BreakerRegistry) -> None:
    def broken_detector(text: str) -> None:
        raise TimeoutError("detector timed out")

    cloud = FakeChat("gpt-4o-mini", in_boundary=False)
    plan = choose_models(False, RoutingMode.CLOUD_ONLY, cloud=cloud, local=None)

    with pytest.raises(NoModelAvailable):
        generate_with_fallbacks(plan, messages_for(CLEAN_QUESTION), breakers=breakers,
                                egress_check=broken_detector, sleep=no_sleep)
    assert cloud.received == []


def test_egress_violation_is_never_retried_to_another_cloud_model(breakers: BreakerRegistry) -> None:
    checks: list[str] = []

    def guard(text: str) -> None:
        checks.append(text)
        detector_guard(text)

    cloud_a, cloud_b = FakeChat("gpt-a", in_boundary=False), FakeChat("gpt-b", in_boundary=False)
    local = FakeChat("llama", in_boundary=True)
    plan = RoutePlan(RoutingMode.HYBRID, False, (cloud_a, cloud_b, local))

    generation = generate_with_fallbacks(plan, messages_for(RAW_QUESTION), breakers=breakers,
                                         egress_check=guard, sleep=no_sleep)

    assert (cloud_a.received, cloud_b.received, len(checks)) == ([], [], 1)
    assert generation.model == "llama"


def test_a_hand_built_phi_plan_still_never_calls_a_cloud_model(breakers: BreakerRegistry) -> None:
    cloud = FakeChat("gpt-4o-mini", in_boundary=False)
    plan = RoutePlan(RoutingMode.HYBRID, True, (cloud,))

    with pytest.raises(NoModelAvailable):
        generate_with_fallbacks(plan, messages_for(CLEAN_QUESTION), breakers=breakers, egress_check=allow_all,
                                sleep=no_sleep)
    assert cloud.received == []


# --------------------------------------------------------------------------- retries and fallbacks


def test_transient_cloud_failure_is_retried_once_after_a_backoff(breakers: BreakerRegistry) -> None:
    cloud = FakeChat("gpt-4o-mini", in_boundary=False, script=[ModelUnavailable("HTTP 503"), "answer"])
    local = FakeChat("llama", in_boundary=True)
    sleeps: list[float] = []
    plan = choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local)

    generation = generate_with_fallbacks(plan, messages_for(CLEAN_QUESTION), breakers=breakers,
                                         egress_check=allow_all, sleep=sleeps.append, retry_backoff_s=0.5)

    assert generation.model == "gpt-4o-mini" and local.received == []
    assert sleeps == [0.5]
    assert [(a.model, a.ok, a.error) for a in generation.attempts] == [
        ("gpt-4o-mini", False, "ModelUnavailable"), ("gpt-4o-mini", True, None),
    ]
    assert generation.warnings == []


def test_cloud_failing_twice_falls_back_to_the_local_model_with_a_warning(breakers: BreakerRegistry) -> None:
    cloud = FakeChat("gpt-4o-mini", in_boundary=False, script=[ModelUnavailable("HTTP 503")])
    local = FakeChat("llama", in_boundary=True)
    plan = choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local)

    generation = generate_with_fallbacks(plan, messages_for(CLEAN_QUESTION), breakers=breakers,
                                         egress_check=allow_all, sleep=no_sleep)

    assert generation.model == "llama" and len(cloud.received) == 2
    assert generation.text == "answer from llama [1]."
    assert generation.warnings == ["The preferred language model was unavailable; llama answered."]


@pytest.mark.parametrize("error", [DependencyError("HTTP 401"), RuntimeError("adapter bug")])
def test_non_transient_failure_moves_on_without_retrying(error: Exception, breakers: BreakerRegistry) -> None:
    cloud = FakeChat("gpt-4o-mini", in_boundary=False, script=[error])
    local = FakeChat("llama", in_boundary=True)
    sleeps: list[float] = []

    generation = generate_with_fallbacks(choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local),
                                         messages_for(CLEAN_QUESTION), breakers=breakers,
                                         egress_check=allow_all, sleep=sleeps.append)

    assert (len(cloud.received), sleeps, generation.model) == (1, [], "llama")
    assert generation.attempts[0].error == type(error).__name__


def test_an_empty_answer_falls_through_to_the_next_model(breakers: BreakerRegistry) -> None:
    class Silent(FakeChat):
        def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                     temperature: float = 0.1) -> ChatCompletion:
            super().complete(messages)
            return ChatCompletion(text="  ", model=self.name)

    cloud, local = Silent("gpt", in_boundary=False), FakeChat("llama", in_boundary=True)

    generation = generate_with_fallbacks(choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local),
                                         messages_for(CLEAN_QUESTION), breakers=breakers,
                                         egress_check=allow_all, sleep=no_sleep)

    assert generation.model == "llama" and generation.attempts[0].error == "EmptyCompletion"


def test_a_completion_with_tool_calls_and_no_text_is_an_answer(breakers: BreakerRegistry) -> None:
    """complete_with_fallbacks (the tool loop's): tool calls answer; a completion with neither falls through."""
    call = ToolCall(call_id="call_0", name="search_knowledge_base", arguments={"query": "metformin"})
    replies = {"gpt": ChatCompletion(text="", model="gpt", tool_calls=[call]),
               "silent": ChatCompletion(text=" ", model="silent")}
    cloud, local = FakeChat("gpt", in_boundary=False), FakeChat("llama", in_boundary=True)
    silent = FakeChat("silent", in_boundary=False)

    def complete(model: Any) -> ChatCompletion:
        return replies.get(model.name) or model.complete(messages_for(CLEAN_QUESTION))

    calls = complete_with_fallbacks(choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local),
                                    messages_for(CLEAN_QUESTION), complete, breakers=breakers,
                                    egress_check=allow_all, sleep=no_sleep)
    fallen = complete_with_fallbacks(choose_models(False, RoutingMode.HYBRID, cloud=silent, local=local),
                                     messages_for(CLEAN_QUESTION), complete, breakers=breakers,
                                     egress_check=allow_all, sleep=no_sleep)

    assert (calls.model, calls.text, calls.tool_calls) == ("gpt", "", [call])
    assert (fallen.model, fallen.attempts[0].error, fallen.tool_calls) == ("llama", "EmptyCompletion", [])


def test_no_model_available_lists_attempts_without_prompt_text(breakers: BreakerRegistry) -> None:
    local = FakeChat("llama", in_boundary=True, script=[ModelUnavailable("HTTP 503")])
    plan = choose_models(True, RoutingMode.HYBRID, cloud=FakeChat("gpt", in_boundary=False), local=local)

    with pytest.raises(NoModelAvailable) as raised:
        generate_with_fallbacks(plan, messages_for(RAW_QUESTION), breakers=breakers,
                                egress_check=detector_guard, sleep=no_sleep)

    assert [a.model for a in raised.value.attempts] == ["llama", "llama"]
    assert "John Smith" not in str(raised.value) and "llama: ModelUnavailable" in str(raised.value)
    assert isinstance(raised.value, ModelUnavailable)


def test_an_open_circuit_skips_the_model_without_calling_it() -> None:
    state, clock = MemoryState(), Clock()
    breakers = BreakerRegistry(state, failure_threshold=2, clock=clock)
    cloud = FakeChat("gpt-4o-mini", in_boundary=False, script=[ModelUnavailable("HTTP 503")])
    local = FakeChat("llama", in_boundary=True)
    plan = choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local)
    generate_with_fallbacks(plan, messages_for(CLEAN_QUESTION), breakers=breakers, egress_check=allow_all,
                            sleep=no_sleep)  # two failures: the circuit opens

    generation = generate_with_fallbacks(plan, messages_for(CLEAN_QUESTION), breakers=breakers,
                                         egress_check=allow_all, sleep=no_sleep)

    assert len(cloud.received) == 2
    assert [(a.model, a.error) for a in generation.attempts] == [
        ("gpt-4o-mini", "CircuitOpen"), ("llama", None),
    ]
    assert breakers.states() == {"gpt-4o-mini": BreakerState.OPEN, "llama": BreakerState.CLOSED}


# --------------------------------------------------------------------------- circuit breaker


def fail(breaker: CircuitBreaker, times: int = 1) -> None:
    for _ in range(times):
        breaker.record_failure(breaker.acquire())


def test_breaker_opens_after_five_consecutive_failures() -> None:
    breaker = CircuitBreaker(MemoryState(), "gpt", clock=Clock())

    fail(breaker, 4)
    assert breaker.state() is BreakerState.CLOSED
    fail(breaker)

    assert breaker.state() is BreakerState.OPEN
    with pytest.raises(CircuitOpen):
        breaker.acquire()


def test_breaker_success_resets_the_consecutive_failure_count() -> None:
    breaker = CircuitBreaker(MemoryState(), "gpt", clock=Clock())

    fail(breaker, 4)
    breaker.record_success(breaker.acquire())
    fail(breaker, 4)

    assert breaker.state() is BreakerState.CLOSED


def test_breaker_counts_failures_from_every_instance_sharing_the_state() -> None:
    state, clock = MemoryState(), Clock()
    first_lambda, second_lambda = (CircuitBreaker(state, "gpt", clock=clock) for _ in range(2))

    fail(first_lambda, 3)
    fail(second_lambda, 2)

    assert first_lambda.state() is BreakerState.OPEN


def test_breaker_rejects_for_the_reset_timeout_then_a_successful_probe_closes_it() -> None:
    clock = Clock()
    breaker = CircuitBreaker(MemoryState(), "gpt", clock=clock)
    fail(breaker, 5)

    clock.now += 59.9
    with pytest.raises(CircuitOpen):
        breaker.acquire()
    clock.now += 0.1
    probe = breaker.acquire()
    assert probe.probe and breaker.state() is BreakerState.HALF_OPEN
    breaker.record_success(probe)

    assert breaker.state() is BreakerState.CLOSED
    assert not breaker.acquire().probe


def test_breaker_failed_probe_reopens_for_another_timeout() -> None:
    clock = Clock()
    breaker = CircuitBreaker(MemoryState(), "gpt", clock=clock)
    fail(breaker, 5)
    clock.now += 60

    breaker.record_failure(breaker.acquire())

    assert breaker.state() is BreakerState.OPEN
    clock.now += 59
    with pytest.raises(CircuitOpen):
        breaker.acquire()
    clock.now += 1
    assert breaker.acquire().probe


def test_breaker_allows_one_probe_while_it_is_in_flight() -> None:
    state, clock = MemoryState(), Clock()
    first_lambda, second_lambda = (CircuitBreaker(state, "gpt", clock=clock) for _ in range(2))
    fail(first_lambda, 5)
    clock.now += 60

    probe = first_lambda.acquire()

    with pytest.raises(CircuitOpen):
        second_lambda.acquire()
    assert probe.probe


class RacingState(MemoryState):
    """Lets a rival run in between this caller's read and its write: both see the circuit open."""

    def __init__(self) -> None:
        super().__init__()
        self.rival: Callable[[], None] | None = None

    def put(self, key: str, value: dict[str, Any], *, expected_version: int, ttl_seconds: int | None = None
            ) -> int:
        rival, self.rival = self.rival, None
        if rival is not None:
            rival()
        return super().put(key, value, expected_version=expected_version, ttl_seconds=ttl_seconds)


def test_breaker_half_open_probe_is_claimed_by_compare_and_set_under_contention() -> None:
    state, clock = RacingState(), Clock()
    first_lambda, second_lambda = (CircuitBreaker(state, "gpt", clock=clock) for _ in range(2))
    fail(first_lambda, 5)
    clock.now += 60
    rival_permits: list[Any] = []
    state.rival = lambda: rival_permits.append(second_lambda.acquire())

    with pytest.raises(CircuitOpen):
        first_lambda.acquire()  # read the open circuit, then lost the write to the rival

    assert [p.probe for p in rival_permits] == [True]


def test_breaker_grants_exactly_one_probe_to_many_concurrent_callers() -> None:
    state, clock = MemoryState(), Clock()
    fail(CircuitBreaker(state, "gpt", clock=clock), 5)
    clock.now += 60
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def caller() -> None:
        breaker = CircuitBreaker(state, "gpt", clock=clock)
        barrier.wait()
        try:
            outcomes.append("probe" if breaker.acquire().probe else "call")
        except CircuitOpen:
            outcomes.append("rejected")

    threads = [threading.Thread(target=caller) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["probe"] + ["rejected"] * 7


def test_breaker_probe_of_a_crashed_instance_can_be_reclaimed_after_the_timeout() -> None:
    state, clock = MemoryState(), Clock()
    crashed, survivor = CircuitBreaker(state, "gpt", clock=clock), CircuitBreaker(state, "gpt", clock=clock)
    fail(crashed, 5)
    clock.now += 60
    crashed.acquire()  # claimed the probe, then never reported

    clock.now += 60

    assert survivor.acquire().probe


def test_breaker_ignores_late_results_of_calls_started_before_it_opened() -> None:
    clock = Clock()
    breaker = CircuitBreaker(MemoryState(), "gpt", clock=clock)
    slow_call = breaker.acquire()
    fail(breaker, 5)

    breaker.record_success(slow_call)

    assert breaker.state() is BreakerState.OPEN


def test_breaker_allows_calls_when_its_store_fails() -> None:
    class BrokenState(MemoryState):
        def get(self, key: str) -> tuple[dict[str, Any] | None, int]:
            raise DependencyError("DynamoDB throttled")

    breaker = CircuitBreaker(BrokenState(), "gpt", clock=Clock())

    permit = breaker.acquire()
    breaker.record_failure(permit)

    assert permit.probe is False


def test_breaker_opening_emits_the_metric_the_alarm_watches(capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observability, "_metric_lines_to_stderr", False)  # as on Lambda: EMF lines on stdout
    breaker = CircuitBreaker(MemoryState(), "gpt", clock=Clock())
    fail(breaker, 4)
    assert "CircuitBreakerOpened" not in capsys.readouterr().out
    fail(breaker)
    emitted = [line for line in capsys.readouterr().out.splitlines() if "CircuitBreakerOpened" in line]
    assert len(emitted) == 1 and '"service": "voiceassist"' in emitted[0].replace('":"', '": "')
