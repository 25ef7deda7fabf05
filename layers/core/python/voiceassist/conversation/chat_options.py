"""The OpenAI request options the chat completions honour or refuse: none is accepted and silently ignored.

- `max_tokens` / `max_completion_tokens` (the smaller when both come) are honoured: the content (answer and
  Sources list) is cut at that many cl100k_base tokens, the tokenizer `usage` counts with, and finish_reason is
  "length", streamed or not.
- `response_format` {"type": "text"} is what every answer is; "json_object" and "json_schema" are refused: the
  answer is checked, cited prose, and no step could guarantee it parses as JSON.
- `tool_choice` "auto" and "none" are honoured (this API never calls a client's tools, which "auto" allows);
  "required" or a named function is refused: a tool call it must make would never come.
- `temperature`, `top_p`, `presence_penalty`, `frequency_penalty` and `seed` are taken within OpenAI's ranges
  (its API reference, Chat Completions: create) and change nothing: the answer is retrieved, composed and
  checked, not sampled; outside them (or not a number) they are refused with a 400 naming the option
  (`invalid_value`), as OpenAI refuses them.
"""

from __future__ import annotations

import math
from typing import Any

from voiceassist.errors import InvalidParameter, UnsupportedParameter
from voiceassist.query.generation import count_tokens, first_tokens

RESPONSE_FORMATS = ("text",)
TOOL_CHOICES = ("auto", "none")
# OpenAI's ranges (inclusive) for the sampling options; seed is a 64-bit signed whole number
SAMPLING_RANGES: dict[str, tuple[float, float]] = {"temperature": (0, 2), "top_p": (0, 1),
                                                   "presence_penalty": (-2, 2), "frequency_penalty": (-2, 2)}
SEED_RANGE = (-(2**63), 2**63 - 1)
NAMED_IN_REFUSALS = ("json_object", "json_schema", "required", "function")  # OpenAI's words; nothing else is echoed


def refuse_unsupported(*, response_format: Any, tool_choice: Any, max_tokens: Any,
                       max_completion_tokens: Any) -> None:
    """Raise UnsupportedParameter, naming the option and what is supported, for an option that cannot be honoured.
    A refusal quotes only OpenAI's own option values, never free text a client put there."""
    kind = response_format.get("type") if isinstance(response_format, dict) else response_format
    if response_format is not None and kind not in RESPONSE_FORMATS:
        raise UnsupportedParameter("response_format", f"response_format {_quoted(kind)} is not supported: the "
                                   "answer is cited prose and cannot be guaranteed to be JSON; send "
                                   "{\"type\": \"text\"} or leave response_format out")
    if tool_choice is not None and tool_choice not in TOOL_CHOICES:
        named = tool_choice.get("type") if isinstance(tool_choice, dict) else tool_choice
        raise UnsupportedParameter("tool_choice", f"tool_choice {_quoted(named)} is not supported: this API never "
                                   "calls the client's tools; send \"auto\" or \"none\" or leave tool_choice out")
    for name, value in (("max_tokens", max_tokens), ("max_completion_tokens", max_completion_tokens)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise UnsupportedParameter(name, f"{name} must be a whole number of at least 1")


def refuse_out_of_range(sampling: dict[str, Any]) -> None:
    """Raise InvalidParameter for a sampling option (by name, None: left out) outside OpenAI's range. A number is
    quoted back; anything else (free text) is not."""
    for name, value in sampling.items():
        if value is None:
            continue
        number = not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
        got = f" (got {value})" if number else ""
        if name == "seed":
            if not number or not isinstance(value, int) or not SEED_RANGE[0] <= value <= SEED_RANGE[1]:
                raise InvalidParameter(name, f"seed must be a whole number from {SEED_RANGE[0]} to "
                                       f"{SEED_RANGE[1]}{got}")
            continue
        low, high = SAMPLING_RANGES[name]
        if not number or not low <= value <= high:
            raise InvalidParameter(name, f"{name} must be a number from {low:g} to {high:g}{got}")


def _quoted(value: Any) -> str:
    return repr(value) if value in NAMED_IN_REFUSALS else "of this type"


def token_limit(max_tokens: int | None, max_completion_tokens: int | None) -> int | None:
    """The content's token limit: the smaller of the two when both come, None when neither does."""
    given = [value for value in (max_tokens, max_completion_tokens) if value is not None]
    return min(given) if given else None


def limit_content(content: str, limit: int | None) -> tuple[str, str]:
    """The content within `limit` tokens and its finish_reason: "length" when it was cut, else "stop"."""
    if limit is None or count_tokens(content) <= limit:
        return content, "stop"
    return first_tokens(content, limit), "length"


class ContentBudget:
    """A stream's side of `limit_content`: passes pieces while their text stays within the limit, holds the rest,
    and at the end gives the tail that makes the streamed text the plain completion's cut content."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.sent = ""
        self.exhausted = False

    def admit(self, piece: str) -> str:
        """The part of `piece` to send now ("" once the limit is reached)."""
        if self.exhausted:
            return ""
        if self.limit is not None and count_tokens(self.sent + piece) > self.limit:
            self.exhausted = True  # the exact cut waits for the whole content (a token may span two pieces)
            return ""
        self.sent += piece
        return piece

    def finish(self, answer: str, listed: str) -> tuple[str, str]:
        """Given the answer (whose tokens came through `admit`) and its Sources list, the tail still to send and the
        finish_reason: the Sources list when all fits, else the rest of the plain completion's cut content."""
        cut, reason = limit_content(answer + listed, self.limit)
        if reason == "stop":
            tail = listed
        elif cut.startswith(self.sent):
            tail = cut[len(self.sent):]
        else:  # a piece sent in full that the whole content's tokens cut: nothing more to send
            tail = ""
        self.sent += tail
        return tail, reason
