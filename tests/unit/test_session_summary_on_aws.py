"""The rolling session summary on AWS (conversation/memory.py): only the in-boundary model writes it, through its
own short-time-out instance, and only while the invocation has time left for the call; otherwise it is extractive
and nothing of the older turns is lost. The models are the stub servers behind the real SageMaker and Bedrock
adapters (boto3 clients), their requests recorded: the cloud model's stub must receive nothing."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.contract.test_session_memory_contract import TURNS, CleanDetector  # stored turns, the first had PHI
from tests.stubs.openai_stub import OpenAIStub, StubReply
from tests.stubs.query_stack import close, recorded_logs
from voiceassist import invocation
from voiceassist.admin.config import defaults_from
from voiceassist.composition import Dependencies
from voiceassist.composition.chat_models import LOCAL_TIMEOUT_S
from voiceassist.conversation import memory, summary
from voiceassist.conversation.orchestrator import HISTORY_MESSAGES, window
from voiceassist.models import Message, Session
from voiceassist.settings import InBoundaryProvider, Runtime, Settings

ENDPOINT = "voiceassist-test-llm"
BEDROCK_MODEL_ID = "us.meta.llama3-1-8b-instruct-v1:0"
SUMMARY = "In-boundary summary: a 72-year-old woman on warfarin; Lyme disease treated with doxycycline."
EXTRACTIVE_LINES = [  # the first two exchanges left the 6-message window, folded in once each
    "Asked: My patient <PERSON>, MRN <MEDICAL_RECORD_NUMBER>, a 72-year-old woman with atrial fibrillation, is on "
    "warfarin; eGFR 38. Answered: Warfarin needs INR monitoring.",
    "Asked: What is the first-line treatment for early Lyme disease? Answered: Doxycycline."]


@dataclass
class LambdaContext:
    remaining_ms: int
    function_name: str = "test"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 1024
    aws_request_id: str = "00000000-0000-0000-0000-000000000000"
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:000000000000:function:test"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


@pytest.fixture
def stubs(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The in-boundary model (SageMaker's InvokeEndpoint and Bedrock's Converse on one stub) and the cloud model."""
    with OpenAIStub([StubReply(text=SUMMARY)] * 4) as model, OpenAIStub([StubReply(text="Cloud summary.")]) as cloud:
        for name, value in {"AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME": model.sagemaker_endpoint_url,
                            "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": model.origin, "AWS_ACCESS_KEY_ID": "testing",
                            "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing"}.items():
            monkeypatch.setenv(name, value)
        yield SimpleNamespace(model=model, cloud=cloud)


@pytest.fixture(autouse=True)
def no_deadline() -> Iterator[None]:
    invocation.begin(None)
    yield
    invocation.begin(None)


def _aws_settings(cloud: OpenAIStub | None = None, **overrides: Any) -> Settings:
    """An AWS function's settings with the in-boundary model configured, and the cloud model's too (a lure: the
    functions that summarize on AWS hold no OpenAI key)."""
    values: dict[str, Any] = {"runtime": Runtime.AWS, "sagemaker_endpoint": ENDPOINT,
                              "in_boundary_provider": InBoundaryProvider.SAGEMAKER}
    if cloud is not None:
        values |= {"openai_base_url": cloud.base_url, "openai_api_key": "sk-test-not-a-key"}
    return Settings(**(values | overrides))


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[Dependencies]:
    local = Dependencies(Settings(data_dir=tmp_path))
    local.sessions.create(Session(session_id="ses_aws", user_id="u1"))
    yield local
    close(local)


def _deps(stores: Dependencies, settings: Settings) -> SimpleNamespace:
    """The stores of the local runtime, the models (and settings) of an AWS function."""
    built = Dependencies(settings)
    return SimpleNamespace(settings=settings, state=stores.state, sessions=stores.sessions,
                           field_cipher=stores.field_cipher, phi_detector=CleanDetector(),
                           summary_chat=built.summary_chat, local_chat=built.local_chat, cloud_chat=built.cloud_chat,
                           admin_config=defaults_from(settings), phi_detector_for=lambda _mode: CleanDetector(),
                           cost_gate=stores.cost_gate, billing=stores.billing)


