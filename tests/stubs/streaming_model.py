"""An in-process chat model that streams (ports.StreamingChatModel): a script of replies, each text sent to
`on_text` in word pieces, or a failure part-way. It records every call's messages, so PHI tests can inspect
what each model was sent. (The adapters' own streaming is contract-tested against the model stub servers.)"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from voiceassist.errors import ModelUnavailable
from voiceassist.models import ChatCompletion, ChatMessage, TokenUsage, ToolCall, ToolDefinition


@dataclass(frozen=True)
class Streamed:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    fail_after: int | None = None  # send this many pieces, then raise ModelUnavailable
    delay_s: float = 0.0  # before each piece: a model writing at its own pace


def pieces(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


class StreamingModel:
    def __init__(self, name: str, *, in_boundary: bool, script: Sequence[Streamed]) -> None:
        self.name, self.in_boundary = name, in_boundary
        self._script = list(script)
        self._lock = threading.Lock()
        self.calls: list[list[ChatMessage]] = []
        self.streamed_calls = 0

    def _next(self, messages: Sequence[ChatMessage]) -> Streamed:
        with self._lock:
            self.calls.append(list(messages))
            return self._script.pop(0) if len(self._script) > 1 else self._script[0]

    def stream_completion(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] = (), *,
                          on_text: Callable[[str], None], max_tokens: int = 700,
                          temperature: float = 0.1) -> ChatCompletion:
        reply = self._next(messages)
        with self._lock:
            self.streamed_calls += 1
        for number, piece in enumerate(pieces(reply.text)):
            if reply.fail_after is not None and number == reply.fail_after:
                raise ModelUnavailable(f"chat model {self.name} failed part-way (stubbed)")
            time.sleep(reply.delay_s)
            on_text(piece)
        return self._completion(reply)

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        reply = self._next(messages)
        if reply.fail_after is not None:
            raise ModelUnavailable(f"chat model {self.name} failed (stubbed)")
        return self._completion(reply)

    def complete_with_tools(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                            max_tokens: int = 700, temperature: float = 0.1) -> ChatCompletion:
        return self.complete(messages, max_tokens=max_tokens, temperature=temperature)

    def _completion(self, reply: Streamed) -> ChatCompletion:
        return ChatCompletion(text=reply.text, model=self.name, tool_calls=list(reply.tool_calls),
                              usage=TokenUsage(prompt_tokens=100, completion_tokens=len(pieces(reply.text))))
