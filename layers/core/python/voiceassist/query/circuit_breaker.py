"""A consecutive-failure circuit breaker per model whose state is shared through the store, not per process.

Issue #5: open after 5 failures, reject for 60 s, then one half-open probe. The state lives in a
KeyValueState (DynamoDB on AWS, SQLite locally) so every Lambda instance sees the same circuit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from voiceassist.errors import Conflict, ModelUnavailable
from voiceassist.observability import METRIC_CIRCUIT_BREAKER_OPENED, count, log_failure

if TYPE_CHECKING:
    from voiceassist.ports import KeyValueState


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitOpen(ModelUnavailable):
    code = "circuit_open"


@dataclass(frozen=True)
class Permit:
    probe: bool  # the single half-open call whose outcome closes or re-opens the circuit


class CircuitBreaker:
    """Consecutive-failure breaker whose state lives in a KeyValueState, shared by every Lambda instance.

    closed -> open after failure_threshold consecutive failures; open rejects calls for reset_timeout_s; then
    one caller claims the half-open probe by compare-and-set (a second one loses the race and is rejected);
    the probe's success closes the circuit, its failure re-opens it. A probe whose process died is
    reclaimable after reset_timeout_s. If the store itself fails, calls are allowed: the breaker protects
    the model endpoint, it must not become a second way to fail.
    """

    STATE_TTL_S = 86_400  # an idle breaker's record expires; absent reads as closed
    MAX_WRITE_RACES = 5

    def __init__(self, state: KeyValueState, name: str, *, failure_threshold: int = 5,
                 reset_timeout_s: float = 60.0, clock: Callable[[], float] = time.time) -> None:
        self._store = state
        self.name = name
        self._key = f"circuit:{name}"
        self.failure_threshold = failure_threshold
        self.reset_timeout_s = reset_timeout_s
        self._clock = clock

    def state(self) -> BreakerState:
        value, _ = self._read()
        return BreakerState((value or {}).get("state", BreakerState.CLOSED))

    def acquire(self) -> Permit:
        """Permission for one call; raises CircuitOpen while the circuit is open or another caller probes."""
        value, version = self._read()
        state = BreakerState((value or {}).get("state", BreakerState.CLOSED))
        if value is None or state is BreakerState.CLOSED:
            return Permit(probe=False)
        now = self._clock()
        if now - float(value.get("since", 0.0)) < self.reset_timeout_s:
            raise CircuitOpen(f"circuit {self.name} is {state.value}; calls resume after a successful probe")
        try:
            self._store.put(self._key, {"state": BreakerState.HALF_OPEN.value, "since": now},
                            expected_version=version, ttl_seconds=self.STATE_TTL_S)
        except Conflict as exc:
            raise CircuitOpen(f"circuit {self.name} is being probed by another caller") from exc
        except Exception as exc:
            log_failure("circuit breaker store failed; allowing the call", exc, breaker=self.name)
        return Permit(probe=True)

    def record_success(self, permit: Permit) -> None:
        def closed(value: dict[str, Any]) -> dict[str, Any] | None:
            state = value.get("state")
            if permit.probe or (state == BreakerState.CLOSED and value.get("failures", 0)):
                return {"state": BreakerState.CLOSED.value, "failures": 0}
            return None  # a late success while open does not close the circuit: only the probe does

        self._update(closed)

    def record_failure(self, permit: Permit) -> None:
        def failed(value: dict[str, Any]) -> dict[str, Any] | None:
            opened = {"state": BreakerState.OPEN.value, "since": self._clock()}
            if permit.probe:
                return opened
            if value.get("state", BreakerState.CLOSED) != BreakerState.CLOSED:
                return None
            failures = int(value.get("failures", 0)) + 1
            closed = {"state": BreakerState.CLOSED.value, "failures": failures}
            return opened if failures >= self.failure_threshold else closed

        if self._update(failed) == BreakerState.OPEN.value:
            count(METRIC_CIRCUIT_BREAKER_OPENED)

    def _read(self) -> tuple[dict[str, Any] | None, int]:
        try:
            return self._store.get(self._key)
        except Exception as exc:
            log_failure("circuit breaker store failed; the circuit counts as closed", exc, breaker=self.name)
            return None, -1

    def _update(self, change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> str | None:
        """Compare-and-set loop: concurrent failures from many instances all count. Returns the state written."""
        for _ in range(self.MAX_WRITE_RACES):
            value, version = self._read()
            if version < 0:
                return None
            new_value = change(value or {})
            if new_value is None:
                return None
            try:
                self._store.put(self._key, new_value, expected_version=version, ttl_seconds=self.STATE_TTL_S)
                return str(new_value.get("state"))
            except Conflict:
                continue
            except Exception as exc:
                log_failure("circuit breaker store failed; state not updated", exc, breaker=self.name)
                return None
        return None


class BreakerRegistry:
    """One CircuitBreaker per model name, all on the same shared state."""

    def __init__(self, state: KeyValueState, *, failure_threshold: int = 5, reset_timeout_s: float = 60.0,
                 clock: Callable[[], float] = time.time) -> None:
        self._state = state
        self._options: dict[str, Any] = {"failure_threshold": failure_threshold,
                                         "reset_timeout_s": reset_timeout_s, "clock": clock}
        self._breakers: dict[str, CircuitBreaker] = {}

    def for_model(self, name: str) -> CircuitBreaker:
        if name not in self._breakers:
            self._breakers[name] = CircuitBreaker(self._state, name, **self._options)
        return self._breakers[name]

    def states(self) -> dict[str, BreakerState]:
        """The state of every breaker used so far (for metrics)."""
        return {name: breaker.state() for name, breaker in self._breakers.items()}