def _converse(deps: Any, *, phi: bool = True) -> tuple[memory.Memory | None, list[summary.Summary]]:
    """Ask the five turns; the summaries written along the way."""
    written: list[summary.Summary] = []
    real = summary.summarize

    def recording(*args: Any, **kwargs: Any) -> summary.Summary:
        written.append(real(*args, **kwargs))
        return written[-1]

    kept = None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(summary, "summarize", recording)
        for question, answer in TURNS:
            deps.sessions.add_message(Message(session_id="ses_aws", role="user", content=question))
            deps.sessions.add_message(Message(session_id="ses_aws", role="assistant", content=answer))
            kept = memory.update(deps, "ses_aws", user_id="u1", question=question, phi=phi, window=window,
                                     recent=HISTORY_MESSAGES)
    return kept, written


# --------------------------------------------------------------------------- which models


def test_on_aws_the_summary_model_is_the_in_boundary_one_alone_with_the_summarys_time_out(
        stores: Dependencies, stubs: SimpleNamespace) -> None:
    deps = _deps(stores, _aws_settings(stubs.cloud, summary_timeout_s=3.0))
    assert deps.cloud_chat is not None  # configured, yet never offered the summary on AWS
    (model,) = memory._models(deps)  # type: ignore[arg-type]
    assert type(model).__name__ == "SageMakerChatModel" and model.in_boundary and model.timeout_s == 3.0
    assert deps.local_chat.timeout_s == LOCAL_TIMEOUT_S  # the answering model keeps its own time-out


def test_on_aws_bedrock_is_the_summary_model_where_it_is_the_provider(stores: Dependencies,
                                                                       stubs: SimpleNamespace) -> None:
    deps = _deps(stores, _aws_settings(stubs.cloud, in_boundary_provider=InBoundaryProvider.BEDROCK,
                                       bedrock_model_id=BEDROCK_MODEL_ID))
    (model,) = memory._models(deps)  # type: ignore[arg-type]
    assert type(model).__name__ == "BedrockChatModel" and model.in_boundary


def test_on_aws_without_an_in_boundary_model_there_is_no_summary_model(stores: Dependencies,
                                                                        stubs: SimpleNamespace) -> None:
    deps = _deps(stores, _aws_settings(stubs.cloud, sagemaker_endpoint=None, in_boundary_provider=None))
    assert deps.cloud_chat is not None and memory._models(deps) == []  # type: ignore[arg-type]


def test_locally_the_in_boundary_model_then_the_cloud_model(tmp_path: Path, stubs: SimpleNamespace) -> None:
    deps = Dependencies(Settings(data_dir=tmp_path, local_chat_base_url=stubs.model.base_url,
                                 openai_base_url=stubs.cloud.base_url, openai_api_key="sk-test-not-a-key"))
    local, cloud = memory._models(deps)
    assert local.in_boundary and local.timeout_s == LOCAL_TIMEOUT_S and not cloud.in_boundary
    assert memory._time_bound(deps) is None  # no invocation deadline locally


# --------------------------------------------------------------------------- PHI


@pytest.mark.parametrize("provider", [InBoundaryProvider.SAGEMAKER, InBoundaryProvider.BEDROCK])
@pytest.mark.parametrize("phi", [True, False])
def test_on_aws_the_in_boundary_model_writes_the_summary_and_the_cloud_model_sees_nothing(
        stores: Dependencies, stubs: SimpleNamespace, provider: InBoundaryProvider, phi: bool) -> None:
    invocation.begin(LambdaContext(remaining_ms=25_000))
    deps = _deps(stores, _aws_settings(stubs.cloud, in_boundary_provider=provider, bedrock_model_id=BEDROCK_MODEL_ID))
    kept, written = _converse(deps, phi=phi)
    assert kept is not None and kept.summary_by == "llama-3.1-8b" and kept.summary == SUMMARY
    assert [w.by for w in written] == ["llama-3.1-8b"] * 2
    # what the in-boundary model read: the stored (redacted) turns, the session's first one too
    assert any("<MEDICAL_RECORD_NUMBER>" in request.body for request in stubs.model.raw_requests)
    assert stubs.cloud.raw_requests == []  # with PHI or without, on AWS the cloud model is never asked


