"""The unmodified `openai` SDK against the real local server: the request options it sends are honoured
(max_tokens and max_completion_tokens cut the content, plain and streamed, with finish_reason "length";
tool_choice "auto"/"none" and response_format "text" answer as before) or refused with a 400 naming the option
(`param`) and what is supported (response_format json_object/json_schema, tool_choice required or a named
function, logprobs, an audio answer, logit_bias), never accepted and silently ignored; `stop` ends the content
before the first stop sequence, plain and streamed."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from voiceassist.composition import Dependencies
from voiceassist.query.generation import count_tokens, first_tokens

QUESTION = "What is the metformin dose for eGFR 40?"
MESSAGES: list[Any] = [{"role": "user", "content": QUESTION}]
LOOKUP_TOOL: Any = {"type": "function", "function": {
    "name": "lookup_patient", "description": "Look up a patient record",
    "parameters": {"type": "object", "properties": {"mrn": {"type": "string"}}, "required": ["mrn"]}}}


@pytest.fixture
def client(kb_server_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{kb_server_url}/v1", api_key="not-needed-locally", max_retries=0)


@pytest.mark.parametrize("response_format", [
    {"type": "json_object"},
    {"type": "json_schema", "json_schema": {"name": "dose", "schema": {"type": "object"}}},
])
def test_a_json_response_format_is_refused_naming_the_parameter(client: openai.OpenAI, response_format: Any) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES, response_format=response_format)
    assert refused.value.param == "response_format"
    assert response_format["type"] in str(refused.value) and '{"type": "text"}' in str(refused.value)


def test_a_text_response_format_answers_as_before(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="voiceassist", messages=MESSAGES,
                                                response_format={"type": "text"})
    assert completion.choices[0].finish_reason == "stop" and "[1]" in (completion.choices[0].message.content or "")


@pytest.mark.parametrize("tool_choice", ["required", {"type": "function", "function": {"name": "lookup_patient"}}])
def test_a_tool_call_the_api_would_have_to_make_is_refused(client: openai.OpenAI, tool_choice: Any) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES, tools=[LOOKUP_TOOL],
                                       tool_choice=tool_choice)
    assert refused.value.param == "tool_choice"
    assert "never calls the client's tools" in str(refused.value) and '"auto" or "none"' in str(refused.value)


def test_a_function_call_the_api_would_have_to_make_is_refused_as_tool_choice_is(client: openai.OpenAI) -> None:
    """Found by an OpenAI SDK probe: the legacy `function_call` naming a function was accepted and silently ignored
    (the answer came without the call the client forced), where the same `tool_choice` is refused."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES, functions=[LOOKUP_TOOL["function"]],
                                       function_call={"name": "lookup_patient"})
    assert refused.value.param == "function_call" and "lookup_patient" not in str(refused.value)
    assert "never calls the client's" in str(refused.value) and '"auto" or "none"' in str(refused.value)
    answered = client.chat.completions.create(model="voiceassist", messages=MESSAGES,
                                              functions=[LOOKUP_TOOL["function"]], function_call="auto")
    assert "[1]" in (answered.choices[0].message.content or "")


