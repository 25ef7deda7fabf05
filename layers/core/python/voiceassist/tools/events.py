"""Tool events for the streaming faces: a call started, a call ended. They carry no argument values (PHI)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolEvent:
    kind: str  # "tool_call" or "tool_result"
    call_id: str
    name: str
    status: int | None = None  # with "tool_result": 200, 202 pending, 4xx, 5xx
    latency_ms: float | None = None

    def as_dict(self) -> dict[str, object]:
        return {key: value for key, value in vars(self).items() if value is not None}


ToolEventListener = Callable[[ToolEvent], None]


class ToolEvents:
    """A small fan-out: the conversation/streaming floor subscribes, the executor emits."""

    def __init__(self) -> None:
        self.listeners: list[ToolEventListener] = []

    def subscribe(self, listener: ToolEventListener) -> None:
        self.listeners.append(listener)

    def emit(self, event: ToolEvent) -> None:
        for listener in self.listeners:
            listener(event)
