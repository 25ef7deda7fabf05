"""The OpenAI-compatible ChatModel against an in-memory HTTP transport (no sockets)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from voiceassist.adapters.openai.chat import OpenAIChatModel
from voiceassist.errors import DependencyError, InvalidInput, ModelUnavailable
from voiceassist.models import ChatMessage

PROMPT_SECRET = "John Smith MRN 4411902"
MESSAGES = [ChatMessage(role="system", content="clinical reference assistant"),
            ChatMessage(role="user", content=f"Question: {PROMPT_SECRET} metformin dose?")]


def completion_body(text: str | None = "Metformin: 2,000 mg per day at most [1].",
                    model: str = "gpt-4o-mini-2024-07-18") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200},
    }


class Server:
    """Records requests and answers each with the handler's response."""

    def __init__(self, handler: Callable[[httpx2.Request], httpx2.Response]) -> None:
        self.requests: list[httpx2.Request] = []
        self._handler = handler

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self._handler(request)

    def body(self, index: int = -1) -> dict[str, Any]:
        return dict(json.loads(self.requests[index].content))


def model_on(server: Server, **options: Any) -> OpenAIChatModel:
    options.setdefault("api_key", "sk-test")
    return OpenAIChatModel("gpt-4o-mini", in_boundary=False,
                           http_client=httpx2.Client(transport=httpx2.MockTransport(server)), **options)


def test_complete_returns_text_model_usage_and_cost() -> None:
    server = Server(lambda request: httpx2.Response(200, json=completion_body()))

    completion = model_on(server).complete(MESSAGES, max_tokens=300, temperature=0.0)

    assert completion.text == "Metformin: 2,000 mg per day at most [1]."
    assert completion.model == "gpt-4o-mini-2024-07-18"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (1000, 200)
    assert completion.usage.cost_usd == pytest.approx(1000 / 1000 * 0.00015 + 200 / 1000 * 0.0006)


def test_complete_sends_the_openai_chat_shape_to_openai() -> None:
    server = Server(lambda request: httpx2.Response(200, json=completion_body()))

    model_on(server).complete(MESSAGES, max_tokens=300, temperature=0.0)

    request = server.requests[0]
    assert str(request.url) == "https://api.openai.com/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert server.body() == {"model": "gpt-4o-mini", "max_completion_tokens": 300, "temperature": 0.0,
                             "messages": [m.model_dump(include={"role", "content"}) for m in MESSAGES]}


def test_complete_sends_max_tokens_to_a_local_server_without_a_key() -> None:
    server = Server(lambda request: httpx2.Response(200, json=completion_body(model="llama3.1:8b")))
    local = OpenAIChatModel("llama3.1:8b", in_boundary=True, base_url="http://ollama.internal:11434/v1",
                            http_client=httpx2.Client(transport=httpx2.MockTransport(server)))

    completion = local.complete(MESSAGES, max_tokens=300)

    assert str(server.requests[0].url) == "http://ollama.internal:11434/v1/chat/completions"
    assert server.body()["max_tokens"] == 300 and "max_completion_tokens" not in server.body()
    assert completion.usage.cost_usd == 0.0 and local.in_boundary


def test_complete_returns_empty_text_when_the_model_gives_no_content() -> None:
    server = Server(lambda request: httpx2.Response(200, json=completion_body(text=None)))

    assert model_on(server).complete(MESSAGES).text == ""


@pytest.mark.parametrize(("status", "error"), [
    (500, ModelUnavailable), (502, ModelUnavailable), (503, ModelUnavailable), (429, ModelUnavailable),
    (408, ModelUnavailable), (400, DependencyError), (401, DependencyError), (404, DependencyError),
])
def test_complete_maps_http_errors_without_echoing_the_prompt(status: int, error: type[Exception]) -> None:
    echo = {"error": {"message": f"could not process: {PROMPT_SECRET}", "type": "server_error"}}
    server = Server(lambda request: httpx2.Response(status, json=echo))

    with pytest.raises(error) as raised:
        model_on(server).complete(MESSAGES)

    assert type(raised.value) is error
    assert f"HTTP {status}" in str(raised.value) and PROMPT_SECRET not in str(raised.value)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    assert len(server.requests) == 1  # retries belong to routing


def test_a_200_whose_body_is_not_json_is_a_dependency_error() -> None:
    server = Server(lambda request: httpx2.Response(200, content=b'{"id": "chatcmpl-1", "choices": [',
                                                    headers={"content-type": "application/json"}))

    with pytest.raises(DependencyError, match="returned a body that is not JSON") as raised:
        model_on(server).complete(MESSAGES)

    assert type(raised.value) is DependencyError and PROMPT_SECRET not in str(raised.value)


@pytest.mark.parametrize(("failure", "message"), [
    (httpx2.ReadTimeout("read timed out"), "timed out after 20 s"),
    (httpx2.ConnectTimeout("connect timed out"), "timed out after 20 s"),
    (httpx2.ConnectError("connection refused"), "could not be reached"),
])
def test_complete_maps_timeouts_and_connection_errors_to_model_unavailable(failure: Exception,
                                                                           message: str) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise failure

    with pytest.raises(ModelUnavailable, match=message):
        model_on(Server(handler)).complete(MESSAGES)


def test_key_provider_is_read_lazily_once_and_again_after_a_rejected_key() -> None:
    keys = iter(["sk-old", "sk-rotated"])
    reads: list[str] = []

    def key_provider() -> str:
        reads.append(next(keys))
        return reads[-1]

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.headers["authorization"] == "Bearer sk-old":
            return httpx2.Response(401, json={"error": {"message": "bad key"}})
        return httpx2.Response(200, json=completion_body())

    model = model_on(Server(handler), api_key=None, key_provider=key_provider)
    assert reads == []

    with pytest.raises(DependencyError):
        model.complete(MESSAGES)
    model.complete(MESSAGES)
    model.complete(MESSAGES)

    assert reads == ["sk-old", "sk-rotated"]


def test_openai_model_without_key_or_local_url_is_refused() -> None:
    with pytest.raises(InvalidInput, match="api_key"):
        OpenAIChatModel("gpt-4o-mini", in_boundary=False)
