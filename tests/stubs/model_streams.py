"""The streamed answers OpenAIStub sends, as the real services put them on the wire.

- OpenAI chat completions with `stream: true`: server-sent events of `chat.completion.chunk`s (a role chunk, the
  text or the tool calls in pieces, a finish chunk, with `stream_options.include_usage` a last chunk with
  `choices: []` and the usage), then `data: [DONE]`. A failure part-way is a `data: {"error": {...}}` line.
- SageMaker InvokeEndpointWithResponseStream (an LMI/vLLM container): the same SSE bytes carried in `PayloadPart`
  events, cut at arbitrary byte offsets (mid-line, mid-character); a failure part-way is a `ModelStreamError`.
- Bedrock ConverseStream: `messageStart`, per content block `contentBlockStart` (tool use only: a text block has
  none), `contentBlockDelta`s and `contentBlockStop`, then `messageStop` and `metadata`; a failure part-way is a
  `modelStreamErrorException`.

Each stream is a sequence of byte strings to write, with PAUSE where a reply's `token_delay_s` goes: between two
pieces of the answer. A piece is a word of the text (with the whitespace before it), a tool call's opening (its
id and name) or a fragment of its arguments' JSON; `fail_after_tokens` counts them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tests.stubs.aws_event_stream import event_message, json_event

if TYPE_CHECKING:
    from tests.stubs.openai_stub import StubReply

FAILURE_MESSAGE = "stubbed failure mid-stream"
ARGUMENT_FRAGMENT_CHARS = 7  # a tool call's arguments arrive in fragments this long (cut inside keys and strings)
BEDROCK_PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123"  # the "p" field Bedrock pads events with


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


PAUSE = _Marker("PAUSE")  # where the stub waits token_delay_s (nothing is written)
FAILED = _Marker("FAILED")  # where a reply with fail_after_tokens breaks off


def text_pieces(text: str) -> list[str]:
    """Word-sized pieces, each with the whitespace before it, that join to exactly `text`."""
    return re.findall(r"\s*\S+|\s+", text)


def argument_fragments(arguments: dict[str, Any]) -> list[str]:
    encoded = json.dumps(arguments)
    return [encoded[i:i + ARGUMENT_FRAGMENT_CHARS] for i in range(0, len(encoded), ARGUMENT_FRAGMENT_CHARS)]


def _with_failure(pieces: Iterator[Any], fail_after: int | None) -> Iterator[Any]:
    """The pieces with PAUSE between them, cut off by FAILED after `fail_after` of them."""
    for count, piece in enumerate(pieces):
        if count == fail_after:
            yield FAILED
            return
        if count:
            yield PAUSE
        yield piece
    if fail_after is not None:  # asked to fail after as many pieces as there are, or more: fail at the end
        yield FAILED


# --------------------------------------------------------------------------- OpenAI chunks


def openai_chunks(reply: StubReply, model: str, *, include_usage: bool) -> Iterator[Any]:
    """Chunk dicts, PAUSE and FAILED, as an OpenAI server (or vLLM) streams the reply."""

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        body = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]}
        return body | {"usage": None} if include_usage else body

    yield chunk({"role": "assistant", "content": None if reply.tool_calls else ""})
    for item in _with_failure(_openai_deltas(reply), reply.fail_after_tokens):
        yield chunk(item) if isinstance(item, dict) else item
        if item is FAILED:
            return
    yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
    if include_usage:
        usage = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                 "total_tokens": reply.prompt_tokens + reply.completion_tokens}
        yield {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [], "usage": usage}


def _openai_deltas(reply: StubReply) -> Iterator[dict[str, Any]]:
    if not reply.tool_calls:
        yield from ({"content": piece} for piece in text_pieces(reply.text))
        return
    for index, (name, arguments) in enumerate(reply.tool_calls):
        yield {"tool_calls": [{"index": index, "id": f"call_{index}", "type": "function",
                               "function": {"name": name, "arguments": ""}}]}
        for fragment in argument_fragments(arguments):
            yield {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}


def sse_line(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)  # raw UTF-8, as vLLM
    return f"data: {data}\n\n".encode()


def _error_line() -> bytes:
    return sse_line({"error": {"message": FAILURE_MESSAGE, "type": "server_error", "param": None, "code": None}})


def openai_sse(reply: StubReply, model: str, *, include_usage: bool) -> Iterator[Any]:
    for item in openai_chunks(reply, model, include_usage=include_usage):
        if item is FAILED:
            yield _error_line()  # and the server closes the stream (no [DONE])
            return
        yield item if item is PAUSE else sse_line(item)
    yield sse_line("[DONE]")


# --------------------------------------------------------------------------- SageMaker


def byte_cuts(data: bytes) -> list[bytes]:
    """`data` cut in three at a third and two thirds, and inside its first multi-byte character if it has one."""
    cuts = {len(data) // 3, 2 * len(data) // 3}
    first_non_ascii = next((i for i, byte in enumerate(data) if byte >= 0x80), None)
    if first_non_ascii is not None:
        cuts.add(first_non_ascii + 1)
    bounds = [0, *sorted(cut for cut in cuts if 0 < cut < len(data)), len(data)]
    return [data[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]


def sagemaker_events(reply: StubReply, model: str, *, include_usage: bool) -> Iterator[Any]:
    """The SSE bytes in PayloadPart events: what is written between two pauses, cut at arbitrary offsets."""
    if reply.raw_body is not None:
        yield from (event_message("PayloadPart", part) for part in byte_cuts(reply.raw_body.encode()))
        return
    pending = b""
    for item in openai_chunks(reply, model, include_usage=include_usage):
        if item is PAUSE or item is FAILED:
            yield from (event_message("PayloadPart", part) for part in byte_cuts(pending))
            pending = b""
            if item is FAILED:
                error = {"Message": FAILURE_MESSAGE, "ErrorCode": "ModelStreamError"}
                yield event_message("ModelStreamError", json.dumps(error).encode(), message_type="exception",
                                    content_type="application/json")
                return
            yield PAUSE
        else:
            pending += sse_line(item)
    yield from (event_message("PayloadPart", part) for part in byte_cuts(pending + sse_line("[DONE]")))


# --------------------------------------------------------------------------- Bedrock


def _bedrock_event(event_type: str, body: dict[str, Any]) -> bytes:
    return json_event(event_type, body | {"p": BEDROCK_PADDING[:len(event_type) + 10]})


def bedrock_events(reply: StubReply) -> Iterator[Any]:
    yield _bedrock_event("messageStart", {"role": "assistant"})
    for item in _with_failure(_bedrock_blocks(reply), reply.fail_after_tokens):
        if item is FAILED:
            yield json_event("modelStreamErrorException", {"message": FAILURE_MESSAGE, "originalStatusCode": 500,
                                                           "originalMessage": FAILURE_MESSAGE}, exception=True)
            return
        yield item
    usage = {"inputTokens": reply.prompt_tokens, "outputTokens": reply.completion_tokens,
             "totalTokens": reply.prompt_tokens + reply.completion_tokens}
    yield _bedrock_event("messageStop", {"stopReason": "tool_use" if reply.tool_calls else "end_turn"})
    yield _bedrock_event("metadata", {"usage": usage, "metrics": {"latencyMs": 1}})


def _bedrock_blocks(reply: StubReply) -> Iterator[bytes]:
    """One write per piece: its delta, or a tool call's start; a block's stop goes with its last delta."""
    if not reply.tool_calls:
        yield from _bedrock_deltas(0, [{"text": piece} for piece in text_pieces(reply.text)])
        return
    for index, (name, arguments) in enumerate(reply.tool_calls):
        yield _bedrock_event("contentBlockStart", {"contentBlockIndex": index, "start": {
            "toolUse": {"toolUseId": f"tooluse_{index}", "name": name}}})
        yield from _bedrock_deltas(index, [{"toolUse": {"input": fragment}}
                                           for fragment in argument_fragments(arguments)])


def _bedrock_deltas(index: int, deltas: list[dict[str, Any]]) -> Iterator[bytes]:
    for n, delta in enumerate(deltas):
        event = _bedrock_event("contentBlockDelta", {"contentBlockIndex": index, "delta": delta})
        last = n == len(deltas) - 1
        yield event + (_bedrock_event("contentBlockStop", {"contentBlockIndex": index}) if last else b"")
