"""The OpenAI-compatible endpoint counts the tokens it took and gave (also for an extractive answer, where no
model ran) and answers as its one model: a known name in any case is normalised, another is refused."""

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
