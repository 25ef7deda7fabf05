"""The SageMaker LMI ChatModel: invoke_endpoint through botocore's Stubber, streaming through botocore's own
event-stream parser fed with encoded bytes (no sockets)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ReadTimeoutError
from botocore.stub import Stubber
from urllib3.response import HTTPResponse

from tests.stubs.aws_event_stream import event_message, serve_stream
from voiceassist.adapters.aws.sagemaker_chat import SageMakerChatModel, SseDecoder
from voiceassist.errors import DependencyError, ModelUnavailable
from voiceassist.models import ChatMessage, ToolDefinition
from voiceassist.ports import StreamingChatModel

ENDPOINT = "voiceassist-llama-3-1-8b"
PROMPT_SECRET = "John Smith MRN 4411902"
MESSAGES = [ChatMessage(role="system", content="clinical reference assistant"),
            ChatMessage(role="user", content=f"Question: {PROMPT_SECRET} metformin dose?")]


class JsonBody:
    """Matches a request Body whose JSON equals the expected document (key order aside)."""

    def __init__(self, expected: dict[str, Any]) -> None:
        self.expected = expected

    def __eq__(self, other: object) -> bool:
        return isinstance(other, bytes | str) and json.loads(other) == self.expected

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]


@pytest.fixture
def client() -> Any:
    return boto3.client("sagemaker-runtime", region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test")


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


def chat_response(content: str | None) -> dict[str, Any]:
    body = {"id": "chatcmpl-1", "object": "chat.completion", "model": "/opt/ml/model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 812, "completion_tokens": 64, "total_tokens": 876}}
    return {"Body": io.BytesIO(json.dumps(body).encode()), "ContentType": "application/json"}


def test_complete_sends_the_openai_chat_body_and_parses_the_answer(client: Any, stubber: Stubber) -> None:
    expected_body = {"messages": [m.model_dump(include={"role", "content"}) for m in MESSAGES], "max_tokens": 300,
                     "temperature": 0.0}
    stubber.add_response("invoke_endpoint", chat_response("Up to 2,000 mg per day [1]."), {
        "EndpointName": ENDPOINT, "ContentType": "application/json", "Accept": "application/json",
        "Body": JsonBody(expected_body),
    })

    model = SageMakerChatModel(ENDPOINT, client=client)

    completion = model.complete(MESSAGES, max_tokens=300, temperature=0.0)

    assert completion.text == "Up to 2,000 mg per day [1]."
    assert completion.model == "llama-3.1-8b"
    usage = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cost_usd) == (812, 64, 0.0)


def test_complete_returns_empty_text_for_a_null_content(client: Any, stubber: Stubber) -> None:
    stubber.add_response("invoke_endpoint", chat_response(None))

    assert SageMakerChatModel(ENDPOINT, client=client).complete(MESSAGES).text == ""


@pytest.mark.parametrize(("code", "http_status", "original_status", "error"), [
    ("ModelError", 424, 500, ModelUnavailable),
    ("ModelError", 424, 429, ModelUnavailable),
    ("ModelError", 424, 400, DependencyError),
    ("ModelNotReadyException", 429, None, ModelUnavailable),
    ("ThrottlingException", 400, None, ModelUnavailable),
    ("ServiceUnavailable", 503, None, ModelUnavailable),
    ("InternalFailure", 500, None, ModelUnavailable),
    ("ValidationError", 400, None, DependencyError),
])
def test_complete_maps_endpoint_errors_without_echoing_the_prompt(
        client: Any, stubber: Stubber, code: str, http_status: int, original_status: int | None,
        error: type[Exception]) -> None:
    modeled = {"OriginalStatusCode": original_status, "OriginalMessage": f"bad input: {PROMPT_SECRET}"}
    stubber.add_client_error("invoke_endpoint", service_error_code=code, http_status_code=http_status,
                             service_message=f"echo {PROMPT_SECRET}",
                             modeled_fields=modeled if original_status else None)

    with pytest.raises(error) as raised:
        SageMakerChatModel(ENDPOINT, client=client).complete(MESSAGES)

    assert type(raised.value) is error and code in str(raised.value)
    assert PROMPT_SECRET not in str(raised.value) and raised.value.__suppress_context__


def test_complete_maps_a_read_timeout_to_model_unavailable(client: Any) -> None:
    def time_out(request: Any, **kwargs: Any) -> None:
        raise ReadTimeoutError(endpoint_url=request.url)

    client.meta.events.register("before-send.sagemaker-runtime.InvokeEndpoint", time_out)

    with pytest.raises(ModelUnavailable, match="ReadTimeoutError"):
        SageMakerChatModel(ENDPOINT, client=client).complete(MESSAGES)


def test_complete_rejects_a_body_that_is_not_a_chat_completion(client: Any, stubber: Stubber) -> None:
    stubber.add_response("invoke_endpoint", {"Body": io.BytesIO(b'{"generated_text": "hi"}')})

    with pytest.raises(DependencyError, match="no chat completion"):
        SageMakerChatModel(ENDPOINT, client=client).complete(MESSAGES)


# --------------------------------------------------------------------------- streaming


STREAM_OPERATION = "InvokeEndpointWithResponseStream"


def sse_line(content: str) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"content": content}}]}
    return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()  # vLLM sends raw UTF-8


def test_stream_joins_sse_lines_split_across_payload_parts(client: Any) -> None:
    payload = b"".join([sse_line("Give 0.01 mg/kg "), sse_line("(max 0.5 mg) IM; 5 µg "), sse_line("[1]."),
                        b"data: [DONE]\n\n"])
    cut_in_json, cut_in_micro_sign = payload.index(b"mg/kg"), payload.index("µ".encode()) + 1
    parts = [payload[:cut_in_json], payload[cut_in_json:cut_in_micro_sign], payload[cut_in_micro_sign:]]
    sent = serve_stream(client, STREAM_OPERATION, *(event_message("PayloadPart", part) for part in parts))

    deltas: list[str] = []
    SageMakerChatModel(ENDPOINT, client=client).stream_completion(MESSAGES, on_text=deltas.append, max_tokens=50)

    assert deltas == ["Give 0.01 mg/kg ", "(max 0.5 mg) IM; 5 µg ", "[1]."]
    assert sent[0]["stream"] is True and sent[0]["max_tokens"] == 50


def test_stream_stops_at_done(client: Any) -> None:
    payload = sse_line("Answer [1].") + b"data: [DONE]\n\n" + sse_line("after the end")
    serve_stream(client, STREAM_OPERATION, event_message("PayloadPart", payload))

    completion = SageMakerChatModel(ENDPOINT, client=client).stream_completion(MESSAGES, on_text=lambda text: None)
    assert completion.text == "Answer [1]."


def test_stream_maps_a_model_stream_error_to_model_unavailable(client: Any) -> None:
    error = json.dumps({"Message": f"failed on {PROMPT_SECRET}", "ErrorCode": "ModelStreamError"}).encode()
    serve_stream(client, STREAM_OPERATION, event_message("PayloadPart", sse_line("Partial ")),
                 event_message("ModelStreamError", error, message_type="exception"))
    received: list[str] = []

    with pytest.raises(ModelUnavailable) as raised:
        SageMakerChatModel(ENDPOINT, client=client).stream_completion(MESSAGES, on_text=received.append)

    assert received == ["Partial "]
    assert "ModelStreamError" in str(raised.value) and PROMPT_SECRET not in str(raised.value)


def test_sse_decoder_accepts_bare_json_lines_and_skips_comments() -> None:
    decoder = SseDecoder()

    chunks = decoder.feed(b': keep-alive\nevent: message\n{"choices": [{"delta": {"content": "a"}}]}\n')
    chunks += decoder.feed(b'data: {"x"')
    chunks += decoder.feed(b": 1}")
    chunks += decoder.flush()

    assert chunks == [{"choices": [{"delta": {"content": "a"}}]}, {"x": 1}]


# --------------------------------------------------------------------------- stream_completion (tools, usage)

TOOLS = [ToolDefinition(name="bmi", description="Body-mass index", parameters={"type": "object"}),
         ToolDefinition(name="egfr", description="Kidney function", parameters={"type": "object"})]


def sse_chunk(delta: dict[str, Any] | None = None, **fields: Any) -> bytes:
    """One LMI (vLLM) chunk line: a delta of the first choice, or only `fields` (the usage chunk)."""
    chunk = {"id": "chatcmpl-3", "object": "chat.completion.chunk", "model": "/opt/ml/model",
             "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": None}]} | fields
    return f"data: {json.dumps(chunk)}\n\n".encode()


def fragment(index: int, arguments: str, **first: str) -> bytes:
    function = {"arguments": arguments} | ({"name": first["name"]} if "name" in first else {})
    return sse_chunk({"tool_calls": [{"index": index, **({"id": first["id"]} if "id" in first else {}),
                                      "function": function}]})


USAGE_LINE = sse_chunk(usage={"prompt_tokens": 812, "completion_tokens": 64, "total_tokens": 876})


def test_the_sagemaker_model_streams_completions() -> None:
    assert isinstance(SageMakerChatModel(ENDPOINT, client=object()), StreamingChatModel)


def test_stream_completion_sends_the_tool_request_streamed_and_returns_text_and_usage(client: Any) -> None:
    payload = sse_chunk({"role": "assistant", "content": ""}) + sse_chunk({"content": "Up to "}) \
        + sse_chunk({"content": "2,000 mg "}) + sse_chunk({"content": "per day [1]."}) + USAGE_LINE \
        + b"data: [DONE]\n\n"
    sent = serve_stream(client, STREAM_OPERATION, event_message("PayloadPart", payload))
    received: list[str] = []

    completion = SageMakerChatModel(ENDPOINT, client=client).stream_completion(
        MESSAGES, TOOLS, on_text=received.append, max_tokens=300, temperature=0.0)

    assert received == ["Up to ", "2,000 mg ", "per day [1]."] and completion.text == "".join(received)
    assert completion.model == "llama-3.1-8b" and completion.tool_calls == []
    usage = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cost_usd) == (812, 64, 0.0)
    assert sent[0] == {"messages": [m.model_dump(include={"role", "content"}) for m in MESSAGES],
                       "max_tokens": 300, "temperature": 0.0, "stream": True,
                       "stream_options": {"include_usage": True},
                       "tools": [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                                   "parameters": t.parameters}} for t in TOOLS]}


def test_stream_completion_joins_tool_calls_split_across_payload_parts(client: Any) -> None:
    payload = b"".join([fragment(0, "", id="call_1", name="bmi"), fragment(0, '{"weight_kg": '),
                        fragment(0, "70, "), fragment(0, '"height_cm": 175}'),
                        fragment(1, '{"creatinine": 1.1}', id="call_2", name="egfr"), USAGE_LINE,
                        b"data: [DONE]\n\n"])
    cuts = [payload.index(b"weight_kg"), payload.index(b"height_cm") + 3, payload.index(b"egfr")]
    parts = [payload[:cuts[0]], payload[cuts[0]:cuts[1]], payload[cuts[1]:cuts[2]], payload[cuts[2]:]]
    sent = serve_stream(client, STREAM_OPERATION, *(event_message("PayloadPart", part) for part in parts))
    received: list[str] = []

    completion = SageMakerChatModel(ENDPOINT, client=client).stream_completion(MESSAGES, TOOLS,
                                                                               on_text=received.append)

    assert received == [] and completion.text == ""
    assert [(c.call_id, c.name, c.arguments) for c in completion.tool_calls] == [
        ("call_1", "bmi", {"weight_kg": 70, "height_cm": 175}), ("call_2", "egfr", {"creatinine": 1.1})]
    assert sent[0]["stream"] is True and completion.usage.prompt_tokens == 812


def test_stream_completion_without_tools_and_without_a_usage_chunk(client: Any) -> None:
    sent = serve_stream(client, STREAM_OPERATION, event_message("PayloadPart", sse_chunk({"content": "Answer [1]."})))

    completion = SageMakerChatModel(ENDPOINT, client=client).stream_completion(MESSAGES, on_text=lambda t: None)

    assert "tools" not in sent[0] and completion.text == "Answer [1]."
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (0, 0)


@pytest.mark.parametrize("failure", [
    event_message("ModelStreamError", json.dumps({"Message": f"failed on {PROMPT_SECRET}",
                                                  "ErrorCode": "ModelStreamError"}).encode(),
                  message_type="exception"),
    event_message("PayloadPart", f'data: {{"object": "error", "message": "{PROMPT_SECRET}"}}\n\n'.encode()),
])
def test_stream_completion_failing_part_way_is_transient_and_keeps_what_arrived(client: Any,
                                                                               failure: bytes) -> None:
    serve_stream(client, STREAM_OPERATION, event_message("PayloadPart", sse_chunk({"content": "Partial "})
                                       + fragment(0, '{"weight', id="call_1", name="bmi")), failure)
    received: list[str] = []

    with pytest.raises(ModelUnavailable) as raised:
        SageMakerChatModel(ENDPOINT, client=client).stream_completion(MESSAGES, TOOLS, on_text=received.append)

    assert received == ["Partial "]
    assert PROMPT_SECRET not in str(raised.value) and ENDPOINT in str(raised.value)


def test_stream_completion_asks_again_without_stream_options_when_an_older_container_refuses_them(
        client: Any) -> None:
    sent: list[dict[str, Any]] = []

    def send(request: Any, **kwargs: Any) -> AWSResponse:
        body = json.loads(request.body)
        sent.append(body)
        if "stream_options" in body:  # an LMI schema without stream_options: a 424 with the model's 400
            error = json.dumps({"OriginalStatusCode": 400, "Message": f"unknown field near {PROMPT_SECRET}"})
            raw = HTTPResponse(body=io.BytesIO(error.encode()), status=424, preload_content=False)
            return AWSResponse(request.url, 424, {"x-amzn-ErrorType": "ModelError"}, raw)
        stream = event_message("PayloadPart", sse_chunk({"content": "Answer [1]."}) + b"data: [DONE]\n\n")
        raw = HTTPResponse(body=io.BytesIO(stream), status=200, preload_content=False)
        return AWSResponse(request.url, 200, {"Content-Type": "application/vnd.amazon.eventstream"}, raw)

    client.meta.events.register(f"before-send.sagemaker-runtime.{STREAM_OPERATION}", send)
    received: list[str] = []

    completion = SageMakerChatModel(ENDPOINT, client=client).stream_completion(MESSAGES, on_text=received.append)

    assert completion.text == "Answer [1]." and received == ["Answer [1]."]
    assert ["stream_options" in body for body in sent] == [True, False]
    assert all(body["stream"] is True for body in sent)


def test_with_model_invokes_the_configured_endpoint_on_the_same_client(client: Any, stubber: Stubber) -> None:
    stubber.add_response("invoke_endpoint", chat_response("Up to 2,000 mg per day [1]."), {
        "EndpointName": "voiceassist-llama-3-3-70b", "ContentType": "application/json",
        "Accept": "application/json", "Body": JsonBody({
            "messages": [m.model_dump(include={"role", "content"}) for m in MESSAGES], "max_tokens": 300,
            "temperature": 0.0})})
    model = SageMakerChatModel(ENDPOINT, client=client)

    switched = model.with_model("voiceassist-llama-3-3-70b")
    completion = switched.complete(MESSAGES, max_tokens=300, temperature=0.0)

    assert completion.model == "voiceassist-llama-3-3-70b" and switched.in_boundary  # labelled by its endpoint
    assert switched is model.with_model("voiceassist-llama-3-3-70b") and model.with_model(ENDPOINT) is model
