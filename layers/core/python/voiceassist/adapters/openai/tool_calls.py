"""Tool calls in the OpenAI chat-completions shape (what OpenAI, vLLM/SageMaker LMI, Ollama and llama.cpp
accept): the `tools` list, assistant and tool messages, and the calls a reply asks for."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from voiceassist.models import ChatMessage, ToolCall, ToolDefinition


def tools_payload(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in tools]


def message_payload(message: ChatMessage) -> dict[str, Any]:
    payload: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        payload["content"] = message.content or None
        payload["tool_calls"] = [{"id": c.call_id, "type": "function",
                                  "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                 for c in message.tool_calls]
    if message.tool_call_id:
        payload["tool_call_id"] = message.tool_call_id
    return payload


def parse_tool_calls(raw_calls: Sequence[Any] | None) -> list[ToolCall]:
    """The reply's function calls (SDK objects or JSON dicts); arguments that are not a JSON object become {}
    (the executor then names the missing fields back to the model)."""
    calls: list[ToolCall] = []
    for raw in raw_calls or ():
        function = _field(raw, "function")
        if function is None or not _field(function, "name"):
            continue
        try:
            arguments = json.loads(_field(function, "arguments") or "{}")
        except (json.JSONDecodeError, TypeError):
            arguments = {}
        calls.append(ToolCall(call_id=str(_field(raw, "id") or f"call_{len(calls)}"), name=_field(function, "name"),
                              arguments=arguments if isinstance(arguments, dict) else {}))
    return calls


def _field(value: Any, name: str) -> Any:
    """The SDK's objects (OpenAI) and plain JSON (SageMaker's invoke_endpoint) alike."""
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)
