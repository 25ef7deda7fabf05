"""OpenAIStub's streamed answers, read by the real clients over HTTP: the openai SDK (`stream=True`), boto3's
sagemaker-runtime InvokeEndpointWithResponseStream and bedrock-runtime ConverseStream. What the clients put
together must be the reply the stub was given, and each mid-stream failure must surface as the client raises it
for the real service."""

from __future__ import annotations

import json
from typing import Any

import boto3
import openai
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError, EventStreamError

from tests.stubs.model_streams import FAILURE_MESSAGE
from tests.stubs.openai_stub import OpenAIStub, StubReply

TEXT = " Give 0.01 mg/kg  (max 0.5 mg) IM; 5 µg [1]. "  # leading, doubled and trailing spaces, a 2-byte character
TOOL_CALLS = (("bmi", {"weight_kg": 82.5, "height_m": 1.78}),
              ("search_guidelines", {"query": "anaphylaxis adrenaline dose", "limit": 3}))
PHI_QUESTION = "Jane Roe MRN 5520117: adrenaline dose?"
MESSAGES: list[Any] = [{"role": "user", "content": PHI_QUESTION}]
ENDPOINT = "voiceassist-dev-llm"
MODEL_ID = "us.meta.llama3-1-8b-instruct-v1:0"


def _openai(stub: OpenAIStub, *, timeout_s: float = 10) -> openai.OpenAI:
    return openai.OpenAI(base_url=stub.base_url, api_key="x", max_retries=0, timeout=timeout_s)


