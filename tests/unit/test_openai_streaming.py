"""OpenAIChatModel.stream_completion (ports.StreamingChatModel) against an in-memory HTTP transport answering
server-sent events in OpenAI's chunk format: text deltas, tool calls in fragments, usage, failures part-way."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from tests.unit.test_openai_chat import MESSAGES, PROMPT_SECRET, Server, model_on
from voiceassist.adapters.openai.chat import OpenAIChatModel
from voiceassist.errors import DependencyError, ModelUnavailable
from voiceassist.models import ToolDefinition
from voiceassist.ports import StreamingChatModel, ToolCallingChatModel

TOOLS = [ToolDefinition(name="bmi", description="Body-mass index",
                        parameters={"type": "object", "properties": {"weight_kg": {"type": "number"}}}),
         ToolDefinition(name="egfr", description="Kidney function", parameters={"type": "object"})]
MODEL = "gpt-4o-mini-2024-07-18"


def chunk(delta: dict[str, Any] | None = None, *, usage: dict[str, int] | None = None,
          finish: str | None = None) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    body: dict[str, Any] = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
                            "choices": choices}
    if usage is not None:
        body["usage"] = usage | {"total_tokens": sum(usage.values())}
    return body


def text(content: str) -> dict[str, Any]:
    return chunk({"content": content})


def call(index: int | None, *, call_id: str | None = None, name: str | None = None,
         arguments: str = "") -> dict[str, Any]:
    fragment: dict[str, Any] = {"function": {"arguments": arguments}}
    if index is not None:
        fragment["index"] = index
    if call_id:
        fragment |= {"id": call_id, "type": "function"}
    if name:
        fragment["function"]["name"] = name
    return chunk({"tool_calls": [fragment]})


USAGE = chunk(usage={"prompt_tokens": 1000, "completion_tokens": 200})


def sse_body(*chunks: dict[str, Any], done: bool = True) -> bytes:
    events = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (events + ("data: [DONE]\n\n" if done else "")).encode()


def streaming(*chunks: dict[str, Any]) -> Server:
    return Server(lambda request: httpx2.Response(200, content=sse_body(*chunks),
                                                  headers={"content-type": "text/event-stream"}))


def stream(model: OpenAIChatModel, tools: list[ToolDefinition] | None = None,
           **options: Any) -> tuple[Any, list[str]]:
    received: list[str] = []
    completion = model.stream_completion(MESSAGES, tools or (), on_text=received.append, **options)
    return completion, received


def test_the_openai_model_is_a_streaming_tool_calling_model() -> None:
    model = model_on(streaming())

    assert isinstance(model, StreamingChatModel) and isinstance(model, ToolCallingChatModel)


def test_text_arrives_in_order_and_the_completion_has_the_usage_and_cost() -> None:
    server = streaming(chunk({"role": "assistant", "content": ""}), text("Metformin: "), text("2,000 mg"),
                       text(" per day [1]."), chunk({}, finish="stop"), USAGE)

    completion, received = stream(model_on(server), max_tokens=300, temperature=0.0)

    assert received == ["Metformin: ", "2,000 mg", " per day [1]."]
    assert completion.text == "".join(received) and completion.tool_calls == []
    assert completion.model == MODEL
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (1000, 200)
    assert completion.usage.cost_usd == pytest.approx(1000 / 1000 * 0.00015 + 200 / 1000 * 0.0006)


def test_the_request_is_the_tool_calling_request_streamed() -> None:
    server = streaming(text("ok"), USAGE)

    stream(model_on(server), TOOLS, max_tokens=300, temperature=0.0)

    body = server.body()
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert [tool["function"]["name"] for tool in body["tools"]] == ["bmi", "egfr"]
    assert body["max_completion_tokens"] == 300 and body["temperature"] == 0.0
    assert body["messages"] == [m.model_dump(include={"role", "content"}) for m in MESSAGES]


def test_without_tools_no_tools_are_sent() -> None:
    server = streaming(text("ok"))

    stream(model_on(server))

    assert "tools" not in server.body() and server.body()["stream"] is True


def test_tool_call_fragments_are_joined_by_index_and_never_reach_on_text() -> None:
    server = streaming(
        text("Let me compute that."),
        call(0, call_id="call_a", name="bmi", arguments=""),
        call(0, arguments='{"weight'), call(0, arguments='_kg": 7'), call(0, arguments="0}"),
        call(1, call_id="call_b", name="egfr", arguments='{"creatinine": 1.1}'),
        chunk({}, finish="tool_calls"), USAGE)

    completion, received = stream(model_on(server), TOOLS)

    assert received == ["Let me compute that."] and completion.text == "Let me compute that."
    assert [(c.call_id, c.name, c.arguments) for c in completion.tool_calls] == [
        ("call_a", "bmi", {"weight_kg": 70}), ("call_b", "egfr", {"creatinine": 1.1})]


def test_calls_without_an_index_are_told_apart_by_their_id() -> None:
    """Some servers (older Ollama) send each call whole in one chunk, without `index`."""
    server = streaming(call(None, call_id="c1", name="bmi", arguments='{"weight_kg": 70}'),
                       call(None, call_id="c2", name="egfr", arguments="{}"))

    completion, received = stream(model_on(server), TOOLS)

    assert received == [] and completion.text == ""
    assert [(c.call_id, c.name, c.arguments) for c in completion.tool_calls] == [
        ("c1", "bmi", {"weight_kg": 70}), ("c2", "egfr", {})]


def test_arguments_that_are_not_a_json_object_become_empty() -> None:
    server = streaming(call(0, call_id="c1", name="bmi", arguments='{"weight_kg": '))

    (tool_call,) = stream(model_on(server), TOOLS)[0].tool_calls

    assert (tool_call.name, tool_call.arguments) == ("bmi", {})


def test_a_stream_without_a_usage_chunk_reports_no_tokens() -> None:
    local = OpenAIChatModel("llama3.1:8b", in_boundary=True, base_url="http://ollama.internal:11434/v1",
                            http_client=httpx2.Client(transport=httpx2.MockTransport(
                                streaming(text("Answer "), text("[1].")))))

    completion, received = stream(local, max_tokens=50)

    assert completion.text == "Answer [1]." and completion.model == MODEL
    assert completion.usage.model_dump() == {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}


def test_an_error_event_part_way_is_transient_and_keeps_what_arrived() -> None:
    server = streaming(text("Partial "), {"error": {"message": f"failed on {PROMPT_SECRET}", "type": "server_error"}})

    with pytest.raises(ModelUnavailable) as raised:
        model_on(server).stream_completion(MESSAGES, TOOLS, on_text=(received := []).append)

    assert received == ["Partial "]
    assert PROMPT_SECRET not in str(raised.value) and raised.value.__suppress_context__


def test_a_connection_cut_part_way_is_transient() -> None:
    def body() -> Iterator[bytes]:
        yield sse_body(text("Partial "), done=False)
        raise httpx2.ReadError(f"connection reset while sending {PROMPT_SECRET}")

    server = Server(lambda request: httpx2.Response(200, content=body(),
                                                    headers={"content-type": "text/event-stream"}))

    with pytest.raises(ModelUnavailable) as raised:
        model_on(server).stream_completion(MESSAGES, on_text=(received := []).append)

    assert received == ["Partial "] and PROMPT_SECRET not in str(raised.value)


@pytest.mark.parametrize(("status", "error"), [(500, ModelUnavailable), (429, ModelUnavailable),
                                               (400, DependencyError)])
def test_an_http_error_before_the_stream_is_mapped_without_the_server_text(status: int,
                                                                           error: type[Exception]) -> None:
    server = Server(lambda request: httpx2.Response(status, json={"error": {"message": PROMPT_SECRET}}))

    with pytest.raises(error) as raised:
        stream(model_on(server), TOOLS)

    assert type(raised.value) is error and f"HTTP {status}" in str(raised.value)
    assert PROMPT_SECRET not in str(raised.value) and len(server.requests) == 1


def test_a_failing_on_text_is_the_callers_error_not_the_models() -> None:
    class Hangup(Exception):
        pass

    def on_text(piece: str) -> None:
        raise Hangup(piece)

    with pytest.raises(Hangup):
        model_on(streaming(text("a"), text("b"))).stream_completion(MESSAGES, on_text=on_text)
