"""The unmodified `openai` SDK against the real local server: cited answers, plain and streamed, the models list,
and the PHI rules of POST /v1/query applied to the whole message list."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.server import make_server

from tests.stubs.query_stack import QueryStack, query_stack
from voiceassist.composition import Dependencies

QUESTION = "What is the metformin dose for eGFR 40?"


@pytest.fixture
def client(kb_server_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{kb_server_url}/v1", api_key="not-needed-locally", max_retries=0)


def test_the_sdk_lists_the_model(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["voiceassist"]


def test_the_sdk_gets_a_cited_answer(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="voiceassist",
                                                messages=[{"role": "user", "content": QUESTION}])
    content = completion.choices[0].message.content or ""
    assert completion.choices[0].finish_reason == "stop" and "[1]" in content
    assert "\n\nSources:\n[1] " in content
    extra: dict[str, Any] = completion.model_extra or {}
    assert extra["citations"][0]["doc_key"] == "sample-metformin"
    assert extra["citations"][0]["title"] in content.split("Sources:")[1]


def test_the_sdk_streams_a_cited_answer_in_many_chunks(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(model="voiceassist", stream=True,
                                            messages=[{"role": "user", "content": QUESTION}])
    chunks = list(stream)
    content = "".join(c.choices[0].delta.content or "" for c in chunks)
    plain = client.chat.completions.create(model="voiceassist", messages=[{"role": "user", "content": QUESTION}])
    assert len([c for c in chunks if c.choices[0].delta.content]) >= 3
    assert content == plain.choices[0].message.content  # streamed and plain: the same cited answer
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert (chunks[-1].model_extra or {})["citations"][0]["doc_key"] == "sample-metformin"


def test_a_follow_up_in_the_messages_resolves_against_the_history(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="voiceassist", messages=[
        {"role": "user", "content": "What is the first-line treatment for uncomplicated hypertension?"},
        {"role": "assistant", "content": "A thiazide-like diuretic, an ACE inhibitor or ARB, or a calcium "
                                         "channel blocker [1]."},
        {"role": "user", "content": "What blood pressure target should we aim for?"}])
    assert (completion.model_extra or {})["citations"][0]["doc_key"] == "sample-hypertension-primary-care"


def test_phi_anywhere_in_the_messages_keeps_the_answer_inside_the_boundary(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="voiceassist", messages=[
        {"role": "user", "content": "My patient John Smith, MRN 4417823, has type 2 diabetes."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": QUESTION}])
    metadata = (completion.model_extra or {})["query_metadata"]
    assert metadata["phi_detected"] is True
    assert any("earlier messages contain patient details" in w for w in metadata["warnings"])


@pytest.mark.parametrize("earlier", [
    # shapes other generators write (bench/phi_other_generators.py): an age with its sex, a national id by its name,
    # a phone number dictated digit by digit
    "Handover: 96F on the ward with a UTI, on nitrofurantoin.",
    "Re NHI QKD4821: recurrent cellulitis, on flucloxacillin.",
    "Her daughter asked to be rung on oh seven nine double one one two three four five six.",
])
def test_phi_other_generators_write_in_an_earlier_turn_keeps_the_answer_inside(client: openai.OpenAI,
                                                                                  earlier: str) -> None:
    completion = client.chat.completions.create(model="voiceassist", messages=[
        {"role": "user", "content": earlier}, {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": QUESTION}])
    metadata = (completion.model_extra or {})["query_metadata"]
    assert metadata["phi_detected"] is True
    assert any("earlier messages contain patient details" in w for w in metadata["warnings"])


def test_a_failed_detector_on_the_history_keeps_the_answer_inside_the_boundary(
        client: openai.OpenAI, kb_deps: Dependencies) -> None:
    from voiceassist.phi.detection import FailClosedDetector

    class CrashesOnHistory:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def detect(self, text: str) -> Any:
            if "assistant:" in text:
                raise RuntimeError("recognizer crashed")
            return self.inner.detect(text)

    kb_deps.phi_detector = FailClosedDetector(CrashesOnHistory(kb_deps.phi_detector))  # type: ignore[misc]
    completion = client.chat.completions.create(model="voiceassist", messages=[
        {"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi"},
        {"role": "user", "content": QUESTION}])
    metadata = (completion.model_extra or {})["query_metadata"]
    assert metadata["phi_detected"] is True and metadata["model"] == "extractive"


def test_a_conversation_without_a_user_question_is_a_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="must end with a user message"):
        client.chat.completions.create(model="voiceassist", messages=[{"role": "system", "content": "Be brief"}])


def test_the_api_handler_answers_chat_completions_too(kb_deps: Dependencies) -> None:
    """On AWS the route is the API function's: plain JSON, and `stream: true` as one SSE body."""
    from voiceassist_local.handlers import invoke
    from voiceassist_local.server import to_api_gateway_event

    for stream in (False, True):
        body = json.dumps({"model": "voiceassist", "stream": stream,
                           "messages": [{"role": "user", "content": QUESTION}]}).encode()
        reply = invoke("api", to_api_gateway_event("POST", "/v1/chat/completions",
                                                   {"content-type": "application/json"}, body))
        assert reply["statusCode"] == 200, reply
        if stream:
            lines = [line[6:] for line in reply["body"].split("\n\n") if line.startswith("data: ")]
            assert lines[-1] == "[DONE]" and len(lines) >= 5
            assert json.loads(lines[-2])["citations"][0]["doc_key"] == "sample-metformin"
        else:
            assert json.loads(reply["body"])["object"] == "chat.completion"


