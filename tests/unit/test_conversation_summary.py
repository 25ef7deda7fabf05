"""The rolling summary (conversation/summary.py): extractive without a model; with models, only the ones the PHI
rules allow, checked against the stub model servers' recorded requests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.stubs.openai_stub import OpenAIStub, StubReply
from voiceassist.adapters.openai.chat import OpenAIChatModel
from voiceassist.conversation import context, summary
from voiceassist.models import PhiResult
from voiceassist.query.generation import count_tokens

TURNS = [context.Turn("user", "What is the first-line treatment for early Lyme disease?"),
         context.Turn("assistant", "Doxycycline 100 mg twice daily for 10 days [1]. Amoxicillin is the "
                                   "alternative [2]."),
         context.Turn("user", "What is the dose of amoxicillin? (early Lyme disease)"),
         context.Turn("assistant", "Extractive answer (no language model was used): 500 mg three times daily [1].")]


class CleanDetector:
    def __init__(self) -> None:
        self.checked: list[str] = []

    def detect(self, text: str) -> PhiResult:
        self.checked.append(text)
        return PhiResult(contains_phi=False, redacted_text=text)


class BrokenDetector:
    def detect(self, text: str) -> PhiResult:
        raise RuntimeError("detector down")


@pytest.fixture
def cloud_stub() -> Iterator[OpenAIStub]:
    with OpenAIStub([StubReply(text="Cloud summary: Lyme disease, doxycycline, amoxicillin 500 mg.")]) as stub:
        yield stub


@pytest.fixture
def local_stub() -> Iterator[OpenAIStub]:
    with OpenAIStub([StubReply(text="Local summary: Lyme disease treatment and amoxicillin dose.")]) as stub:
        yield stub


def _cloud(stub: OpenAIStub) -> OpenAIChatModel:
    return OpenAIChatModel("cloud-model", in_boundary=False, base_url=stub.base_url, name="cloud-model")


def _local(stub: OpenAIStub) -> OpenAIChatModel:
    return OpenAIChatModel("local-model", in_boundary=True, base_url=stub.base_url, name="local-model")


def test_the_extractive_summary_has_one_line_per_exchange() -> None:
    text = summary.extractive("", TURNS)
    assert text.splitlines() == [
        "Asked: What is the first-line treatment for early Lyme disease? Answered: Doxycycline 100 mg twice daily "
        "for 10 days.",
        "Asked: What is the dose of amoxicillin? (early Lyme disease) Answered: 500 mg three times daily.",
    ]


def test_the_extractive_summary_rolls_within_its_budget() -> None:
    text = ""
    for n in range(40):
        text = summary.extractive(text, [context.Turn("user", f"Question number {n} about hypertension?"),
                                         context.Turn("assistant", f"Answer number {n} [1].")])
    assert count_tokens(text) <= summary.SUMMARY_TOKENS
    assert "Question number 39" in text and "Question number 0 " not in text  # the oldest lines went first


def test_without_a_model_the_summary_is_extractive() -> None:
    written = summary.summarize("", TURNS, models=[None, None], session_phi=False, detector=CleanDetector)
    assert written.by == summary.EXTRACTIVE and written.text == summary.extractive("", TURNS)


def test_a_session_with_phi_is_summarized_only_inside_the_boundary(cloud_stub: OpenAIStub,
                                                                    local_stub: OpenAIStub) -> None:
    written = summary.summarize("", TURNS, models=[_cloud(cloud_stub), _local(local_stub)], session_phi=True,
                                detector=CleanDetector)
    assert written.by == "local-model" and written.text.startswith("Local summary")
    assert cloud_stub.raw_requests == []  # the cloud model never saw it
    assert "early Lyme disease" in local_stub.requests[0]["messages"][1]["content"]


def test_a_session_with_phi_and_no_in_boundary_model_is_summarized_extractively(cloud_stub: OpenAIStub) -> None:
    written = summary.summarize("", TURNS, models=[_cloud(cloud_stub)], session_phi=True, detector=CleanDetector)
    assert written.by == summary.EXTRACTIVE and "only an in-boundary model" in written.reason
    assert cloud_stub.raw_requests == []


def test_the_cloud_model_summarizes_when_the_phi_check_lets_the_text_go(cloud_stub: OpenAIStub) -> None:
    detector = CleanDetector()
    written = summary.summarize("", TURNS, models=[_cloud(cloud_stub)], session_phi=False, detector=lambda: detector)
    assert written.by == "cloud-model" and written.text.startswith("Cloud summary")
    assert len(cloud_stub.requests) == 1 and detector.checked  # checked now, before it left


@pytest.mark.parametrize("detector", [lambda: BrokenDetector(), lambda: None, lambda: (_ for _ in ()).throw(
    ImportError("presidio is not shipped with this function"))])
def test_with_the_detector_down_or_absent_the_text_stays_inside(detector: object, cloud_stub: OpenAIStub) -> None:
    written = summary.summarize("", TURNS, models=[_cloud(cloud_stub)], session_phi=False,
                                detector=detector)  # type: ignore[arg-type]
    assert written.by == summary.EXTRACTIVE
    assert cloud_stub.raw_requests == []  # fail closed


def test_a_local_only_deployment_never_uses_the_cloud_model(cloud_stub: OpenAIStub) -> None:
    written = summary.summarize("", TURNS, models=[_cloud(cloud_stub)], session_phi=False, detector=CleanDetector,
                                local_only=True)
    assert written.by == summary.EXTRACTIVE and cloud_stub.raw_requests == []


def test_a_model_that_fails_leaves_the_extractive_summary() -> None:
    with OpenAIStub([StubReply(status=500), StubReply(status=500), StubReply(status=500)]) as stub:
        model = OpenAIChatModel("local-model", in_boundary=True, base_url=stub.base_url, name="local-model",
                                timeout_s=5)
        written = summary.summarize("", TURNS, models=[model], session_phi=True, detector=CleanDetector)
    assert written.by == summary.EXTRACTIVE and "failed" in written.reason
