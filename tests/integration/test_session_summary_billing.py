"""The session summary's model call is billed and capped like an answer's: the cloud model (a stub server on
127.0.0.1, reached through the OpenAI SDK) writes the summary of a PHI-free session, each call is a billing event
of the asking principal with the stub's token counts, and once the user's monthly limit is reached the cloud model
is not called: the summary is extractive and the next answer, which reads it, says so. The conversation runs
through the orchestrator with the query pipeline replaced by a fixed answer (the pipeline's own billing is
tests/integration/test_admin_controls.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.stubs.openai_stub import OpenAIStub, StubReply
from tests.stubs.query_stack import close
from tests.support.clock import clear_of_month_end
from voiceassist import service
from voiceassist.access import Caller, Role
from voiceassist.admin.ledger import month_of
from voiceassist.composition import Dependencies
from voiceassist.conversation import memory, orchestrator
from voiceassist.models import Message, PhiResult, QueryMetadata, QueryRequest, QueryResponse, Session, utc_now
from voiceassist.settings import Settings

USER = "clinician-1"
ADMIN = Caller(user_id="admin-1", roles=frozenset({Role.ADMIN}))
CALL_COST = 0.000027  # the stub's 100 prompt and 20 completion tokens at gpt-4o-mini's list price
QUESTIONS = ["What is the first-line treatment for early Lyme disease?", "What is the dose of doxycycline?",
             "Which antibiotic for community-acquired pneumonia?", "How long should amoxicillin be given?",
             "What is the CURB-65 score?", "When is a chest radiograph needed?", "What about atypical cover?"]

QUESTION_WORDS = ("lyme", "doxycycline", "pneumonia", "amoxicillin", "curb-65", "radiograph", "atypical")


class CleanDetector:
    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=False, redacted_text=text)


@pytest.fixture
def conversation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Dependencies, OpenAIStub, str]]:
    with OpenAIStub([StubReply(text="Summary: Lyme disease and pneumonia treatment were discussed.")] * 10,
                    model="gpt-4o-mini") as cloud:
        deps = Dependencies(Settings(data_dir=tmp_path, openai_base_url=cloud.base_url,
                                     openai_api_key="sk-test-not-a-key"))
        deps.phi_detector = CleanDetector()  # type: ignore[misc]
        session = Session(user_id=USER)
        deps.sessions.create(session)

        def answered(deps_: Any, request: QueryRequest, *, user_id: str, **_: Any) -> QueryResponse:
            """The pipeline's part as seen from the orchestrator: the exchange stored, an answer returned."""
            for role, text in (("user", request.query), ("assistant", "Per the guideline [1].")):
                deps.sessions.add_message(Message(session_id=request.session_id or "", role=role, content=text))
            return QueryResponse(answer="Per the guideline [1].", citations=[],
                                 metadata=QueryMetadata(query_id="qry_1", phi_detected=False, model="extractive"))

        monkeypatch.setattr(service, "answer", answered)
        yield deps, cloud, session.session_id
        close(deps)


def _ask(deps: Dependencies, session_id: str, question: str) -> QueryResponse:
    return orchestrator.respond(deps, QueryRequest(query=question, session_id=session_id), user_id=USER,
                                trace_id=None)


def test_session_summary_cloud_calls_are_billed_and_stop_at_the_users_limit(
        conversation: tuple[Dependencies, OpenAIStub, str], monkeypatch: pytest.MonkeyPatch) -> None:
    clear_of_month_end(monkeypatch)
    deps, cloud, session_id = conversation
    deps.config_store.patch({"cost": {"per_user_monthly_limit_usd": 0.00005}}, ADMIN, deps.audit)

    responses = [_ask(deps, session_id, question) for question in QUESTIONS[:6]]

    # turns 4 and 5 fold the oldest exchanges into the summary by the cloud model; the second call reaches the limit
    assert len(cloud.requests) == 2 and all(r["model"] == "gpt-4o-mini" for r in cloud.requests)
    spend = deps.billing.users(month_of(utc_now()))[USER]
    assert (spend.calls, spend.prompt_tokens, spend.completion_tokens) == (2, 200, 40)
    assert spend.cost_usd == pytest.approx(2 * CALL_COST)
    kept = memory.load(deps, session_id)  # turn 6: capped, so written extractively
    assert kept.summary_by == "extractive" and "monthly cloud-model budget ($0.00) is used up" in kept.summary_capped
    assert not any("summary of the earlier turns" in w for r in responses for w in r.metadata.warnings)

    following = _ask(deps, session_id, QUESTIONS[6])  # the answer that reads the capped summary says so

    assert any(w.startswith("About the summary of the earlier turns: Your monthly cloud-model budget")
               and "summarized extractively" in w for w in following.metadata.warnings)
    assert len(cloud.requests) == 2  # still capped
    rows = deps._sqlite.query("SELECT * FROM billing_events")  # type: ignore[attr-defined]
    assert len(rows) == 2 and not any(word in json.dumps(rows).lower() for word in QUESTION_WORDS)


def test_session_summary_without_a_limit_keeps_calling_the_cloud_model(
        conversation: tuple[Dependencies, OpenAIStub, str], monkeypatch: pytest.MonkeyPatch) -> None:
    clear_of_month_end(monkeypatch)
    deps, cloud, session_id = conversation

    for question in QUESTIONS:
        response = _ask(deps, session_id, question)

    assert len(cloud.requests) == 4 and memory.load(deps, session_id).summary_by == "gpt-4o-mini"
    assert deps.billing.users(month_of(utc_now()))[USER].calls == 4
    assert not any("summary" in w for w in response.metadata.warnings)
