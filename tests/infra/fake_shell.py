"""A scripted stand-in for the AWS CLI, the CDK CLI, Docker and make: answers by command prefix, records calls."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from infra.ops.shell import CommandFailed, Shell

Answer = Any  # a JSON-able value, a string, a CommandFailed-like (code, message), or a callable of argv


class FakeShell(Shell):
    def __init__(self, answers: dict[tuple[str, ...], Answer] | None = None) -> None:
        super().__init__("us-east-1", echo=False)
        self.answers: dict[tuple[str, ...], Answer] = dict(answers or {})
        self.calls: list[list[str]] = []

    def run(self, argv: Sequence[str], *, stream: bool = False) -> str:
        argv = list(argv)
        self.calls.append(argv)
        key = max((k for k in self.answers if tuple(argv[:len(k)]) == k), key=len, default=None)
        if key is None:
            raise AssertionError(f"unscripted command: {argv}")
        answer = self.answers[key]
        if callable(answer):
            answer = answer(argv)
        if isinstance(answer, Failure):
            raise CommandFailed(argv, 254, answer.message)
        return answer if isinstance(answer, str) else json.dumps(answer)

    def ran(self, *prefix: str) -> list[list[str]]:
        return [call for call in self.calls if tuple(call[:len(prefix)]) == prefix]


class Failure:
    def __init__(self, message: str) -> None:
        self.message = message


def sequence(*answers: Answer) -> Callable[[list[str]], Answer]:
    """Successive answers to the same command (the last one repeats)."""
    remaining = list(answers)

    def next_answer(_argv: list[str]) -> Answer:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]

    return next_answer