def test_a_web_search_the_api_does_not_run_is_refused_not_ignored(client: openai.OpenAI) -> None:
    """Found by an OpenAI SDK probe: web_search_options was accepted and silently ignored, so a client asking for a
    web search got a knowledge-base answer it could take for one."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES,
                                       web_search_options={"search_context_size": "high"})
    assert refused.value.param == "web_search_options"


@pytest.mark.parametrize("tool_choice", ["auto", "none"])
def test_tools_the_api_may_leave_uncalled_get_the_cited_answer(client: openai.OpenAI, tool_choice: Any) -> None:
    completion = client.chat.completions.create(model="voiceassist", messages=MESSAGES, tools=[LOOKUP_TOOL],
                                                tool_choice=tool_choice)
    choice = completion.choices[0]
    assert choice.finish_reason == "stop" and not choice.message.tool_calls and "[1]" in (choice.message.content or "")


@pytest.mark.parametrize("limit", ["max_tokens", "max_completion_tokens"])
def test_a_token_limit_cuts_the_content_with_finish_reason_length(client: openai.OpenAI, limit: str) -> None:
    full = client.chat.completions.create(model="voiceassist", messages=MESSAGES).choices[0].message.content or ""
    cut = client.chat.completions.create(model="voiceassist", messages=MESSAGES, **{limit: 5})
    content = cut.choices[0].message.content or ""
    assert cut.choices[0].finish_reason == "length"
    assert content == first_tokens(full, 5) and full.startswith(content) and len(content) < len(full)
    assert cut.usage is not None and cut.usage.completion_tokens == count_tokens(content) <= 5


def test_the_smaller_of_two_token_limits_applies(client: openai.OpenAI) -> None:
    cut = client.chat.completions.create(model="voiceassist", messages=MESSAGES, max_tokens=40,
                                         max_completion_tokens=3)
    assert cut.usage is not None and cut.usage.completion_tokens <= 3
    assert cut.choices[0].finish_reason == "length"


def test_a_limit_the_answer_fits_in_changes_nothing(client: openai.OpenAI) -> None:
    plain = client.chat.completions.create(model="voiceassist", messages=MESSAGES)
    roomy = client.chat.completions.create(model="voiceassist", messages=MESSAGES, max_tokens=4000)
    assert roomy.choices[0].finish_reason == "stop"
    assert roomy.choices[0].message.content == plain.choices[0].message.content


def test_a_streamed_token_limit_sends_the_plain_cut_and_ends_with_length(client: openai.OpenAI) -> None:
    plain = client.chat.completions.create(model="voiceassist", messages=MESSAGES, max_tokens=12)
    chunks = list(client.chat.completions.create(model="voiceassist", messages=MESSAGES, max_tokens=12,
                                                 stream=True, stream_options={"include_usage": True}))
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == plain.choices[0].message.content and count_tokens(content) <= 12
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["length"]
    assert (chunks[-2].model_extra or {})["citations"][0]["doc_key"] == "sample-metformin"
    assert chunks[-1].usage is not None and plain.usage is not None
    assert chunks[-1].usage.completion_tokens == plain.usage.completion_tokens == count_tokens(content)


@pytest.mark.parametrize("value", [0, -3, "5"])
def test_a_token_limit_that_is_not_a_positive_whole_number_is_refused(client: openai.OpenAI, value: Any) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES, max_tokens=value)
    assert refused.value.param == "max_tokens" and "at least 1" in str(refused.value)


def test_the_api_handler_refuses_and_honours_the_same_options(kb_deps: Dependencies) -> None:
    """On AWS the route is the API function's: the same 400 with `param`, and the same cut."""
    from voiceassist_local.handlers import invoke
    from voiceassist_local.server import to_api_gateway_event

    def post(**options: Any) -> dict[str, Any]:
        body = json.dumps({"model": "voiceassist", "messages": MESSAGES, **options}).encode()
        return invoke("api", to_api_gateway_event("POST", "/v1/chat/completions",
                                                  {"content-type": "application/json"}, body))

    refused = post(response_format={"type": "json_object"})
    assert refused["statusCode"] == 400 and json.loads(refused["body"])["error"]["param"] == "response_format"
    cut = json.loads(post(max_tokens=5)["body"])
    assert cut["choices"][0]["finish_reason"] == "length" and cut["usage"]["completion_tokens"] <= 5
    stream = post(max_tokens=5, stream=True)["body"]
    finals = [json.loads(line[6:]) for line in stream.split("\n\n") if line.startswith("data: {")]
    assert [c["choices"][0]["finish_reason"] for c in finals if c["choices"][0]["finish_reason"]] == ["length"]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in finals) == cut["choices"][0]["message"][
        "content"]


def test_a_refusal_never_quotes_free_text_from_the_options(client: openai.OpenAI) -> None:
    """PHI boundary: an option value is not echoed into the 400 (only OpenAI's own option names are)."""
    phi = "John Smith MRN 4417823"
    for options in ({"response_format": {"type": phi}}, {"tool_choice": phi}, {"max_tokens": phi}):
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="voiceassist", messages=MESSAGES, **options)
        assert "4417823" not in str(refused.value.body) and "Smith" not in str(refused.value.body)


