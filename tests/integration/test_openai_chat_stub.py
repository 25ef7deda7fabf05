"""The OpenAI-compatible adapter and the fallback chain over real HTTP, against stub servers on 127.0.0.1."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tests.stubs.openai_stub import OpenAIStub, StubReply
from voiceassist.adapters.openai.chat import OpenAIChatModel
from voiceassist.errors import Conflict, ModelUnavailable
from voiceassist.models import ChatMessage, RoutingMode
from voiceassist.query.circuit_breaker import BreakerRegistry
from voiceassist.query.routing import choose_models, generate_with_fallbacks

MESSAGES = [ChatMessage(role="system", content="clinical reference assistant"),
            ChatMessage(role="user", content="Question: maximum daily dose of metformin?")]


class MemoryState:
    def __init__(self) -> None:
        self.items: dict[str, tuple[dict[str, Any], int]] = {}

    def get(self, key: str) -> tuple[dict[str, Any] | None, int]:
        return self.items.get(key, (None, 0))

    def put(self, key: str, value: dict[str, Any], *, expected_version: int, ttl_seconds: int | None = None
            ) -> int:
        if self.items.get(key, (None, 0))[1] != expected_version:
            raise Conflict(key)
        self.items[key] = (value, expected_version + 1)
        return expected_version + 1


def local_model(stub: OpenAIStub, **options: Any) -> OpenAIChatModel:
    return OpenAIChatModel("llama3.1:8b", in_boundary=True, base_url=stub.base_url, **options)


def test_complete_over_http_returns_the_servers_answer() -> None:
    with OpenAIStub([StubReply(text="Up to 2,000 mg per day [1].")]) as stub:
        completion = local_model(stub).complete(MESSAGES, max_tokens=200)

    assert completion.text == "Up to 2,000 mg per day [1]."
    assert stub.requests[0]["messages"][1]["content"] == "Question: maximum daily dose of metformin?"
    assert stub.requests[0]["max_tokens"] == 200


def test_stream_over_http_yields_the_answer_in_pieces() -> None:
    with OpenAIStub([StubReply(text="Up to 2,000 mg per day [1].")]) as stub:
        deltas: list[str] = []
        local_model(stub).stream_completion(MESSAGES, on_text=deltas.append)

    assert len(deltas) > 1 and "".join(deltas).strip() == "Up to 2,000 mg per day [1]."


def test_a_server_slower_than_the_timeout_is_unavailable() -> None:
    with OpenAIStub([StubReply(delay_s=30)]) as stub, pytest.raises(ModelUnavailable, match="timed out"):
        local_model(stub, timeout_s=0.2).complete(MESSAGES)


def test_a_closed_port_is_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAIChatModel("llama3.1:8b", in_boundary=True, base_url=f"http://127.0.0.1:{port}/v1")

    with pytest.raises(ModelUnavailable, match="could not be reached"):
        model.complete(MESSAGES)


def test_fallback_chain_over_http_moves_from_a_failing_cloud_to_the_local_server() -> None:
    with OpenAIStub([StubReply(status=503)], model="gpt-4o-mini") as cloud_stub, \
            OpenAIStub([StubReply(text="Up to 2,000 mg per day [1].")]) as local_stub:
        cloud = OpenAIChatModel("gpt-4o-mini", in_boundary=False, base_url=cloud_stub.base_url, api_key="sk")
        plan = choose_models(False, RoutingMode.HYBRID, cloud=cloud, local=local_model(local_stub))
        generation = generate_with_fallbacks(plan, MESSAGES, breakers=BreakerRegistry(MemoryState()),
                                             egress_check=lambda text: None, sleep=lambda seconds: None)

    assert generation.text == "Up to 2,000 mg per day [1]."
    assert [(a.model, a.ok) for a in generation.attempts] == [
        ("gpt-4o-mini", False), ("gpt-4o-mini", False), ("llama3.1:8b", True),
    ]
    assert len(cloud_stub.requests) == 2
