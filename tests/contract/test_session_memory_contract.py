"""A session's memory (conversation/memory.py) on both adapter sets: SQLite with the key-file cipher, DynamoDB with
KMS envelope encryption (moto). The facts (from the questions) and the summary (from the stored, redacted turns)
are sealed and bound to the session, and no fact is in the table in the clear; the summary model obeys the PHI
rules."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

from tests.stubs.openai_stub import OpenAIStub, StubReply
from voiceassist.adapters.aws.dynamodb_tables import STATE
from voiceassist.adapters.local.key_file_cipher import key_file_cipher
from voiceassist.adapters.openai.chat import OpenAIChatModel
from voiceassist.admin.config import defaults_from
from voiceassist.conversation import memory
from voiceassist.conversation.orchestrator import HISTORY_MESSAGES, window
from voiceassist.models import Message, PhiResult, Session
from voiceassist.settings import Settings

if TYPE_CHECKING:
    from tests.contract.conftest import FakeClock, Stores

TURNS = [("My patient <PERSON>, MRN <MEDICAL_RECORD_NUMBER>, a 72-year-old woman with atrial fibrillation, is "
          "on warfarin; eGFR 38.", "Warfarin needs INR monitoring [1]."),
         ("What is the first-line treatment for early Lyme disease?", "Doxycycline [1]."),
         ("What is the dose of the alternative? (early Lyme disease)", "Amoxicillin 500 mg [1]."),
         ("How long? (early Lyme disease)", "For 14 days [1]."),
         ("Which antibiotic for community-acquired pneumonia?", "Amoxicillin [1].")]


class CleanDetector:
    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=False, redacted_text=text)


class UnlimitedGate:
    """No cost limit; the summary's model calls are kept (admin.billing.CostGate's two methods)."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def cloud_refusal(self, user_id: str) -> str | None:
        return None

    def record(self, event: Any) -> None:
        self.events.append(event)


