"""The WebSocket $connect authorizer and the stream function's use of its principal (events only, no network)."""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalLambdaContext
from voiceassist_local.resources import functions_dir

from tests.support.cognito import CLIENT_ID, REGION, SUB, USER_POOL_ID, StubPool
from voiceassist.adapters.aws.cognito_tokens import CognitoTokenVerifier
from voiceassist.composition import Dependencies
from voiceassist.errors import DependencyError, InvalidInput

METHOD_ARN = "arn:aws:execute-api:eu-west-1:123456789012:abcdef123/v1/$connect"


def load(function_name: str) -> ModuleType:
    handler = functions_dir() / function_name / "handler.py"
    spec = importlib.util.spec_from_file_location(f"test_{function_name}", handler)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pool() -> StubPool:
    return StubPool()


@pytest.fixture
def authorizer(pool: StubPool, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = load("stream_authorizer")
    verifier = CognitoTokenVerifier(region=REGION, user_pool_id=USER_POOL_ID, client_id=CLIENT_ID,
                                    fetch_jwks=pool.jwks)
    monkeypatch.setattr(module, "verifier", lambda: verifier)
    return module


def connect_event(protocols: str | None) -> dict[str, Any]:
    headers = {"Host": "abcdef123.execute-api.eu-west-1.amazonaws.com"}
    if protocols is not None:
        headers["sec-websocket-protocol"] = protocols  # header case differs between clients
    return {"type": "REQUEST", "methodArn": METHOD_ARN, "headers": headers,
            "requestContext": {"routeKey": "$connect", "eventType": "CONNECT", "connectionId": "conn-1"}}


def authorize(module: ModuleType, event: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = module.lambda_handler(event, LocalLambdaContext(function_name="stream_authorizer"))
    return reply


def effect(reply: dict[str, Any]) -> str:
    (statement,) = reply["policyDocument"]["Statement"]
    assert statement["Resource"] == METHOD_ARN and statement["Action"] == "execute-api:Invoke"
    return str(statement["Effect"])


def test_authorizer_allows_a_valid_token_with_the_user_sub_as_principal(authorizer, pool) -> None:  # type: ignore[no-untyped-def]
    reply = authorize(authorizer, connect_event(f"voiceassist, {pool.token()}"))
    assert effect(reply) == "Allow" and reply["principalId"] == SUB


@pytest.mark.parametrize(
    "protocols",
    [None, "voiceassist", "voiceassist, not-a-jwt", "EXPIRED", "WRONG_CLIENT", "ACCESS_AS_REFRESH"],
    ids=["no-header", "no-token", "malformed", "expired", "wrong-client", "wrong-token-use"],
)
def test_authorizer_denies_without_a_valid_token_and_logs_no_token(authorizer, pool, caplog, protocols) -> None:  # type: ignore[no-untyped-def]
    tokens = {"EXPIRED": pool.token(exp=1), "WRONG_CLIENT": pool.token(aud="other-client"),
              "ACCESS_AS_REFRESH": pool.token(token_use="refresh")}
    token = tokens.get(protocols or "")
    reply = authorize(authorizer, connect_event(f"voiceassist, {token}" if token else protocols))
    assert effect(reply) == "Deny" and reply["principalId"] != SUB
    logged = " ".join(str(record.__dict__) for record in caplog.records)
    assert "websocket connection refused" in logged and "'reason'" in logged
    assert SUB not in logged and "dr.house" not in logged
    if token:
        assert token not in logged and token.split(".")[1] not in logged


def test_authorizer_fails_closed_and_loudly_when_the_pool_is_not_configured(
    pool: StubPool, local_deps: Dependencies
) -> None:
    module = load("stream_authorizer")
    assert local_deps.settings.user_pool_id is None  # no VOICEASSIST_USER_POOL_ID
    with pytest.raises(InvalidInput):  # a function error: API Gateway refuses with 500, the alarm counts it
        authorize(module, connect_event(f"voiceassist, {pool.token()}"))


def test_authorizer_fails_closed_when_the_signing_keys_are_unreachable(
    monkeypatch: pytest.MonkeyPatch, pool: StubPool
) -> None:
    def unreachable(url: str) -> dict[str, Any]:
        raise DependencyError("the user pool's signing keys could not be fetched")

    module = load("stream_authorizer")
    verifier = CognitoTokenVerifier(region=REGION, user_pool_id=USER_POOL_ID, client_id=CLIENT_ID,
                                    fetch_jwks=unreachable)
    monkeypatch.setattr(module, "verifier", lambda: verifier)
    with pytest.raises(DependencyError):
        authorize(module, connect_event(f"voiceassist, {pool.token()}"))


@pytest.fixture(scope="module")
def stream() -> ModuleType:
    return load("stream")


def stream_event(route: str, principal: str | None, protocols: str | None = None) -> dict[str, Any]:
    context: dict[str, Any] = {"routeKey": route, "connectionId": "conn-1", "domainName": "example.invalid",
                               "stage": "v1"}
    if principal:
        context["authorizer"] = {"principalId": principal}
    headers = {"Sec-WebSocket-Protocol": protocols} if protocols else {}
    return {"requestContext": context, "headers": headers, "body": '{"action": "ask", "query": "q"}'}


def test_stream_connect_accepts_the_app_subprotocol_never_echoing_the_token(stream, pool) -> None:  # type: ignore[no-untyped-def]
    token = pool.token()
    reply = stream.lambda_handler(stream_event("$connect", SUB, f"voiceassist, {token}"),
                                  LocalLambdaContext(function_name="stream"))
    assert reply == {"statusCode": 200, "headers": {"Sec-WebSocket-Protocol": "voiceassist"}}


@pytest.mark.parametrize("route", ["$connect", "ask", "$default"])
def test_stream_refuses_a_connection_or_message_without_the_authorizer_principal(stream, route) -> None:  # type: ignore[no-untyped-def]
    reply = stream.lambda_handler(stream_event(route, None), LocalLambdaContext(function_name="stream"))
    assert reply == {"statusCode": 401}
