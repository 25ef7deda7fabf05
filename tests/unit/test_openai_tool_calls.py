"""The OpenAI-compatible model's tool calls against an in-memory HTTP transport: the `tools` it sends, the
assistant and tool messages of earlier rounds, and the calls it parses from the reply."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from tests.unit.test_openai_chat import Server, completion_body, model_on
from voiceassist.models import ChatMessage, ToolCall
from voiceassist.ports import ToolCallingChatModel
from voiceassist.tools.medical import CALCULATE_MEDICAL_SCORE


def tool_call_body(*calls: tuple[str, str, str]) -> dict[str, Any]:
    body = completion_body(text=None)
    body["choices"][0]["message"]["tool_calls"] = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        for call_id, name, arguments in calls]
    body["choices"][0]["finish_reason"] = "tool_calls"
    return body


def test_openai_model_is_a_tool_calling_model_and_parses_the_calls() -> None:
    server = Server(lambda _request: httpx2.Response(200, json=tool_call_body(
        ("call_a", "calculate_medical_score", '{"calculator": "bmi", "parameters": {"weight_kg": 70}}'),
        ("call_b", "search_guidelines", "not json"))))
    model = model_on(server)

    completion = model.complete_with_tools([ChatMessage(role="user", content="BMI?")],
                                           [CALCULATE_MEDICAL_SCORE.definition])

    assert isinstance(model, ToolCallingChatModel)
    assert completion.tool_calls == [
        ToolCall(call_id="call_a", name="calculate_medical_score",
                 arguments={"calculator": "bmi", "parameters": {"weight_kg": 70}}),
        ToolCall(call_id="call_b", name="search_guidelines", arguments={})]
    sent = server.body()
    assert sent["tools"][0]["function"]["name"] == "calculate_medical_score"
    assert sent["tools"][0]["function"]["parameters"]["properties"]["calculator"]["enum"]


def test_openai_model_sends_earlier_rounds_as_assistant_calls_and_tool_messages() -> None:
    server = Server(lambda _request: httpx2.Response(200, json=completion_body(text="BMI 22.9 [1].")))
    call = ToolCall(call_id="call_a", name="calculate_medical_score", arguments={"calculator": "bmi"})
    messages = [ChatMessage(role="user", content="BMI?"),
                ChatMessage(role="assistant", content="", tool_calls=[call]),
                ChatMessage(role="tool", tool_call_id="call_a", content="BMI: 22.9 (cite as [1])")]

    completion = model_on(server).complete_with_tools(messages, [])

    assert (completion.text, completion.tool_calls) == ("BMI 22.9 [1].", [])
    sent = server.body()
    assert "tools" not in sent
    assert sent["messages"][1] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_a", "type": "function",
         "function": {"name": "calculate_medical_score", "arguments": json.dumps({"calculator": "bmi"})}}]}
    assert sent["messages"][2] == {"role": "tool", "content": "BMI: 22.9 (cite as [1])", "tool_call_id": "call_a"}


def test_sagemaker_lmi_model_sends_the_same_tools_and_parses_json_calls() -> None:
    import io

    import boto3
    from botocore.stub import ANY, Stubber

    from voiceassist.adapters.aws.sagemaker_chat import SageMakerChatModel

    client = boto3.client("sagemaker-runtime", region_name="us-east-1", aws_access_key_id="test",
                          aws_secret_access_key="test")
    reply = tool_call_body(("call_a", "calculate_medical_score", '{"calculator": "chadsvasc"}'))
    model = SageMakerChatModel("llama-endpoint", client=client)
    with Stubber(client) as stub:
        stub.add_response("invoke_endpoint", {"Body": io.BytesIO(json.dumps(reply).encode()),
                                              "ContentType": "application/json"},
                          {"EndpointName": "llama-endpoint", "ContentType": "application/json",
                           "Accept": "application/json", "Body": ANY})
        completion = model.complete_with_tools([ChatMessage(role="user", content="score?")],
                                               [CALCULATE_MEDICAL_SCORE.definition])

    assert isinstance(model, ToolCallingChatModel)
    assert completion.tool_calls == [ToolCall(call_id="call_a", name="calculate_medical_score",
                                              arguments={"calculator": "chadsvasc"})]