@pytest.mark.parametrize("stream", ["yes", "true", 1, 0])
def test_a_stream_flag_that_is_not_a_json_boolean_is_refused(kb_server_url: str, stream: Any) -> None:
    """OpenAI takes true, false or null: "yes" was streamed, and the SDK that sent it read the stream as a
    completion (AttributeError in the client)."""
    reply = httpx.post(f"{kb_server_url}/v1/chat/completions", timeout=120,
                       json={"model": "voiceassist", "messages": MESSAGES, "stream": stream})
    assert reply.status_code == 400 and reply.headers["content-type"].startswith("application/json")
    assert reply.json()["error"]["message"].startswith("stream:")


def test_null_options_are_taken_as_left_out(client: openai.OpenAI) -> None:
    """OpenAI's stream, n and stream_options.include_usage are nullable: null means the default."""
    plain = client.chat.completions.create(model="voiceassist", messages=MESSAGES, stream=None, n=None)
    assert "[1]" in (plain.choices[0].message.content or "")


@pytest.mark.parametrize("role", ["hacker", "User", ""])
def test_a_message_role_openai_does_not_know_is_refused_by_name(client: openai.OpenAI, role: str) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=[{"role": role, "content": QUESTION}])  # type: ignore[misc,list-item]
    assert ("messages.0.role: Input should be 'system', 'developer', 'user', 'assistant', 'tool' or 'function'"
            in str(refused.value))


def test_a_conversation_with_system_developer_and_tool_messages_gets_the_answer(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="voiceassist", messages=[
        {"role": "system", "content": "Be brief."}, {"role": "developer", "content": "Cite."},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "nothing"}, {"role": "user", "content": QUESTION}])
    assert "[1]" in (reply.choices[0].message.content or "")


@pytest.mark.parametrize("part", [
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    {"type": "Zebulon Quartermaine 1961-04-17"},
])
def test_a_content_part_that_is_not_text_is_refused_not_dropped(client: openai.OpenAI, part: Any) -> None:
    """The image was dropped and the text beside it answered: not the question asked. The refusal quotes only
    OpenAI's own part types."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=[
            {"role": "user", "content": [{"type": "text", "text": QUESTION}, part]}])
    message = str(refused.value)
    assert "cannot be read" in message and "Quartermaine" not in message and "1961" not in message
    if part["type"] != "Zebulon Quartermaine 1961-04-17":
        assert repr(part["type"]) in message


def test_the_published_schema_says_which_token_limits_are_taken(kb_server_url: str) -> None:
    """It allowed any value, so a schema-valid 0 or "5" got a 400 (schemathesis's positive-data check)."""
    schemas = httpx.get(f"{kb_server_url}/v1/openapi.json", timeout=60).json()["components"]["schemas"]
    for name in ("max_tokens", "max_completion_tokens"):
        taken = schemas["ChatCompletionRequest"]["properties"][name]["anyOf"]
        assert {"type": "integer", "minimum": 1} in taken and {"type": "null"} in taken


def test_stream_options_without_a_stream_are_refused_as_openai_refuses_them(client: openai.OpenAI) -> None:
    """include_usage on a plain completion was accepted and ignored."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES,
                                       stream_options={"include_usage": True})
    assert refused.value.param == "stream_options" and "stream: true" in str(refused.value)


def test_a_malformed_chat_body_gets_the_apis_code_and_details_locally_too(kb_server_url: str,
                                                                          kb_deps: Dependencies) -> None:
    """The local server's chat route said invalid_input where the API function (on AWS) says invalid_request with
    details, for the same body."""
    from voiceassist_local.handlers import invoke
    from voiceassist_local.server import to_api_gateway_event

    body = {"model": "voiceassist", "messages": [{"role": "user", "content": 5}], "n": "two"}
    local = httpx.post(f"{kb_server_url}/v1/chat/completions", json=body, timeout=120).json()["error"]
    aws = json.loads(invoke("api", to_api_gateway_event("POST", "/v1/chat/completions",
                                                        {"content-type": "application/json"},
                                                        json.dumps(body).encode()))["body"])["error"]
    assert local["code"] == aws["code"] == "invalid_request" == local["type"]
    assert [d["field"] for d in local["details"]] == [d["field"] for d in aws["details"]]


@pytest.mark.parametrize(("option", "value"), [
    ("temperature", 5), ("temperature", -0.1), ("top_p", 1.5), ("top_p", -1), ("presence_penalty", 2.5),
    ("frequency_penalty", -3), ("temperature", "hot"), ("top_p", True), ("seed", 1.5), ("seed", 2**63),
    ("seed", "7"),
])
def test_a_sampling_option_out_of_openais_range_is_refused_naming_it(client: openai.OpenAI, option: str,
                                                                    value: Any) -> None:
    """temperature=5 was accepted and ignored; OpenAI answers 400 invalid_request_error with `param`."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES, **{option: value})
    assert refused.value.param == option and refused.value.code == "invalid_value"
    assert str(refused.value.body).count(option) >= 1 and ("from" in str(refused.value) or "whole" in
                                                             str(refused.value))


def test_sampling_options_within_openais_range_answer_as_before(client: openai.OpenAI) -> None:
    plain = client.chat.completions.create(model="voiceassist", messages=MESSAGES)
    sampled = client.chat.completions.create(model="voiceassist", messages=MESSAGES, temperature=2, top_p=0,
                                             presence_penalty=-2, frequency_penalty=2, seed=-(2**63))
    assert sampled.choices[0].message.content == plain.choices[0].message.content


def test_a_sampling_refusal_never_quotes_free_text(client: openai.OpenAI) -> None:
    for option in ("temperature", "top_p", "seed"):
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="voiceassist", messages=MESSAGES,
                                           **{option: "John Smith MRN 4417823"})
        assert "4417823" not in str(refused.value.body) and "Smith" not in str(refused.value.body)


