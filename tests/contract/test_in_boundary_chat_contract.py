"""One contract for the in-boundary ChatModels on AWS: the SageMaker LMI endpoint and Bedrock's Converse API.

Each test runs once per adapter against botocore's Stubber (and, for streams, botocore's own event-stream
parser fed encoded bytes): the same answers, tool calls, streamed deltas, and the same error mapping, since the
router's retries, fallbacks and circuit breakers read only ModelUnavailable (transient) and DependencyError.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
import urllib3
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ReadTimeoutError
from botocore.stub import Stubber
from urllib3.response import HTTPResponse

from tests.stubs.aws_event_stream import event_message, json_event, serve_stream
from voiceassist.adapters.aws.bedrock_chat import BedrockChatModel
from voiceassist.adapters.aws.sagemaker_chat import SageMakerChatModel
from voiceassist.errors import DependencyError, ModelUnavailable
from voiceassist.models import ChatMessage, ToolDefinition
from voiceassist.ports import StreamingChatModel, ToolCallingChatModel

PROMPT_SECRET = "Jane Roe MRN 5520117"
MESSAGES = [ChatMessage(role="system", content="clinical reference assistant"),
            ChatMessage(role="user", content=f"{PROMPT_SECRET}: amoxicillin dose for otitis media?")]
TOOL = ToolDefinition(name="bmi", description="Body-mass index",
                      parameters={"type": "object", "properties": {"weight_kg": {"type": "number"}}})


def _client(service: str) -> Any:
    return boto3.client(service, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")


class SageMakerBackend:
    operation, stream_operation = "invoke_endpoint", "InvokeEndpointWithResponseStream"
    errors = {"throttled": ("ThrottlingException", 400), "overloaded": ("ModelNotReadyException", 429),
              "down": ("ServiceUnavailable", 503), "rejected": ("ValidationError", 400)}

    def __init__(self, stubber: Stubber, client: Any) -> None:
        self.stubber, self.client = stubber, client
        self.model = SageMakerChatModel("voiceassist-dev-llm", client=client)

    def answer(self, text: str | None, tool_call: tuple[str, str, dict[str, Any]] | None = None) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_call:
            call_id, name, arguments = tool_call
            message["tool_calls"] = [{"id": call_id, "type": "function",
                                      "function": {"name": name, "arguments": json.dumps(arguments)}}]
        body = {"choices": [{"index": 0, "message": message}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 9}}
        self.stubber.add_response(self.operation, {"Body": io.BytesIO(json.dumps(body).encode())})

    def tools_sent(self, params: dict[str, Any]) -> list[str]:
        return [tool["function"]["name"] for tool in json.loads(params["Body"]).get("tools", [])]

    def stream(self, deltas: list[str], *, fail_after: bool = False) -> None:
        lines = b"".join(f"data: {json.dumps({'choices': [{'delta': {'content': d}}]})}\n\n".encode()
                         for d in deltas)
        messages = [event_message("PayloadPart", lines)]
        if fail_after:
            error = json.dumps({"Message": f"failed on {PROMPT_SECRET}", "ErrorCode": "ModelStreamError"})
            messages.append(event_message("ModelStreamError", error.encode(), message_type="exception"))
        else:
            messages.append(event_message("PayloadPart", b"data: [DONE]\n\n"))
        serve_stream(self.client, self.stream_operation, *messages)


class BedrockBackend:
    operation, stream_operation = "converse", "ConverseStream"
    errors = {"throttled": ("ThrottlingException", 429), "overloaded": ("ServiceQuotaExceededException", 400),
              "down": ("ServiceUnavailableException", 503), "rejected": ("ValidationException", 400)}

    def __init__(self, stubber: Stubber, client: Any) -> None:
        self.stubber, self.client = stubber, client
        # The streaming path with tools (Llama answers those through Converse: tests/unit/test_bedrock_chat.py).
        self.model = BedrockChatModel("us.meta.llama3-1-8b-instruct-v1:0", client=client, streams_tool_use=True)

    def answer(self, text: str | None, tool_call: tuple[str, str, dict[str, Any]] | None = None) -> None:
        content: list[dict[str, Any]] = [{"text": text}] if text is not None else []
        if tool_call:
            call_id, name, arguments = tool_call
            content.append({"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}})
        self.stubber.add_response(self.operation, {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "tool_use" if tool_call else "end_turn",
            "usage": {"inputTokens": 120, "outputTokens": 9, "totalTokens": 129},
            "metrics": {"latencyMs": 350}})

    def tools_sent(self, params: dict[str, Any]) -> list[str]:
        return [tool["toolSpec"]["name"] for tool in params.get("toolConfig", {}).get("tools", [])]

    def stream(self, deltas: list[str], *, fail_after: bool = False) -> None:
        messages = [json_event("messageStart", {"role": "assistant"})]
        messages += [json_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": d}}) for d in deltas]
        if fail_after:
            messages.append(json_event("modelStreamErrorException", {"message": f"failed on {PROMPT_SECRET}"},
                                       exception=True))
        else:
            messages += [json_event("contentBlockStop", {"contentBlockIndex": 0}),
                         json_event("messageStop", {"stopReason": "end_turn"}),
                         json_event("metadata", {"usage": {"inputTokens": 120, "outputTokens": 9, "totalTokens": 129},
                                                 "metrics": {"latencyMs": 350}})]
        serve_stream(self.client, self.stream_operation, *messages)


Backend = SageMakerBackend | BedrockBackend
_SERVICES = {"sagemaker": ("sagemaker-runtime", SageMakerBackend), "bedrock": ("bedrock-runtime", BedrockBackend)}


@pytest.fixture(params=sorted(_SERVICES))
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    service, backend_class = _SERVICES[request.param]
    client = _client(service)
    with Stubber(client) as stubber:
        yield backend_class(stubber, client)
        stubber.assert_no_pending_responses()


def _captured(backend: Backend) -> list[dict[str, Any]]:
    """The API parameters of each call the adapter makes."""
    calls: list[dict[str, Any]] = []
    service = backend.client.meta.service_model.service_id.hyphenize()
    backend.client.meta.events.register(f"provide-client-params.{service}",
                                        lambda params, **kwargs: calls.append(dict(params)))
    return calls


def test_an_in_boundary_model_may_see_phi_and_calls_tools(backend: Backend) -> None:
    assert backend.model.in_boundary is True and backend.model.name == "llama-3.1-8b"
    assert isinstance(backend.model, ToolCallingChatModel) and isinstance(backend.model, StreamingChatModel)


def test_complete_returns_the_answer_and_its_token_counts(backend: Backend) -> None:
    backend.answer("80-90 mg/kg/day in two doses [1].")

    completion = backend.model.complete(MESSAGES, max_tokens=200, temperature=0.0)

    assert completion.text == "80-90 mg/kg/day in two doses [1]."
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (120, 9)
    assert completion.tool_calls == []


def test_complete_with_tools_sends_the_tools_and_returns_the_calls(backend: Backend) -> None:
    calls = _captured(backend)
    backend.answer(None, tool_call=("call_7", "bmi", {"weight_kg": 70}))

    completion = backend.model.complete_with_tools(MESSAGES, [TOOL])

    assert backend.tools_sent(calls[0]) == ["bmi"]
    assert completion.text == ""
    (call,) = completion.tool_calls
    assert (call.call_id, call.name, call.arguments) == ("call_7", "bmi", {"weight_kg": 70})


@pytest.mark.parametrize(("kind", "error"), [("throttled", ModelUnavailable), ("overloaded", ModelUnavailable),
                                             ("down", ModelUnavailable), ("rejected", DependencyError)])
def test_errors_are_transient_or_permanent_and_never_echo_the_prompt(backend: Backend, kind: str,
                                                                     error: type[Exception]) -> None:
    code, status = backend.errors[kind]
    backend.stubber.add_client_error(backend.operation, service_error_code=code, http_status_code=status,
                                     service_message=f"echo {PROMPT_SECRET}")

    with pytest.raises(error) as raised:
        backend.model.complete(MESSAGES)

    assert type(raised.value) is error and code in str(raised.value)
    assert PROMPT_SECRET not in str(raised.value) and raised.value.__suppress_context__


def test_a_read_timeout_is_transient(backend: Backend) -> None:
    def time_out(request: Any, **kwargs: Any) -> None:
        raise ReadTimeoutError(endpoint_url=request.url)

    backend.stubber.deactivate()
    backend.client.meta.events.register("before-send", time_out)

    with pytest.raises(ModelUnavailable, match="ReadTimeoutError"):
        backend.model.complete(MESSAGES)
    backend.stubber.activate()


def test_stream_completion_passes_the_text_on_and_returns_the_whole_answer(backend: Backend) -> None:
    backend.stubber.deactivate()
    backend.stream(["Amoxicillin ", "80–90 mg/kg/day ", "[1]."])
    received: list[str] = []

    completion = backend.model.stream_completion(MESSAGES, [TOOL], on_text=received.append, max_tokens=50)

    assert received == ["Amoxicillin ", "80–90 mg/kg/day ", "[1]."]
    assert completion.text == "".join(received) and completion.tool_calls == []
    assert completion.model == "llama-3.1-8b"
    backend.stubber.activate()


def test_stream_completion_failing_part_way_is_transient_and_keeps_what_arrived(backend: Backend) -> None:
    backend.stubber.deactivate()
    backend.stream(["Partial "], fail_after=True)
    received: list[str] = []

    with pytest.raises(ModelUnavailable) as raised:
        backend.model.stream_completion(MESSAGES, [TOOL], on_text=received.append)

    assert received == ["Partial "] and PROMPT_SECRET not in str(raised.value)
    backend.stubber.activate()


class _CutBody(io.RawIOBase):
    """A response body that sends `data`, then fails as a dropped connection or a read time-out does."""

    def __init__(self, data: bytes, failure: Exception) -> None:
        self._data, self._failure = data, failure

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._data:
            raise self._failure
        size, buffer[:len(self._data)], self._data = len(self._data), self._data, b""
        return size


_FIRST_EVENT = {
    SageMakerBackend: event_message("PayloadPart", b'data: {"choices": [{"delta": {"content": "Partial "}}]}\n\n'),
    BedrockBackend: json_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Partial "}}),
}


@pytest.mark.parametrize("failure", [urllib3.exceptions.ReadTimeoutError(None, "/", "Read timed out."),
                                     urllib3.exceptions.ProtocolError("Connection broken")])
def test_a_stream_cut_part_way_is_transient(backend: Backend, failure: Exception) -> None:
    """botocore reads an event stream straight from urllib3: its errors part-way are transient failures too."""
    service = backend.client.meta.service_model.service_id.hyphenize()

    def send(request: Any, **kwargs: Any) -> AWSResponse:
        raw = HTTPResponse(body=_CutBody(_FIRST_EVENT[type(backend)], failure), status=200, preload_content=False)
        return AWSResponse(request.url, 200, {"Content-Type": "application/vnd.amazon.eventstream"}, raw)

    backend.stubber.deactivate()
    backend.client.meta.events.register(f"before-send.{service}.{backend.stream_operation}", send)

    with pytest.raises(ModelUnavailable, match=type(failure).__name__):
        backend.model.stream_completion(MESSAGES, [TOOL], on_text=lambda text: None)
    backend.stubber.activate()