def _boto(service: str, stub: OpenAIStub) -> Any:
    config = Config(retries={"total_max_attempts": 1}, read_timeout=20)
    return boto3.client(service, endpoint_url=stub.origin, region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing", config=config)


def _reassemble(tool_deltas: list[Any]) -> dict[int, dict[str, str]]:
    calls: dict[int, dict[str, str]] = {}
    for delta in tool_deltas:
        call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
        call["id"] += delta.id or ""
        call["name"] += delta.function.name or ""
        call["arguments"] += delta.function.arguments or ""
    return calls


# --------------------------------------------------------------------------- OpenAI chat completions


def test_openai_stream_joins_to_the_text_and_ends_with_the_usage_chunk() -> None:
    with OpenAIStub([StubReply(text=TEXT, prompt_tokens=321, completion_tokens=12)]) as stub:
        chunks = list(_openai(stub).chat.completions.create(
            model="m", messages=MESSAGES, stream=True, stream_options={"include_usage": True}))

    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert "".join(pieces) == TEXT and len(pieces) >= 3
    assert {c.model for c in chunks} == {stub.model}
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (321, 12)
    assert stub.requests[0]["stream"] is True and stub.requests[0]["messages"] == MESSAGES


def test_openai_stream_without_include_usage_sends_no_usage_chunk() -> None:
    with OpenAIStub([StubReply(text=TEXT)]) as stub:
        chunks = list(_openai(stub).chat.completions.create(model="m", messages=MESSAGES, stream=True))

    assert all(c.choices and c.usage is None for c in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == TEXT


def test_openai_stream_of_tool_calls_reassembles_to_the_calls() -> None:
    with OpenAIStub([StubReply(tool_calls=TOOL_CALLS)]) as stub:
        chunks = list(_openai(stub).chat.completions.create(
            model="m", messages=MESSAGES, stream=True, stream_options={"include_usage": True}))

    deltas = [d for c in chunks if c.choices for d in c.choices[0].delta.tool_calls or ()]
    calls = _reassemble(deltas)
    assert [(calls[i]["name"], json.loads(calls[i]["arguments"])) for i in sorted(calls)] == list(TOOL_CALLS)
    assert calls[0]["id"] != calls[1]["id"]
    assert len([d for d in deltas if d.index == 0 and d.function and d.function.arguments]) > 1  # several fragments
    assert not any(c.choices and c.choices[0].delta.content for c in chunks)
    assert chunks[-2].choices[0].finish_reason == "tool_calls"


def test_openai_stream_failing_mid_way_raises_api_error_after_the_pieces_sent() -> None:
    received: list[str] = []
    with OpenAIStub([StubReply(text=TEXT, fail_after_tokens=2)]) as stub, \
            pytest.raises(openai.APIError, match=FAILURE_MESSAGE):
        for chunk in _openai(stub).chat.completions.create(model="m", messages=MESSAGES, stream=True):
            received.append(chunk.choices[0].delta.content or "")

    assert "".join(received) == " Give 0.01"  # two pieces


def test_openai_stream_token_delay_is_cut_short_when_the_stub_stops() -> None:
    stub = OpenAIStub([StubReply(text=TEXT, token_delay_s=60)])
    with stub:
        stream = iter(_openai(stub, timeout_s=20).chat.completions.create(model="m", messages=MESSAGES, stream=True))
        first = [next(stream).choices[0].delta.content for _ in range(2)]  # the role chunk, then the first piece
    rest = list(stream)  # would time out (APITimeoutError) if the 60 s pause were not interrupted

    assert first == ["", " Give"] and rest == []


# --------------------------------------------------------------------------- SageMaker


def _sse_chunks(payload: bytes) -> list[Any]:
    events = [block for block in payload.decode().split("\n\n") if block]
    assert all(block.startswith("data: ") for block in events)
    assert events[-1] == "data: [DONE]"
    return [json.loads(block.removeprefix("data: ")) for block in events[:-1]]


def test_sagemaker_stream_carries_openai_sse_cut_mid_line() -> None:
    body = json.dumps({"messages": MESSAGES, "stream": True, "stream_options": {"include_usage": True}})
    with OpenAIStub([StubReply(text=TEXT, completion_tokens=12)]) as stub:
        response = _boto("sagemaker-runtime", stub).invoke_endpoint_with_response_stream(
            EndpointName=ENDPOINT, ContentType="application/json", Body=body)
        parts = [event["PayloadPart"]["Bytes"] for event in response["Body"]]

    chunks = _sse_chunks(b"".join(parts))
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == TEXT
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 12
    assert {c["model"] for c in chunks} == {stub.model}
    assert any(not part.endswith(b"\n\n") for part in parts)  # parts end mid-line

    def decodes(part: bytes) -> bool:
        try:
            part.decode()
        except UnicodeDecodeError:
            return False
        return True

    assert not all(decodes(part) for part in parts)  # and one ends inside "µ"
    assert stub.requests[0]["messages"] == MESSAGES
    assert stub.raw_requests[0].path == f"/endpoints/{ENDPOINT}/invocations-response-stream"
    assert PHI_QUESTION in stub.raw_requests[0].body


def test_sagemaker_stream_of_tool_calls_reassembles_to_the_calls() -> None:
    with OpenAIStub([StubReply(tool_calls=TOOL_CALLS)]) as stub:
        response = _boto("sagemaker-runtime", stub).invoke_endpoint_with_response_stream(
            EndpointName=ENDPOINT, Body=json.dumps({"messages": MESSAGES, "stream": True}))
        chunks = _sse_chunks(b"".join(event["PayloadPart"]["Bytes"] for event in response["Body"]))

    arguments: dict[int, str] = {}
    names: dict[int, str] = {}
    for call in (call for c in chunks for call in c["choices"][0]["delta"].get("tool_calls") or ()):
        names[call["index"]] = names.get(call["index"], "") + call["function"].get("name", "")
        arguments[call["index"]] = arguments.get(call["index"], "") + call["function"]["arguments"]
    assert [(names[i], json.loads(arguments[i])) for i in sorted(names)] == list(TOOL_CALLS)
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_sagemaker_stream_failing_mid_way_raises_model_stream_error() -> None:
    received = b""
    with OpenAIStub([StubReply(text=TEXT, fail_after_tokens=3)]) as stub:
        response = _boto("sagemaker-runtime", stub).invoke_endpoint_with_response_stream(
            EndpointName=ENDPOINT, Body=json.dumps({"messages": MESSAGES, "stream": True}))
        with pytest.raises(EventStreamError) as raised:
            for event in response["Body"]:
                received += event["PayloadPart"]["Bytes"]

    assert raised.value.response["Error"] == {"Code": "ModelStreamError", "Message": FAILURE_MESSAGE}
    chunks = [json.loads(line.removeprefix("data: ")) for line in received.decode().split("\n\n") if line]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == " Give 0.01 mg/kg"


def test_sagemaker_stream_error_before_streaming_is_in_sagemakers_shape() -> None:
    with OpenAIStub([StubReply(status=503)]) as stub, pytest.raises(ClientError) as raised:
        _boto("sagemaker-runtime", stub).invoke_endpoint_with_response_stream(EndpointName=ENDPOINT, Body=b"{}")

    assert raised.value.response["Error"]["Code"] == "ServiceUnavailable"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503


def test_sagemaker_stream_delivers_each_piece_when_it_is_sent() -> None:
    stub = OpenAIStub([StubReply(text=TEXT, token_delay_s=60)])
    with stub:
        response = _boto("sagemaker-runtime", stub).invoke_endpoint_with_response_stream(
            EndpointName=ENDPOINT, Body=json.dumps({"messages": MESSAGES, "stream": True}))
        events = iter(response["Body"])
        first = [next(events)["PayloadPart"]["Bytes"] for _ in range(3)]  # would time out if held back
    rest = [event["PayloadPart"]["Bytes"] for event in events]  # the stub stopped: the stream ends there

    chunks = [json.loads(line.removeprefix("data: ")) for line in b"".join(first + rest).decode().split("\n\n")
              if line]
    assert [c["choices"][0]["delta"]["content"] for c in chunks] == ["", " Give"]


# --------------------------------------------------------------------------- Bedrock


def _converse_stream(stub: OpenAIStub) -> Any:
    return _boto("bedrock-runtime", stub).converse_stream(
        modelId=MODEL_ID, messages=[{"role": "user", "content": [{"text": PHI_QUESTION}]}])["stream"]


def test_bedrock_stream_sends_the_events_in_order_with_the_usage() -> None:
    with OpenAIStub([StubReply(text=TEXT, prompt_tokens=321, completion_tokens=12)]) as stub:
        events = list(_converse_stream(stub))

    kinds = [next(iter(event)) for event in events]
    assert kinds[0] == "messageStart" and events[0]["messageStart"] == {"role": "assistant"}
    assert kinds[-3:] == ["contentBlockStop", "messageStop", "metadata"]
    assert set(kinds[1:-3]) == {"contentBlockDelta"} and len(kinds[1:-3]) >= 3
    assert "".join(e["contentBlockDelta"]["delta"]["text"] for e in events[1:-3]) == TEXT
    assert events[-2]["messageStop"]["stopReason"] == "end_turn"
    assert events[-1]["metadata"]["usage"] == {"inputTokens": 321, "outputTokens": 12, "totalTokens": 333}
    assert "latencyMs" in events[-1]["metadata"]["metrics"]
    assert stub.raw_requests[0].path == f"/model/{MODEL_ID.replace(':', '%3A')}/converse-stream"
    assert PHI_QUESTION in stub.raw_requests[0].body
    assert stub.requests[0]["messages"][0]["content"][0]["text"] == PHI_QUESTION


def test_bedrock_stream_delivers_each_piece_when_it_is_sent() -> None:
    stub = OpenAIStub([StubReply(text=TEXT, token_delay_s=60)])
    with stub:
        events = iter(_converse_stream(stub))
        first = [next(events) for _ in range(2)]  # would time out if held back until the stream ends
    rest = list(events)

    assert first[1] == {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": " Give"}}} and rest == []


def test_bedrock_stream_of_tool_use_joins_the_input_fragments() -> None:
    with OpenAIStub([StubReply(tool_calls=TOOL_CALLS)]) as stub:
        events = list(_converse_stream(stub))

    starts = {e["contentBlockStart"]["contentBlockIndex"]: e["contentBlockStart"]["start"]["toolUse"]
              for e in events if "contentBlockStart" in e}
    inputs: dict[int, list[str]] = {}
    for event in (e["contentBlockDelta"] for e in events if "contentBlockDelta" in e):
        inputs.setdefault(event["contentBlockIndex"], []).append(event["delta"]["toolUse"]["input"])
    assert [(starts[i]["name"], json.loads("".join(inputs[i]))) for i in sorted(starts)] == list(TOOL_CALLS)
    assert starts[0]["toolUseId"] != starts[1]["toolUseId"] and len(inputs[0]) > 1
    assert [e["contentBlockStop"]["contentBlockIndex"] for e in events if "contentBlockStop" in e] == [0, 1]
    assert events[-2]["messageStop"]["stopReason"] == "tool_use"


def test_bedrock_stream_failing_mid_way_raises_the_model_stream_error_event() -> None:
    received: list[dict[str, Any]] = []
    with OpenAIStub([StubReply(text=TEXT, fail_after_tokens=2)]) as stub, \
            pytest.raises(EventStreamError) as raised:
        received.extend(_converse_stream(stub))

    assert raised.value.response["Error"] == {"Code": "modelStreamErrorException", "Message": FAILURE_MESSAGE}
    assert [next(iter(e)) for e in received] == ["messageStart", "contentBlockDelta", "contentBlockDelta"]


def test_bedrock_stream_error_before_streaming_is_in_bedrocks_shape() -> None:
    with OpenAIStub([StubReply(status=429)]) as stub, pytest.raises(ClientError) as raised:
        _converse_stream(stub)

    assert raised.value.response["Error"]["Code"] == "ThrottlingException"


def test_bedrock_converse_answers_tool_calls_as_tool_use_blocks() -> None:
    with OpenAIStub([StubReply(tool_calls=TOOL_CALLS[:1])]) as stub:
        reply = _boto("bedrock-runtime", stub).converse(
            modelId=MODEL_ID, messages=[{"role": "user", "content": [{"text": PHI_QUESTION}]}])

    assert reply["stopReason"] == "tool_use"
    assert reply["output"]["message"]["content"] == [
        {"toolUse": {"toolUseId": "tooluse_0", "name": "bmi", "input": TOOL_CALLS[0][1]}}]


# --------------------------------------------------------------------------- a 200 that is not a stream of chunks


def test_a_raw_body_is_the_streamed_content_as_it_is() -> None:
    raw = 'data: {"id": "stub", "choices": [\n\n'  # a chunk cut short
    with OpenAIStub([StubReply(raw_body=raw)]) as stub:
        response = _boto("sagemaker-runtime", stub).invoke_endpoint_with_response_stream(
            EndpointName=ENDPOINT, Body=json.dumps({"messages": MESSAGES, "stream": True}))
        payload = b"".join(event["PayloadPart"]["Bytes"] for event in response["Body"])
        with pytest.raises(json.JSONDecodeError):
            list(_openai(stub).chat.completions.create(model="m", messages=MESSAGES, stream=True))

    assert payload.decode() == raw
