"""The OpenAI request options the chat completions honour or refuse: none is accepted and silently ignored.

- `max_tokens` / `max_completion_tokens` (the smaller when both come) are honoured: the content (answer and
  Sources list) is cut at that many cl100k_base tokens, the tokenizer `usage` counts with, and finish_reason is
  "length", streamed or not.
- `response_format` {"type": "text"} is what every answer is; "json_object" and "json_schema" are refused: the
  answer is checked, cited prose, and no step could guarantee it parses as JSON.
- `tool_choice` "auto" and "none" are honoured (this API never calls a client's tools, which "auto" allows);
  "required" or a named function is refused: a tool call it must make would never come. So is the legacy
  `function_call` naming a function, and `web_search_options` (no web search runs here).
- `stop` (a string or up to 4, OpenAI's limit) is honoured: the content ends where a stop sequence first begins,
  without it, finish_reason "stop"; a stream holds back text that could begin one, so it sends exactly the plain
  content.
- `logprobs` / `top_logprobs`, an audio answer (`modalities` with "audio", `audio`) and a non-empty `logit_bias` are
  refused: the answer is retrieved and checked, not sampled token by token, so there are no token probabilities
  and no bias to apply (a banned token could still appear), and it is text (spoken answers: POST /v1/voice/query).
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
MAX_STOP_SEQUENCES = 4  # OpenAI's limit
NAMED_IN_REFUSALS = ("json_object", "json_schema", "required", "function")  # OpenAI's words; nothing else is echoed


def refuse_unsupported(*, response_format: Any, tool_choice: Any, max_tokens: Any,
                       max_completion_tokens: Any, logprobs: Any = None, top_logprobs: Any = None,
                       modalities: Any = None, audio: Any = None, logit_bias: Any = None,
                       function_call: Any = None, web_search_options: Any = None) -> None:
    """Raise UnsupportedParameter, naming the option and what is supported, for an option that cannot be honoured.
    A refusal quotes only OpenAI's own option values, never free text a client put there."""
    if logprobs not in (None, False):
        raise UnsupportedParameter("logprobs", "logprobs is not supported: the answer is retrieved and checked, not "
                                   "sampled token by token; send false or leave logprobs out")
    if top_logprobs not in (None, 0):
        raise UnsupportedParameter("top_logprobs", "top_logprobs is not supported: the answer is retrieved and "
                                   "checked, not sampled token by token; leave top_logprobs out")
    if modalities is not None and modalities != ["text"]:
        raise UnsupportedParameter("modalities", "only the text modality is supported: send [\"text\"] or leave "
                                   "modalities out (a spoken answer: POST /v1/voice/query with Accept: audio/wav)")
    if audio is not None:
        raise UnsupportedParameter("audio", "audio output is not supported: leave audio out (a spoken answer: POST "
                                   "/v1/voice/query with Accept: audio/wav)")
    if logit_bias is not None and logit_bias != {}:
        raise UnsupportedParameter("logit_bias", "logit_bias is not supported: the answer is not sampled, so no bias "
                                   "can be applied; leave logit_bias out")
    kind = response_format.get("type") if isinstance(response_format, dict) else response_format
    if response_format is not None and kind not in RESPONSE_FORMATS:
        raise UnsupportedParameter("response_format", f"response_format {_quoted(kind)} is not supported: the "
                                   "answer is cited prose and cannot be guaranteed to be JSON; send "
                                   "{\"type\": \"text\"} or leave response_format out")
    if tool_choice is not None and tool_choice not in TOOL_CHOICES:
        named = tool_choice.get("type") if isinstance(tool_choice, dict) else tool_choice
        raise UnsupportedParameter("tool_choice", f"tool_choice {_quoted(named)} is not supported: this API never "
                                   "calls the client's tools; send \"auto\" or \"none\" or leave tool_choice out")
    if function_call is not None and function_call not in TOOL_CHOICES:  # the legacy tool_choice
        raise UnsupportedParameter("function_call", "a named function_call is not supported: this API never calls "
                                   "the client's functions; send \"auto\" or \"none\" or leave function_call out")
    if web_search_options is not None:
        raise UnsupportedParameter("web_search_options", "web search is not supported here: the answer comes from the "
                                   "knowledge base, with citations; leave web_search_options out")
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


