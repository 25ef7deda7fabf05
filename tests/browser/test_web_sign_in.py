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
    assert page.evaluate("location.search") == f"?q={quote(QUESTION)}"  # the code left the address bar
    assert page.text("#who") == "dr.grey@example.org"
    assert page.evaluate("document.getElementById('admin').hidden") is True  # not in the admin group
    assert page.evaluate("sessionStorage.getItem('voiceassist.pkce')") is None  # the verifier is gone
    assert page.errors() == []


def test_a_reply_with_a_state_from_elsewhere_is_refused(page: Tab, cognito: CognitoStub) -> None:
    page.open(f"{cognito.url}/?code=stolen&state=not-ours")
    page.wait_for("!document.getElementById('error').hidden")

    assert "did not match" in page.text("#error")
    assert cognito.token_form == {} and cognito.api_authorizations == []
