"""The OpenAI-compatible endpoint counts the tokens it took and gave (also for an extractive answer, where no
model ran, and in a stream's last chunk when asked with stream_options.include_usage), answers as its one model (a
known name in any case is normalised, another is refused; GET /v1/models/{model} likewise), and refuses what it
cannot honour (a question over POST /v1/query's limit, n > 1) rather than answering something else."""

from __future__ import annotations

import openai
import pytest

from voiceassist.query.generation import count_tokens

QUESTION = "What is the metformin dose for eGFR 40?"


@pytest.fixture
def client(kb_server_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{kb_server_url}/v1", api_key="not-needed-locally", max_retries=0)


def test_an_extractive_completion_reports_the_tokens_of_the_messages_and_the_content(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="voiceassist",
                                                messages=[{"role": "user", "content": QUESTION}])
    usage = completion.usage
    assert usage is not None
    content = completion.choices[0].message.content or ""
    assert (completion.model_extra or {})["query_metadata"]["model"] == "extractive"
    assert usage.prompt_tokens == count_tokens(QUESTION) > 0
    assert usage.completion_tokens == count_tokens(content) > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_the_model_name_is_normalised(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model=" VoiceAssist", messages=[{"role": "user", "content": QUESTION}])
    assert completion.model == "voiceassist"


def test_another_model_name_is_refused_not_echoed(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="unknown model 'gpt-4o'"):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": QUESTION}])


def test_a_stream_asked_for_its_usage_ends_with_the_plain_completions_usage(client: openai.OpenAI) -> None:
    # `llm` and other clients ask with stream_options.include_usage and log the tokens of the last chunk
    chunks = list(client.chat.completions.create(model="voiceassist", stream=True,
                                                 stream_options={"include_usage": True},
                                                 messages=[{"role": "user", "content": QUESTION}]))
    plain = client.chat.completions.create(model="voiceassist", messages=[{"role": "user", "content": QUESTION}])
    last = chunks[-1]
    assert last.choices == [] and last.usage is not None and plain.usage is not None
    assert last.usage.prompt_tokens == plain.usage.prompt_tokens == count_tokens(QUESTION)
    assert last.usage.completion_tokens == plain.usage.completion_tokens > 0
    assert all(c.usage is None for c in chunks[:-1])


def test_a_stream_not_asked_for_its_usage_has_no_usage_chunk(client: openai.OpenAI) -> None:
    chunks = list(client.chat.completions.create(model="voiceassist", stream=True,
                                                 messages=[{"role": "user", "content": QUESTION}]))
    assert chunks[-1].choices[0].finish_reason == "stop" and all(c.usage is None for c in chunks)


def test_the_model_is_retrieved_by_name_and_another_is_a_404(client: openai.OpenAI) -> None:
    assert client.models.retrieve("voiceassist").id == "voiceassist"
    with pytest.raises(openai.NotFoundError, match="no model 'gpt-4o'"):
        client.models.retrieve("gpt-4o")


def test_a_question_over_the_limit_is_refused_not_cut_short(client: openai.OpenAI) -> None:
    long_question = "Is metformin safe in renal impairment? " * 120  # 4,680 characters
    with pytest.raises(openai.BadRequestError, match="the limit is 4000: shorten it"):
        client.chat.completions.create(model="voiceassist", messages=[{"role": "user", "content": long_question}])
    with pytest.raises(openai.BadRequestError, match="the limit is 4000"):
        client.chat.completions.create(model="voiceassist", stream=True,
                                       messages=[{"role": "user", "content": long_question}])


def test_the_question_limit_is_the_query_requests() -> None:
    from voiceassist.conversation.chat_completions import QUESTION_MAX_CHARS
    from voiceassist.models import QueryRequest

    QueryRequest(query="a" * QUESTION_MAX_CHARS)
    with pytest.raises(ValueError):
        QueryRequest(query="a" * (QUESTION_MAX_CHARS + 1))


def test_more_than_one_choice_is_refused_in_our_words(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="voiceassist", n=2, messages=[{"role": "user", "content": QUESTION}])
    message = str(refused.value)
    assert "this API returns one choice" in message and "Value error" not in message