@pytest.mark.parametrize(("param", "options"), [
    ("logprobs", {"logprobs": True}),
    ("top_logprobs", {"top_logprobs": 3}),
    ("modalities", {"modalities": ["text", "audio"]}),
    ("audio", {"audio": {"voice": "alloy", "format": "wav"}}),
    ("logit_bias", {"logit_bias": {"1820": -100}}),
])
def test_an_option_the_answer_cannot_honour_is_refused_not_ignored(client: openai.OpenAI, param: str,
                                                                   options: dict[str, Any]) -> None:
    """logprobs came back null, an audio answer as text only, a banned token could still appear: each was accepted
    and ignored (found by an SDK probe)."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES, **options)
    assert refused.value.param == param and refused.value.code == "unsupported_parameter"


def test_the_defaults_of_those_options_answer_as_before(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="voiceassist", messages=MESSAGES, logprobs=False,
                                                modalities=["text"], logit_bias={})
    assert completion.choices[0].finish_reason == "stop" and "[1]" in (completion.choices[0].message.content or "")


def test_a_stop_sequence_ends_the_content_plain_and_streamed(client: openai.OpenAI) -> None:
    full = client.chat.completions.create(model="voiceassist", messages=MESSAGES).choices[0].message.content or ""
    stop = "\n\nSources:"
    plain = client.chat.completions.create(model="voiceassist", messages=MESSAGES, stop=stop)
    content = plain.choices[0].message.content or ""
    assert content == full[:full.index(stop)] and plain.choices[0].finish_reason == "stop"
    assert (plain.model_extra or {})["citations"]  # the citations extension stays whole
    chunks = list(client.chat.completions.create(model="voiceassist", messages=MESSAGES, stop=[stop, "zzz"],
                                                 stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == content


@pytest.mark.parametrize("stop", [["a", "b", "c", "d", "e"], [""], [3], {"x": 1}])
def test_a_stop_that_is_not_up_to_four_strings_is_refused(client: openai.OpenAI, stop: Any) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", messages=MESSAGES, stop=stop)
    assert refused.value.param == "stop" and refused.value.code == "invalid_value"
