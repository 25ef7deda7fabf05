"""Reads an ASL definition the way the contract test needs: its placeholders and its dangling transitions."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


def placeholders(node: Any) -> set[str]:
    """Every ${Name} anywhere in the definition (Parallel branches and Map processors included)."""
    if isinstance(node, str):
        return set(PLACEHOLDER.findall(node))
    if isinstance(node, dict):
        return set().union(*(placeholders(k) | placeholders(v) for k, v in node.items()))
    if isinstance(node, list):
        return set().union(*(placeholders(item) for item in node))
    return set()


def dangling_transitions(definition: dict[str, Any], scope: str = "top") -> list[str]:
    """`scope: state -> target` for every StartAt, Next, Default and Catch.Next naming no state in scope."""
    problems: list[str] = []
    states: dict[str, Any] = definition.get("States", {})
    if definition.get("StartAt") not in states:
        problems.append(f"{scope}: StartAt -> {definition.get('StartAt')}")
    for name, state in states.items():
        for target in _targets(state):
            if target not in states:
                problems.append(f"{scope}: {name} -> {target}")
        for index, branch in enumerate(state.get("Branches", [])):
            problems += dangling_transitions(branch, f"{scope}/{name}[{index}]")
        for key in ("ItemProcessor", "Iterator"):
            if key in state:
                problems += dangling_transitions(state[key], f"{scope}/{name}")
    return problems


def _targets(state: dict[str, Any]) -> Iterator[str]:
    if "Next" in state:
        yield state["Next"]
    if "Default" in state:
        yield state["Default"]
    for choice in state.get("Choices", []):
        if "Next" in choice:
            yield choice["Next"]
    for catcher in state.get("Catch", []):
        yield catcher["Next"]
