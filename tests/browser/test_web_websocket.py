"""Streaming over the WebSocket API, as on AWS: the page signs in at the Cognito stand-in (cognito_stub.py),
whose config.json names a WebSocket URL, and asks over tests/browser/websocket_stub.py, which checks the
token on the handshake and runs the question through functions/stream's handler with the real local
orchestrator and sample corpus. Tokens before done, citations, the PHI badge, and the failures: a socket cut
before `done`, an `error` event, and a socket refused at the handshake (the page falls back to REST)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.browser.chromium import Tab
from tests.browser.cognito_stub import CognitoStub
from tests.browser.test_web_chat import BrokenDetector
from tests.browser.websocket_stub import WebSocketStub
from voiceassist.composition import Dependencies
from voiceassist.models import Session
from voiceassist.phi.detection import FailClosedDetector

METFORMIN = "What is the maximum daily dose of metformin?"
METFORMIN_TITLE = "Metformin (sample drug reference)"
STATUS = "document.querySelector('article.turn.assistant')?.dataset.status"


@pytest.fixture
def aws(server_deps: Dependencies) -> Iterator[tuple[CognitoStub, WebSocketStub]]:
    cognito = CognitoStub(groups=["clinician"])
    socket = WebSocketStub(token=cognito.issued, user_id="u-1")
    cognito.websocket_url = socket.url
    session = Session(user_id="u-1")  # the REST API's POST /v1/sessions, into the store the stream reads
    server_deps.sessions.create(session)
    cognito.session_id = session.session_id
    yield cognito, socket
    socket.close()
    cognito.close()


def sign_in_and_ask(page: Tab, cognito: CognitoStub, question: str) -> None:
    page.open(f"{cognito.url}/?q={quote(question)}")
    page.wait_for("[...document.querySelectorAll('#conversation button')].some(b => b.textContent === 'Sign in')")
    page.evaluate("[...document.querySelectorAll('#conversation button')].find(b => b.textContent === 'Sign in')"
                  ".click()")


def test_the_answer_streams_over_the_websocket_with_the_token_as_subprotocol(
        page: Tab, aws: tuple[CognitoStub, WebSocketStub]) -> None:
    cognito, socket = aws
    socket.release.clear()  # the stand-in holds the answer after its first token
    sign_in_and_ask(page, cognito, METFORMIN)

    # Then the first tokens show while the answer is still being written
    page.wait_for("document.querySelector('.streaming')?.textContent.length > 0")
    assert page.evaluate(STATUS) is None
    socket.release.set()
    assert page.wait_for(STATUS) == "answered"

    assert socket.handshakes == [f"voiceassist, {cognito.issued}"]  # the ID token, never in the URL
    assert socket.messages == [{"action": "ask", "query": METFORMIN, "session_id": cognito.session_id}]
    assert socket.sent[-1] == "done" and "citations" in socket.sent and "route" in socket.sent
    assert "/v1/query" not in cognito.posted  # no REST fallback
    sources = page.evaluate("[...document.querySelectorAll('ol.citations button.source')].map(b => b.textContent)")
    assert METFORMIN_TITLE in sources
    assert "[1]" in page.text(".answer-text") and "No PHI detected" in page.text(".badge")
    badge = page.text(".badge")  # the model's route event's reason, over the socket; "no PHI detected" said once
    assert "no language model is configured" in badge and badge.lower().count("no phi detected") == 1
    assert page.errors() == []


def test_a_question_with_phi_over_the_websocket_shows_the_phi_badge(
        page: Tab, aws: tuple[CognitoStub, WebSocketStub]) -> None:
    cognito, socket = aws
    sign_in_and_ask(page, cognito, "Patient John Smith, born 03/04/1961, MRN 4411823: "
                                   "what is the maximum daily dose of metformin?")

    assert page.wait_for(STATUS) == "answered"
    badge = page.text(".badge.phi")
    assert "PHI detected" in badge and "PERSON" in badge
    assert "the question contains PHI: only in-boundary models and sources" in badge
    assert socket.sent[-1] == "done" and "/v1/query" not in cognito.posted
    stored = page.evaluate("JSON.stringify([{...localStorage}, {...sessionStorage}])")
    assert "Smith" not in stored and "4411823" not in stored  # the browser keeps no question
    assert page.errors() == []


def test_a_failed_phi_check_over_the_websocket_is_shown_as_treated_as_phi(
        page: Tab, aws: tuple[CognitoStub, WebSocketStub], server_deps: Dependencies,
        monkeypatch: pytest.MonkeyPatch) -> None:
    cognito, socket = aws
    monkeypatch.setattr(server_deps, "phi_detector", FailClosedDetector(BrokenDetector()))
    sign_in_and_ask(page, cognito, METFORMIN)

    assert page.wait_for(STATUS) == "answered"
    badge = page.text(".badge.phi")
    assert "PHI check failed: treated as PHI" in badge  # fail closed: inside the boundary
    assert "the PHI detector failed, so the question counts as containing PHI" in badge  # the route event
    assert socket.sent[-1] == "done"


def test_a_socket_that_closes_before_done_shows_an_error(page: Tab, aws: tuple[CognitoStub, WebSocketStub]) -> None:
    cognito, socket = aws
    socket.cut_after_first_token = True
    sign_in_and_ask(page, cognito, METFORMIN)

    page.wait_for("document.getElementById('error')?.hidden === false")
    assert "The answer stopped before it was complete" in page.text("#error")
    assert "1011" in page.text("#error")
    assert page.text("article.turn.assistant") == "No answer: see the message above."
    assert socket.sent.count("done") == 0 and "/v1/query" not in cognito.posted  # no silent second ask
    assert page.errors() == []


def test_an_error_event_over_the_websocket_is_shown_with_its_trace_id(
        page: Tab, aws: tuple[CognitoStub, WebSocketStub]) -> None:
    cognito, socket = aws
    socket.fail_with = RuntimeError("the orchestrator broke")
    sign_in_and_ask(page, cognito, METFORMIN)

    page.wait_for("document.getElementById('error')?.hidden === false")
    error = page.text("#error")
    assert "the question could not be answered; quote the trace id" in error and "(trace id req_" in error
    assert "orchestrator broke" not in error  # internal details stay on the server
    assert page.text("article.turn.assistant") == "No answer: see the message above."


def test_a_socket_refused_at_the_handshake_falls_back_to_rest(page: Tab, server_deps: Dependencies) -> None:
    cognito = CognitoStub(groups=["clinician"])
    socket = WebSocketStub(token="another-token", user_id="u-1")  # the authorizer denies the page's token
    cognito.websocket_url = socket.url
    page.expected_failures.add(socket.url)  # Chromium logs the refused handshake
    try:
        sign_in_and_ask(page, cognito, METFORMIN)
        assert page.wait_for(STATUS) == "answered"

        assert socket.handshakes == [f"voiceassist, {cognito.issued}"] and socket.messages == []
        assert "/v1/query" in cognito.posted
        assert f"Signed-in answer to: {METFORMIN}" in page.text(".answer-text")
        assert page.evaluate("document.getElementById('error').hidden") is True
    finally:
        socket.close()
        cognito.close()
