"""The unmodified `openai` SDK reads the local server's refusals as OpenAI's errors: the ones its HTTP layer writes
before a route runs (a wrong key, a body over the limit) carry `type` where OpenAI's error bodies put it, as the
API's own errors do (routes/errors.py), so a client that branches on `err.type` sees them too."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.support.voiceassist_server import serving
from voiceassist.composition import Dependencies

TOKEN = "s3cret-for-this-test"


@pytest.fixture
def token_server_url(kb_deps: Dependencies) -> Iterator[str]:
    with serving(token=TOKEN) as origin:
        yield f"{origin}/v1"


def test_a_wrong_key_is_an_authentication_error_with_its_type(token_server_url: str) -> None:
    client = openai.OpenAI(base_url=token_server_url, api_key="not-the-token", max_retries=0)

    with pytest.raises(openai.AuthenticationError) as refused:
        client.models.list()

    assert (refused.value.status_code, refused.value.type, refused.value.code) == (401, "unauthorized",
                                                                                    "unauthorized")


def test_a_body_over_the_limit_is_refused_with_its_type(token_server_url: str) -> None:
    client = openai.OpenAI(base_url=token_server_url, api_key=TOKEN, max_retries=0)

    with pytest.raises(openai.APIStatusError) as refused:
        client.chat.completions.create(model="voiceassist",
                                       messages=[{"role": "user", "content": "a" * 1_200_000}])

    assert (refused.value.status_code, refused.value.type) == (413, "payload_too_large")
    assert "limit" in refused.value.message


def test_the_right_key_gets_the_answer(token_server_url: str) -> None:
    client = openai.OpenAI(base_url=token_server_url, api_key=TOKEN, max_retries=0)

    assert [m.id for m in client.models.list()] == ["voiceassist"]