def test_models_route_over_plain_http(kb_server_url: str) -> None:
    with urllib.request.urlopen(f"{kb_server_url}/v1/models", timeout=30) as reply:
        assert json.loads(reply.read())["data"][0]["id"] == "voiceassist"


@pytest.fixture
def stack_client(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 shared_embedder: Any, shared_phi_detector: Any) -> Iterator[tuple[QueryStack, openai.OpenAI]]:
    """The SDK against the local server on a stack with a cloud model and an in-boundary model (stubs)."""
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector, clinical_context=None) as stack:
        server = make_server("127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        yield stack, openai.OpenAI(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", api_key="local",
                                   max_retries=0)
        server.shutdown()
        server.server_close()


def test_a_streamed_chat_with_phi_in_its_history_never_reaches_the_cloud_model(
        stack_client: tuple[QueryStack, openai.OpenAI]) -> None:
    stack, client = stack_client
    chunks = list(client.chat.completions.create(model="voiceassist", stream=True, messages=[
        {"role": "user", "content": "Patient John Smith, MRN 4417823, DOB 03/14/1956, is on metformin."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": QUESTION}]))
    assert stack.cloud.raw_requests == []  # the cloud model never saw any of it
    assert len(stack.sagemaker.requests) == 1  # the in-boundary model answered
    assert "4417823" not in json.dumps([r.body for r in stack.cloud.raw_requests])
    assert (chunks[-1].model_extra or {})["query_metadata"]["phi_detected"] is True


@pytest.mark.parametrize("name", ["J\u200bohn S\u200bmith", "\uff2a\uff4f\uff48\uff4e \uff33\uff4d\uff49\uff54\uff48"])
def test_a_patient_name_hidden_by_how_it_is_typed_never_reaches_the_cloud_model(
        stack_client: tuple[QueryStack, openai.OpenAI], name: str) -> None:
    """A zero-width space inside the name, or full-width letters: the name reads the same to a model."""
    stack, client = stack_client
    reply = client.chat.completions.create(model="voiceassist", messages=[
        {"role": "user", "content": f"{name} is 64 and on metformin: what is the metformin dose for eGFR 40?"}])
    assert stack.cloud.raw_requests == [] and len(stack.sagemaker.requests) == 1
    assert (reply.model_extra or {})["query_metadata"]["phi_detected"] is True


def test_a_streamed_chat_without_phi_goes_to_the_cloud_model(stack_client: tuple[QueryStack, openai.OpenAI]) -> None:
    stack, client = stack_client
    chunks = list(client.chat.completions.create(model="voiceassist", stream=True, messages=[
        {"role": "user", "content": "What is metformin used for?"}, {"role": "assistant", "content": "Diabetes [1]."},
        {"role": "user", "content": QUESTION}]))
    assert len(stack.cloud.requests) == 1 and stack.sagemaker.requests == []
    content = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "[1]" in content and "Sources:" in content


def test_phi_in_a_turn_older_than_the_history_window_keeps_the_answer_inside_the_boundary(
        stack_client: tuple[QueryStack, openai.OpenAI]) -> None:
    """Turns the window no longer holds are still PHI-checked (within EARLIER_CHECK_CHARS)."""
    stack, client = stack_client
    filler = [{"role": role, "content": "What is metformin used for? " * 120} for role in ("user", "assistant") * 3]
    client.chat.completions.create(model="voiceassist", messages=[
        {"role": "user", "content": "Patient John Smith, MRN 4417823, is on metformin."}, *filler[:4],
        {"role": "user", "content": QUESTION}])
    assert stack.cloud.raw_requests == [] and len(stack.sagemaker.requests) == 1
    assert "4417823" not in json.dumps(stack.sagemaker.requests)  # outside the window: not sent


def test_a_history_too_long_to_check_is_answered_inside_the_boundary_and_only_its_window_is_read(
        stack_client: tuple[QueryStack, openai.OpenAI], monkeypatch: pytest.MonkeyPatch) -> None:
    """300 messages of 3,000 characters (900 KB): the detector reads the window, not the whole conversation, and
    the run, whose older turns went unchecked, stays inside the boundary."""
    stack, client = stack_client
    read: list[int] = []
    detect = stack.deps.phi_detector.detect
    monkeypatch.setattr(stack.deps.phi_detector, "detect", lambda text: read.append(len(text)) or detect(text))
    history = [{"role": role, "content": ("Metformin is first line in type 2 diabetes. " * 70)[:3000]}
               for role in ("user", "assistant") * 150]
    completion = client.chat.completions.create(model="voiceassist", messages=[*history,
                                                                                {"role": "user", "content": QUESTION}])
    metadata = (completion.model_extra or {})["query_metadata"]
    assert stack.cloud.raw_requests == [] and len(stack.sagemaker.requests) == 1
    assert metadata["phi_detected"] is True
    assert any("earlier messages" in w and "inside the PHI boundary" in w for w in metadata["warnings"])
    assert not any(w.startswith("PHI detection failed") for w in metadata["warnings"])
    assert read and max(read) < 20_000  # the question and the window (2,000 tokens), never 900 KB


def test_a_model_answer_streamed_with_max_tokens_stops_at_that_many_tokens(
        stack_client: tuple[QueryStack, openai.OpenAI]) -> None:
    """The model's token stream, not only an extractive one, is cut where the plain completion would be."""
    from voiceassist.query.generation import count_tokens, first_tokens

    _stack, client = stack_client

    def stream(**options: Any) -> tuple[str, list[str]]:
        chunks = list(client.chat.completions.create(model="voiceassist", stream=True, **options,
                                                     messages=[{"role": "user", "content": QUESTION}]))
        return ("".join(c.choices[0].delta.content or "" for c in chunks),
                [c.choices[0].finish_reason for c in chunks if c.choices[0].finish_reason])

    full, full_finish = stream()
    cut, cut_finish = stream(max_tokens=8)
    assert full_finish == ["stop"] and cut_finish == ["length"]
    assert cut == first_tokens(full, 8) and count_tokens(cut) <= 8 < count_tokens(full)