def test_on_aws_an_in_boundary_model_that_fails_leaves_the_extractive_summary_not_the_cloud_model(
        stores: Dependencies, stubs: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStub([StubReply(status=500)] * 2) as down:
        monkeypatch.setenv("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME", down.sagemaker_endpoint_url)
        invocation.begin(LambdaContext(remaining_ms=25_000))
        kept, written = _converse(_deps(stores, _aws_settings(stubs.cloud)), phi=False)  # the PHI check would pass
        assert len(down.raw_requests) == 2
    assert kept is not None and kept.summary.splitlines() == EXTRACTIVE_LINES
    assert all("llama-3.1-8b: failed" in w.reason for w in written)
    assert stubs.cloud.raw_requests == []


# --------------------------------------------------------------------------- the time bound


def test_too_little_time_left_leaves_the_extractive_summary_and_loses_nothing(stores: Dependencies,
                                                                              stubs: SimpleNamespace) -> None:
    deps = _deps(stores, _aws_settings(stubs.cloud, summary_timeout_s=4.0))
    invocation.begin(LambdaContext(remaining_ms=9_000))  # under 2 x 4 s + 2 s: the call could outlast the budget
    with recorded_logs() as lines:
        kept, written = _converse(deps)
    assert kept is not None and kept.summary_by == summary.EXTRACTIVE
    assert kept.summary.splitlines() == EXTRACTIVE_LINES  # every turn that left the window is in it, once
    assert [w.by for w in written] == [summary.EXTRACTIVE] * 2
    assert all("s left in the invocation, under the 10 s a summary call may take" in w.reason for w in written)
    assert stubs.model.raw_requests == [] and stubs.cloud.raw_requests == []
    logged = [json.loads(line) for line in lines if line.startswith("{") and "summary_reason" in line]
    assert logged and all("left in the invocation" in entry["summary_reason"] for entry in logged)
    assert "<PERSON>" not in "".join(lines)  # the reason names the model and the time, never the turns


def test_a_slow_in_boundary_model_is_cut_at_the_summarys_time_out(stores: Dependencies,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStub([StubReply(text=SUMMARY, delay_s=30)] * 2) as slow:
        monkeypatch.setenv("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME", slow.sagemaker_endpoint_url)
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            monkeypatch.setenv(name, "testing")
        deps = _deps(stores, _aws_settings(summary_timeout_s=0.5))
        invocation.begin(LambdaContext(remaining_ms=25_000))
        kept, written = _converse(deps)
        assert len(slow.raw_requests) == 2  # it was asked, and did not answer in time
    assert kept is not None and kept.summary_by == summary.EXTRACTIVE and kept.summary.splitlines() == EXTRACTIVE_LINES
    assert all(w.by == summary.EXTRACTIVE and "llama-3.1-8b: failed" in w.reason for w in written)


def test_without_a_known_deadline_aws_does_not_call_the_model(stores: Dependencies, stubs: SimpleNamespace) -> None:
    deps = _deps(stores, _aws_settings(stubs.cloud))
    kept, written = _converse(deps)  # no handler began the invocation's clock
    assert kept is not None and kept.summary.splitlines() == EXTRACTIVE_LINES
    assert all("time left is unknown" in w.reason for w in written)
    assert stubs.model.raw_requests == [] and stubs.cloud.raw_requests == []


def test_the_invocation_deadline_counts_down_from_the_lambda_context() -> None:
    started = time.monotonic()
    invocation.begin(LambdaContext(remaining_ms=12_000))
    left = invocation.seconds_left()
    waited = time.monotonic() - started  # however slow the machine: the clock counts down from 12 s, not from 0
    assert left is not None and 12.0 - waited - 0.01 <= left <= 12.0
    invocation.begin(LambdaContext(remaining_ms=0))
    assert invocation.seconds_left() == 0.0
    invocation.begin(object())  # not a Lambda context: no deadline
    assert invocation.seconds_left() is None


@pytest.mark.parametrize(("function", "event"), [
    ("api", {"httpMethod": "GET", "path": "/v1/no-such-route", "resource": "/{proxy+}", "headers": {},
             "requestContext": {"requestId": "r1", "stage": "v1"}}),
    ("stream", {"requestContext": {"routeKey": "$disconnect", "connectionId": "c1"}})])
def test_the_functions_that_run_the_orchestrator_start_the_invocations_clock(function: str,
                                                                             event: dict[str, Any]) -> None:
    from voiceassist_local.handlers import load_handler

    invocation.begin(object())  # no deadline known before the handler runs
    started = time.monotonic()
    load_handler(function)(event, LambdaContext(remaining_ms=28_000))
    left = invocation.seconds_left()
    waited = time.monotonic() - started  # a loaded machine may take seconds to run the handler
    assert left is not None and 28.0 - waited - 0.01 <= left <= 28.0