def stop_sequences(stop: Any) -> tuple[str, ...]:
    """OpenAI's `stop` (null, a string, or a list of up to 4 strings) as a tuple; anything else is refused with a
    400 naming `stop` (`invalid_value`), without quoting it."""
    if stop is None:
        return ()
    sequences = [stop] if isinstance(stop, str) else stop
    if (not isinstance(sequences, list) or len(sequences) > MAX_STOP_SEQUENCES
            or not all(isinstance(s, str) and s for s in sequences)):
        raise InvalidParameter("stop", f"stop must be a non-empty string or a list of up to {MAX_STOP_SEQUENCES} "
                               "non-empty strings")
    return tuple(sequences)


def _quoted(value: Any) -> str:
    return repr(value) if value in NAMED_IN_REFUSALS else "of this type"


def token_limit(max_tokens: int | None, max_completion_tokens: int | None) -> int | None:
    """The content's token limit: the smaller of the two when both come, None when neither does."""
    given = [value for value in (max_tokens, max_completion_tokens) if value is not None]
    return min(given) if given else None


def before_stop(content: str, stops: tuple[str, ...]) -> str:
    """The content up to where a stop sequence first begins (all of it when none occurs)."""
    found = [at for at in (content.find(stop) for stop in stops) if at >= 0]
    return content[:min(found)] if found else content


def limit_content(content: str, limit: int | None, stops: tuple[str, ...] = ()) -> tuple[str, str]:
    """The content before the first stop sequence and within `limit` tokens, and its finish_reason: "length" when
    the limit cut it, else "stop"."""
    content = before_stop(content, stops)
    if limit is None or count_tokens(content) <= limit:
        return content, "stop"
    return first_tokens(content, limit), "length"


class ContentBudget:
    """A stream's side of `limit_content`: passes pieces while their text stays before any stop sequence and within
    the limit, holds back text that could begin a stop sequence, and at the end gives the tail that makes the
    streamed text the plain completion's content."""

    def __init__(self, limit: int | None, stops: tuple[str, ...] = ()) -> None:
        self.limit = limit
        self.stops = stops
        self.sent = ""
        self.held = ""  # received, not sent: it could be the start of a stop sequence
        self.exhausted = False

    def admit(self, piece: str) -> str:
        """The part of `piece` to send now ("" once a stop sequence or the limit is reached)."""
        if self.exhausted:
            return ""
        if self.stops:
            pending = self.held + piece
            stopped = before_stop(self.sent + pending, self.stops)[len(self.sent):]  # none can begin in `sent`
            if len(stopped) < len(pending):
                piece, self.held, self.exhausted = stopped, "", True
            else:
                kept = self._could_begin_stop(pending)
                piece, self.held = pending[:len(pending) - kept], pending[len(pending) - kept:]
        if self.limit is not None and count_tokens(self.sent + piece) > self.limit:
            self.exhausted = True  # the exact cut waits for the whole content (a token may span two pieces)
            return ""
        self.sent += piece
        return piece

    def _could_begin_stop(self, text: str) -> int:
        """The length of the longest end of `text` that is the beginning of a stop sequence (0: none)."""
        longest = max(len(stop) for stop in self.stops) - 1
        for size in range(min(longest, len(text)), 0, -1):
            if any(stop.startswith(text[-size:]) for stop in self.stops):
                return size
        return 0

    def finish(self, answer: str, listed: str) -> tuple[str, str]:
        """Given the answer (whose tokens came through `admit`) and its Sources list, the tail still to send and the
        finish_reason: the Sources list when all fits, else the rest of the plain completion's cut content (what a
        stop sequence or the limit left of it)."""
        cut, reason = limit_content(answer + listed, self.limit, self.stops)
        if reason == "stop" and not self.stops:
            tail = listed
        elif cut.startswith(self.sent):
            tail = cut[len(self.sent):]
        else:  # a piece sent in full that the whole content's tokens cut: nothing more to send
            tail = ""
        self.sent += tail
        return tail, reason
