"""Signing in on AWS, against a Cognito and API stand-in on 127.0.0.1 (tests/browser/cognito_stub.py): the
hosted UI's authorization code grant with PKCE (S256), then every API call carries the ID token."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.browser.chromium import Tab
from tests.browser.cognito_stub import CLIENT_ID, CognitoStub

QUESTION = "What is the maximum daily dose of metformin?"


@pytest.fixture
def cognito() -> Iterator[CognitoStub]:
    stub = CognitoStub(groups=["clinician"])
    yield stub
    stub.close()


def test_a_deep_link_signs_in_with_the_code_grant_and_pkce_then_asks(page: Tab, cognito: CognitoStub) -> None:
    page.expected_failures.add("/v1/query/stream")  # this API has no stream route: the page falls back
    page.open(f"{cognito.url}/?q={quote(QUESTION)}")
    page.wait_for("[...document.querySelectorAll('#conversation button')].some(b => b.textContent === 'Sign in')")
    assert cognito.api_authorizations == []  # nothing is asked before signing in

    page.evaluate("[...document.querySelectorAll('#conversation button')].find(b => b.textContent === 'Sign in')"
                 ".click()")
    page.wait_for("document.querySelector('article.turn.assistant')?.dataset.status === 'answered'")

    params = cognito.authorize_params
    assert (params["response_type"], params["client_id"], params["code_challenge_method"]) == (
        "code", CLIENT_ID, "S256")
    assert params["redirect_uri"] == f"{cognito.url}/" and params["scope"] == "openid email profile"
    assert cognito.token_form["grant_type"] == "authorization_code" and cognito.pkce_verified
    assert len(cognito.token_form["code_verifier"]) >= 43
    assert cognito.api_authorizations and set(cognito.api_authorizations) == {cognito.issued}
    assert QUESTION in page.text(".answer-text")
    assert page.evaluate("location.search") == ""  # the code left the address bar, and the question once answered
    assert page.text("#who") == "dr.grey@example.org"
    assert page.evaluate("document.getElementById('admin').hidden") is True  # not in the admin group
    assert page.evaluate("sessionStorage.getItem('voiceassist.pkce')") is None  # the verifier is gone
    assert page.errors() == []


def test_a_reply_with_a_state_from_elsewhere_is_refused(page: Tab, cognito: CognitoStub) -> None:
    page.open(f"{cognito.url}/?code=stolen&state=not-ours")
    page.wait_for("!document.getElementById('error').hidden")

    assert "did not match" in page.text("#error")
    assert cognito.token_form == {} and cognito.api_authorizations == []


def test_a_streamed_answer_shows_its_tokens_then_cards_and_a_confirmation(page: Tab) -> None:
    stub = CognitoStub(groups=["clinician"], streams=True)
    try:
        page.open(f"{stub.url}/")
        # the button comes after the page has read config.json: a loaded document may not show it yet
        page.wait_for("[...document.querySelectorAll('#conversation button')].some(b => b.textContent === 'Sign in')")
        page.evaluate("[...document.querySelectorAll('#conversation button')].find(b => b.textContent === "
                      "'Sign in').click()")
        page.wait_for("document.activeElement?.id === 'question'")
        page.evaluate(f"document.getElementById('question').value = {QUESTION!r}")
        page.click("#ask")

        # Then the first tokens show while the answer is still being written
        page.wait_for("document.querySelector('.streaming')?.textContent.startsWith('Signed-in answer')")
        assert page.evaluate("document.querySelector('article.turn.assistant').dataset.status") is None
        stub.release.set()
        page.wait_for("document.querySelector('article.turn.assistant')?.dataset.status === 'answered'")

        card = page.text(".card")
        assert "eGFR (CKD-EPI 2021)" in card and "58 mL/min/1.73m²" in card and "G3a" in card
        assert "Inker et al., NEJM 2021" in card
        assert page.evaluate("document.querySelector('.card dl').textContent").count("(default)") == 1
        badge = page.text(".badge")  # the route's verdict, said once, and the model that answered
        assert badge.lower().count("no phi detected") == 1 and "answered by stub-model" in badge
        page.click("button.confirm-action")
        page.wait_for("document.getElementById('confirm').open")
        assert "recheck eGFR" in page.text("#confirm-text")
        page.click("#confirm button[value=yes]")
        page.wait_for("document.querySelector('.pending [role=status]')?.textContent === 'Reminder sent.'")
        assert stub.confirmed == ["act_1"]
        assert page.errors() == []
    finally:
        stub.release.set()
        stub.close()