@pytest.fixture(params=["sqlite", "dynamodb"])
def memory_deps(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> Any:
    stores: Stores = request.getfixturevalue(f"{request.param}_stores")
    cipher = key_file_cipher(tmp_path) if request.param == "sqlite" else request.getfixturevalue("kms_cipher")
    stores.sessions.create(Session(session_id="ses_mem", user_id="u1"))
    settings = Settings(data_dir=tmp_path)
    return SimpleNamespace(state=stores.state, sessions=stores.sessions, field_cipher=cipher, kind=request.param,
                           settings=settings, phi_detector=CleanDetector(), local_chat=None, cloud_chat=None,
                           admin_config=defaults_from(settings), phi_detector_for=lambda _mode: CleanDetector(),
                           cost_gate=lambda _config: UnlimitedGate())


def _converse(deps: Any, turns: list[tuple[str, str]], *, phi: bool = True) -> memory.Memory | None:
    kept = None
    for question, answer in turns:
        deps.sessions.add_message(Message(session_id="ses_mem", role="user", content=question))
        deps.sessions.add_message(Message(session_id="ses_mem", role="assistant", content=answer))
        kept = memory.update(deps, "ses_mem", user_id="u1", question=question, phi=phi, window=window,
                             recent=HISTORY_MESSAGES)
    return kept


def test_the_memory_round_trips_sealed_and_bound_to_its_session(memory_deps: Any, request: pytest.FixtureRequest,
                                                                table_names: dict[str, str]) -> None:
    written = _converse(memory_deps, TURNS)
    assert written is not None
    loaded = memory.load(memory_deps, "ses_mem")
    assert loaded.facts.to_dict() == {"age": "72", "sex": "female", "conditions": ["atrial fibrillation"],
                                      "medications": ["warfarin"], "allergies": [], "labs": {"eGFR": "38"}}
    assert loaded.phi is True and loaded.summary_by == "extractive"
    # 5 exchanges: the first two left the 6-message window, once each, in order
    assert loaded.summary.splitlines() == [
        "Asked: My patient <PERSON>, MRN <MEDICAL_RECORD_NUMBER>, a 72-year-old woman with atrial fibrillation, "
        "is on warfarin; eGFR 38. Answered: Warfarin needs INR monitoring.",
        "Asked: What is the first-line treatment for early Lyme disease? Answered: Doxycycline."]
    stored, _ = memory_deps.state.get(memory.MEMORY_KEY.format(session_id="ses_mem"))
    assert set(stored) == {"sealed"}
    if memory_deps.kind == "dynamodb":
        client = request.getfixturevalue("dynamodb_client")
        raw = json.dumps(client.scan(TableName=table_names[STATE])["Items"])
        # the facts' words, as plaintext (a bare "72" could be any two characters of the base64 ciphertext)
        assert "sealed" in raw
        assert [word for word in ("atrial fibrillation", "eGFR", "warfarin", "female", '"age"') if word in raw] == []
    # the sealed value under another session's id does not decrypt, and reads as no memory
    memory_deps.state.put(memory.MEMORY_KEY.format(session_id="ses_other"), stored, expected_version=0)
    assert memory.load(memory_deps, "ses_other") == memory.Memory()


def test_a_cipher_that_fails_stores_nothing_and_the_answer_stands(memory_deps: Any) -> None:
    class Refusing:
        def encrypt(self, plaintext: str, *, context: str) -> str:
            raise RuntimeError("kms unavailable")

        def decrypt(self, token: str, *, context: str) -> str:
            raise RuntimeError("kms unavailable")

    memory_deps.field_cipher = Refusing()
    assert _converse(memory_deps, TURNS[:1]) is None  # logged; nothing written in the clear instead
    assert memory_deps.state.get(memory.MEMORY_KEY.format(session_id="ses_mem")) == (None, 0)
    assert memory.load(memory_deps, "ses_mem") == memory.Memory()


def test_forgetting_drops_the_memory(memory_deps: Any, clock: FakeClock) -> None:
    _converse(memory_deps, TURNS[:1])
    memory.forget(memory_deps, "ses_mem")
    stored, _ = memory_deps.state.get(memory.MEMORY_KEY.format(session_id="ses_mem"))
    assert not stored or "sealed" not in stored


@pytest.fixture
def model_stubs() -> Iterator[tuple[OpenAIStub, OpenAIStub]]:
    with OpenAIStub([StubReply(text="Cloud summary.")] * 5) as cloud, \
            OpenAIStub([StubReply(text="In-boundary summary.")] * 5) as local:
        yield cloud, local


@pytest.mark.parametrize("phi", [True, False])
def test_with_models_configured_a_session_with_phi_is_summarized_inside_the_boundary(
        sqlite_stores: Stores, tmp_path: Path, model_stubs: tuple[OpenAIStub, OpenAIStub], phi: bool) -> None:
    cloud, local = model_stubs
    sqlite_stores.sessions.create(Session(session_id="ses_mem", user_id="u1"))
    settings = Settings(data_dir=tmp_path, openai_model="cloud")
    deps = SimpleNamespace(state=sqlite_stores.state, sessions=sqlite_stores.sessions,
                           field_cipher=key_file_cipher(tmp_path), settings=settings,
                           phi_detector=CleanDetector(), local_chat=None, admin_config=defaults_from(settings),
                           cloud_chat=OpenAIChatModel("cloud", in_boundary=False, base_url=cloud.base_url,
                                                      name="cloud"),
                           phi_detector_for=lambda _mode: CleanDetector(), cost_gate=lambda _config: UnlimitedGate())
    kept = _converse(deps, TURNS, phi=phi)
    assert kept is not None
    if phi:  # no in-boundary model: the cloud model may not see it, so the summary is extractive
        assert kept.summary_by == "extractive" and cloud.raw_requests == []
    else:
        assert kept.summary_by == "cloud" and kept.summary == "Cloud summary." and cloud.requests
    deps.local_chat = OpenAIChatModel("local", in_boundary=True, base_url=local.base_url, name="local")
    kept = _converse(deps, TURNS[:1], phi=phi)
    assert kept is not None and kept.summary_by == "local" and local.requests  # the in-boundary model first
    if phi:
        assert cloud.raw_requests == []  # never, in any turn
