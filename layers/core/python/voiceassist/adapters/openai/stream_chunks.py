"""A streamed chat completion in the OpenAI chunk schema (OpenAI, vLLM/SageMaker LMI, Ollama, llama.cpp),
put back together: the text deltas go to `on_text` as they arrive, the tool calls' fragments are joined by
their index, and the last chunk that carries `usage` gives the token counts.

Chunks are plain dicts (the OpenAI SDK's chunk objects through `.model_dump()`, SageMaker's SSE lines as
parsed JSON). Only the first choice is read: we never ask for more than one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from voiceassist.adapters.openai.tool_calls import parse_tool_calls
from voiceassist.models import TokenUsage, ToolCall


@dataclass
class _CallParts:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ChunkAccumulator:
    """Feed it every chunk of one stream (`add`), then read `text`, `model`, the token counts and
    `tool_calls()`. A tool call's name or arguments never reach `on_text`."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        self._on_text = on_text
        self._texts: list[str] = []
        self._calls: dict[int, _CallParts] = {}
        self._last_index: int | None = None
        self.model = ""
        self.prompt_tokens = 0
        self.completion_tokens = 0

    @property
    def text(self) -> str:
        return "".join(self._texts)

    def add(self, chunk: dict[str, Any]) -> None:
        self.model = chunk.get("model") or self.model
        usage = chunk.get("usage")
        if isinstance(usage, dict):  # the final usage chunk (stream_options.include_usage), choices empty
            self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
            self.completion_tokens = int(usage.get("completion_tokens") or 0)
        content = delta_text(chunk)
        if content:
            self._texts.append(content)
            self._on_text(content)
        for fragment in _delta(chunk).get("tool_calls") or ():
            self._add_call_fragment(fragment)

    def token_usage(self) -> TokenUsage:
        """The stream's token counts (0 when the server sent no usage); the cost is the caller's to price."""
        return TokenUsage(prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens)

    def tool_calls(self) -> list[ToolCall]:
        """The joined calls in index order, parsed as a whole reply's calls are (tool_calls.parse_tool_calls)."""
        return parse_tool_calls([{"id": parts.call_id or None,
                                  "function": {"name": parts.name, "arguments": "".join(parts.arguments)}}
                                 for _, parts in sorted(self._calls.items())])

    def _add_call_fragment(self, fragment: dict[str, Any]) -> None:
        index = self._index_of(fragment)
        parts = self._calls.setdefault(index, _CallParts())
        self._last_index = index
        parts.call_id = parts.call_id or str(fragment.get("id") or "")
        function = fragment.get("function") or {}
        # The name comes whole with a call's first fragment; a server that repeats it must not double it.
        parts.name = parts.name or str(function.get("name") or "")
        if function.get("arguments"):
            parts.arguments.append(str(function["arguments"]))

    def _index_of(self, fragment: dict[str, Any]) -> int:
        """The fragment's `index`; a server that leaves it out (one call per chunk) starts a new call with
        each new id and continues the last call otherwise."""
        index = fragment.get("index")
        if isinstance(index, int):
            return index
        call_id = fragment.get("id")
        if self._last_index is None or (call_id and call_id != self._calls[self._last_index].call_id):
            return max(self._calls, default=-1) + 1
        return self._last_index


def delta_text(chunk: dict[str, Any]) -> str | None:
    """The text a chunk adds to the answer, if any."""
    content = _delta(chunk).get("content")
    return content if isinstance(content, str) else None


def _delta(chunk: dict[str, Any]) -> dict[str, Any]:
    choices = chunk.get("choices") or ()  # vLLM's usage chunk may carry "choices": null
    return (choices[0].get("delta") or {}) if choices else {}
