"""The Bedrock ChatModel's Converse requests, checked by botocore's Stubber against the service model: the
system prompt apart, alternating turns, tool calls and results as toolUse / toolResult blocks, and the error
codes only Bedrock has. What it shares with SageMaker: tests/contract/test_in_boundary_chat_contract.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from tests.stubs.aws_event_stream import json_event, serve_stream
from voiceassist.adapters.aws.bedrock_chat import BedrockChatModel, conversation
from voiceassist.composition.chat_models import build_local_chat
from voiceassist.errors import DependencyError, InvalidInput, ModelUnavailable
from voiceassist.models import ChatMessage, ToolCall, ToolDefinition
from voiceassist.ports import StreamingChatModel
from voiceassist.settings import InBoundaryProvider, settings_from_env

MODEL_ID = "us.meta.llama3-1-8b-instruct-v1:0"
STREAMING_TOOLS_MODEL_ID = "us.amazon.nova-lite-v1:0"  # a family with streaming tool use in Bedrock's table
PROMPT_SECRET = "DOB 1961-03-04"


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test")


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


def _reply(*content: dict[str, Any]) -> dict[str, Any]:
    return {"output": {"message": {"role": "assistant", "content": list(content)}}, "stopReason": "end_turn",
            "usage": {"inputTokens": 50, "outputTokens": 5, "totalTokens": 55}, "metrics": {"latencyMs": 200}}


def test_the_request_keeps_the_system_prompt_apart_and_the_inference_settings(client: Any, stubber: Stubber) -> None:
    messages = [ChatMessage(role="system", content="Answer from the excerpts."),
                ChatMessage(role="system", content="Cite as [n]."),
                ChatMessage(role="user", content=f"Patient {PROMPT_SECRET}: statin choice?")]
    stubber.add_response("converse", _reply({"text": "Atorvastatin [1]."}), {
        "modelId": MODEL_ID,
        "system": [{"text": "Answer from the excerpts."}, {"text": "Cite as [n]."}],
        "messages": [{"role": "user", "content": [{"text": f"Patient {PROMPT_SECRET}: statin choice?"}]}],
        "inferenceConfig": {"maxTokens": 300, "temperature": 0.0},
    })

    completion = BedrockChatModel(MODEL_ID, client=client).complete(messages, max_tokens=300, temperature=0.0)

    assert completion.text == "Atorvastatin [1]."


def test_a_tool_round_trip_becomes_tool_use_and_tool_result_blocks_in_alternating_turns(
        client: Any, stubber: Stubber) -> None:
    call = ToolCall(call_id="call_1", name="bmi", arguments={"weight_kg": 70, "height_cm": 175})
    messages = [ChatMessage(role="user", content="BMI for 70 kg, 175 cm?"),
                ChatMessage(role="assistant", content="", tool_calls=[call]),
                ChatMessage(role="tool", content='{"bmi": 22.9}', tool_call_id="call_1"),
                ChatMessage(role="user", content="And is that normal?")]
    tool = ToolDefinition(name="bmi", description="Body-mass index", parameters={
        "type": "object", "properties": {"weight_kg": {"type": "number"}, "height_cm": {"type": "number"}}})
    stubber.add_response("converse", _reply({"text": "22.9, in the normal range."}), {
        "modelId": MODEL_ID,
        "messages": [
            {"role": "user", "content": [{"text": "BMI for 70 kg, 175 cm?"}]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "call_1", "name": "bmi",
                                                           "input": {"weight_kg": 70, "height_cm": 175}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "call_1", "content": [{"text": '{"bmi": 22.9}'}]}},
                {"text": "And is that normal?"}]},
        ],
        "inferenceConfig": {"maxTokens": 700, "temperature": 0.1},
        "toolConfig": {"tools": [{"toolSpec": {"name": "bmi", "description": "Body-mass index",
                                               "inputSchema": {"json": tool.parameters}}}]},
    })

    completion = BedrockChatModel(MODEL_ID, client=client).complete_with_tools(messages, [tool])

    assert completion.text == "22.9, in the normal range." and completion.tool_calls == []


def test_a_reply_with_text_and_a_tool_use_keeps_both(client: Any, stubber: Stubber) -> None:
    tool_use = {"toolUse": {"toolUseId": "t-9", "name": "bmi", "input": {"weight_kg": 70}}}
    stubber.add_response("converse", _reply({"text": "Let me compute it."}, tool_use))

    completion = BedrockChatModel(MODEL_ID, client=client).complete_with_tools(
        [ChatMessage(role="user", content="BMI?")], [ToolDefinition(name="bmi", description="BMI")])

    assert completion.text == "Let me compute it."
    assert [(c.call_id, c.name, c.arguments) for c in completion.tool_calls] == [("t-9", "bmi", {"weight_kg": 70})]


def test_blank_turns_are_left_out_and_the_conversation_starts_with_the_user() -> None:
    turns = conversation([ChatMessage(role="system", content="s"), ChatMessage(role="user", content="a"),
                          ChatMessage(role="user", content="  "), ChatMessage(role="user", content="b"),
                          ChatMessage(role="assistant", content="c")])

    assert turns == [{"role": "user", "content": [{"text": "a"}, {"text": "b"}]},
                     {"role": "assistant", "content": [{"text": "c"}]}]


@pytest.mark.parametrize(("code", "status", "original", "error"), [
    ("ModelErrorException", 424, 500, ModelUnavailable),
    ("ModelErrorException", 424, 400, DependencyError),
    ("ModelNotReadyException", 429, None, ModelUnavailable),
    ("ModelTimeoutException", 408, None, ModelUnavailable),
    ("InternalServerException", 500, None, ModelUnavailable),
    ("AccessDeniedException", 403, None, DependencyError),  # model access not granted in the console
    ("ResourceNotFoundException", 404, None, DependencyError),  # a model id that does not exist here
])
def test_bedrock_error_codes_are_mapped_without_the_message(client: Any, stubber: Stubber, code: str, status: int,
                                                            original: int | None, error: type[Exception]) -> None:
    modeled = {"originalStatusCode": original, "resourceName": MODEL_ID} if original else None
    stubber.add_client_error("converse", service_error_code=code, http_status_code=status,
                             service_message=f"input was {PROMPT_SECRET}", modeled_fields=modeled)

    with pytest.raises(error) as raised:
        BedrockChatModel(MODEL_ID, client=client).complete([ChatMessage(role="user", content=PROMPT_SECRET)])

    assert type(raised.value) is error and code in str(raised.value) and PROMPT_SECRET not in str(raised.value)


def test_the_environment_selects_bedrock_as_the_in_boundary_model() -> None:
    settings = settings_from_env({"VOICEASSIST_IN_BOUNDARY_PROVIDER": "bedrock",
                                  "VOICEASSIST_BEDROCK_MODEL_ID": MODEL_ID,
                                  "VOICEASSIST_SAGEMAKER_ENDPOINT": "ignored-endpoint", "AWS_REGION": "us-west-2"})

    model = build_local_chat(settings)

    assert settings.in_boundary_provider is InBoundaryProvider.BEDROCK
    assert isinstance(model, BedrockChatModel) and model.in_boundary and model.model_id == MODEL_ID


@pytest.mark.parametrize(("provider", "needs"), [("bedrock", "VOICEASSIST_BEDROCK_MODEL_ID"),
                                                 ("sagemaker", "VOICEASSIST_SAGEMAKER_ENDPOINT")])
def test_a_provider_without_its_model_is_refused_at_start(provider: str, needs: str) -> None:
    with pytest.raises(InvalidInput, match=needs):
        settings_from_env({"VOICEASSIST_IN_BOUNDARY_PROVIDER": provider})


def test_an_answer_is_priced_per_token_as_its_model(client: Any, stubber: Stubber) -> None:
    stubber.add_response("converse", _reply({"text": "Atorvastatin [1]."}) | {
        "usage": {"inputTokens": 2_500, "outputTokens": 300, "totalTokens": 2_800}})

    completion = BedrockChatModel(MODEL_ID, client=client).complete([ChatMessage(role="user", content="q")])

    assert completion.usage.cost_usd == pytest.approx(2_800 * 0.22 / 1_000_000)  # $0.22 per million, both ways


# --------------------------------------------------------------------------- stream_completion (ConverseStream)

BMI = ToolDefinition(name="bmi", description="Body-mass index", parameters={"type": "object"})
QUESTION = [ChatMessage(role="system", content="Answer from the excerpts."),
            ChatMessage(role="user", content=f"Patient {PROMPT_SECRET}: BMI for 70 kg, 175 cm?")]


def _opening(*, text: str | None = None) -> list[bytes]:
    events = [json_event("messageStart", {"role": "assistant"})]
    if text is not None:
        events.append(json_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}}))
    return events


def _closing(stop_reason: str = "end_turn") -> list[bytes]:
    return [json_event("messageStop", {"stopReason": stop_reason}),
            json_event("metadata", {"usage": {"inputTokens": 2_500, "outputTokens": 300, "totalTokens": 2_800},
                                    "metrics": {"latencyMs": 420}})]


def _tool_use(index: int, tool_use_id: str, name: str, *fragments: str) -> list[bytes]:
    return ([json_event("contentBlockStart", {"contentBlockIndex": index,
                                              "start": {"toolUse": {"toolUseId": tool_use_id, "name": name}}})]
            + [json_event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": f}}})
               for f in fragments]
            + [json_event("contentBlockStop", {"contentBlockIndex": index})])


def test_the_bedrock_model_streams_completions(client: Any) -> None:
    assert isinstance(BedrockChatModel(MODEL_ID, client=client), StreamingChatModel)


def test_stream_completion_sends_text_as_it_arrives_and_prices_the_metadata_usage(client: Any) -> None:
    deltas = ["Atorvastatin ", "20 mg ", "[1]."]
    sent = serve_stream(client, "ConverseStream", *_opening(), *(
        json_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": d}}) for d in deltas),
        json_event("contentBlockStop", {"contentBlockIndex": 0}), *_closing())
    received: list[str] = []

    completion = BedrockChatModel(MODEL_ID, client=client).stream_completion(
        QUESTION, on_text=received.append, max_tokens=300, temperature=0.0)

    assert received == deltas and completion.text == "".join(deltas) and completion.tool_calls == []
    assert completion.model == "llama-3.1-8b"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (2_500, 300)
    assert completion.usage.cost_usd == pytest.approx(2_800 * 0.22 / 1_000_000)
    assert sent[0] == {"system": [{"text": "Answer from the excerpts."}],
                       "messages": [{"role": "user", "content": [{"text": QUESTION[1].content}]}],
                       "inferenceConfig": {"maxTokens": 300, "temperature": 0.0}}


def test_stream_completion_joins_a_tool_use_s_input_fragments(client: Any) -> None:
    sent = serve_stream(client, "ConverseStream", *_opening(text="Let me compute it."),
                        json_event("contentBlockStop", {"contentBlockIndex": 0}),
                        *_tool_use(1, "tooluse_1", "bmi", '{"weight_', 'kg": 70, "heig', 'ht_cm": 175}'),
                        *_tool_use(2, "tooluse_2", "bmi", '{"weight_kg": '), *_closing("tool_use"))
    received: list[str] = []

    completion = BedrockChatModel(STREAMING_TOOLS_MODEL_ID, client=client).stream_completion(
        QUESTION, [BMI], on_text=received.append)

    assert received == ["Let me compute it."] and completion.text == "Let me compute it."
    assert [(c.call_id, c.name, c.arguments) for c in completion.tool_calls] == [
        ("tooluse_1", "bmi", {"weight_kg": 70, "height_cm": 175}),
        ("tooluse_2", "bmi", {})]  # input cut short: not a JSON object, the executor names the missing fields
    assert sent[0]["toolConfig"] == {"tools": [{"toolSpec": {"name": "bmi", "description": "Body-mass index",
                                                             "inputSchema": {"json": {"type": "object"}}}}]}


@pytest.mark.parametrize(("event", "error"), [
    ("modelStreamErrorException", ModelUnavailable), ("throttlingException", ModelUnavailable),
    ("internalServerException", ModelUnavailable), ("serviceUnavailableException", ModelUnavailable),
    ("validationException", DependencyError),
])
def test_an_error_event_part_way_is_mapped_without_the_message_and_keeps_what_arrived(
        client: Any, event: str, error: type[Exception]) -> None:
    serve_stream(client, "ConverseStream", *_opening(text="Partial "),
                 *_tool_use(1, "tooluse_1", "bmi", '{"weight_'),
                 json_event(event, {"message": f"failed on {PROMPT_SECRET}"}, exception=True))
    received: list[str] = []

    with pytest.raises(error) as raised:
        BedrockChatModel(STREAMING_TOOLS_MODEL_ID, client=client).stream_completion(QUESTION, [BMI],
                                                                                    on_text=received.append)

    assert type(raised.value) is error and received == ["Partial "]
    assert event[:1].upper() + event[1:] in str(raised.value) and PROMPT_SECRET not in str(raised.value)
    assert raised.value.__suppress_context__


def test_a_refused_stream_request_is_mapped_like_converse(client: Any, stubber: Stubber) -> None:
    stubber.add_client_error("converse_stream", service_error_code="AccessDeniedException", http_status_code=403,
                             service_message=f"input was {PROMPT_SECRET}")

    with pytest.raises(DependencyError) as raised:
        BedrockChatModel(MODEL_ID, client=client).stream_completion(QUESTION, on_text=lambda text: None)

    assert "AccessDeniedException" in str(raised.value) and PROMPT_SECRET not in str(raised.value)


def test_llama_answers_a_streamed_request_with_tools_through_converse(client: Any, stubber: Stubber) -> None:
    """Bedrock's Llama has tool use but not streaming tool use: ConverseStream with a toolConfig would be
    refused, so the request goes to Converse and its text is passed on once."""
    stubber.add_response("converse", _reply({"text": "Computing."},
                                            {"toolUse": {"toolUseId": "t1", "name": "bmi",
                                                         "input": {"weight_kg": 70, "height_cm": 175}}}),
                         {"modelId": MODEL_ID,
                          "messages": [{"role": "user", "content": [{"text": QUESTION[1].content}]}],
                          "system": [{"text": "Answer from the excerpts."}],
                          "inferenceConfig": {"maxTokens": 700, "temperature": 0.1},
                          "toolConfig": {"tools": [{"toolSpec": {"name": "bmi", "description": "Body-mass index",
                                                                 "inputSchema": {"json": {"type": "object"}}}}]}})
    received: list[str] = []

    completion = BedrockChatModel(MODEL_ID, client=client).stream_completion(QUESTION, [BMI],
                                                                             on_text=received.append)

    assert received == ["Computing."] and completion.text == "Computing."
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [("bmi", {"weight_kg": 70, "height_cm": 175})]


def test_llama_streams_a_request_without_tools(client: Any) -> None:
    sent = serve_stream(client, "ConverseStream", *_opening(text="Metformin 2,550 mg [1]."),
                        json_event("contentBlockStop", {"contentBlockIndex": 0}), *_closing())
    received: list[str] = []

    BedrockChatModel(MODEL_ID, client=client).stream_completion(QUESTION, on_text=received.append)

    assert received == ["Metformin 2,550 mg [1]."] and "toolConfig" not in sent[0]


@pytest.mark.parametrize(("model_id", "streams"), [
    ("us.meta.llama3-1-8b-instruct-v1:0", False), ("meta.llama3-1-70b-instruct-v1:0", False),
    ("amazon.nova-pro-v1:0", True), ("eu.anthropic.claude-3-5-sonnet-20240620-v1:0", True),
    ("some.unknown-model-v1", False),
])
def test_streaming_tool_use_follows_bedrock_s_feature_table(model_id: str, streams: bool) -> None:
    assert BedrockChatModel(model_id, client=object()).streams_tool_use is streams


def test_with_model_asks_the_configured_model_on_the_same_client_and_prices_it(client: Any,
                                                                               stubber: Stubber) -> None:
    stubber.add_response("converse", _reply({"text": "Atorvastatin [1]."}), {
        "modelId": "meta.llama3-1-8b-instruct-v1:0",
        "messages": [{"role": "user", "content": [{"text": "statin choice?"}]}],
        "inferenceConfig": {"maxTokens": 300, "temperature": 0.0},
    })
    model = BedrockChatModel(MODEL_ID, client=client)

    switched = model.with_model("meta.llama3-1-8b-instruct-v1:0")
    completion = switched.complete([ChatMessage(role="user", content="statin choice?")], max_tokens=300,
                                   temperature=0.0)

    assert completion.model == "meta.llama3-1-8b-instruct-v1:0" and switched.in_boundary
    assert completion.usage.cost_usd == pytest.approx(55 * 0.22 / 1_000_000)  # priced as the model asked
    assert switched is model.with_model("meta.llama3-1-8b-instruct-v1:0") and model.with_model(MODEL_ID) is model
    assert model.with_model(STREAMING_TOOLS_MODEL_ID).streams_tool_use and not model.streams_tool_use
