"""Cognito token checks for the WebSocket $connect authorizer (a local RSA key and JWKS: no network)."""

from __future__ import annotations

import time

import jwt
import pytest

from tests.support.cognito import CLIENT_ID, ISSUER, REGION, SUB, USER_POOL_ID, StubPool, new_key
from voiceassist.adapters.aws.cognito_tokens import CognitoTokenVerifier, fetch_jwks_over_https, verifier_from_settings
from voiceassist.authentication import TokenRejected
from voiceassist.errors import DependencyError, InvalidInput
from voiceassist.settings import Settings


@pytest.fixture(scope="module")
def pool() -> StubPool:
    return StubPool()


def verifier_for(pool: StubPool, **options: object) -> CognitoTokenVerifier:
    return CognitoTokenVerifier(region=REGION, user_pool_id=USER_POOL_ID, client_id=CLIENT_ID,
                                fetch_jwks=pool.jwks, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("token_use", ["id", "access"])
def test_verify_accepts_a_valid_token_and_the_user_is_its_sub(pool: StubPool, token_use: str) -> None:
    user = verifier_for(pool).verify(pool.token(token_use=token_use))
    assert user.user_id == SUB and user.token_use == token_use and user.username == "dr.house"


@pytest.mark.parametrize(
    ("make_token", "reason"),
    [
        (lambda pool: None, "no token"),
        (lambda pool: "", "no token"),
        (lambda pool: "not-a-jwt", "malformed token"),
        (lambda pool: pool.token(exp=int(time.time()) - 1), "expired"),
        (lambda pool: pool.token(iss="https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other"), "wrong issuer"),
        (lambda pool: pool.token(aud="another-app-client"), "wrong client"),
        (lambda pool: pool.token(token_use="access", client_id="another-app-client"), "wrong client"),
        (lambda pool: pool.token(token_use="refresh"), "wrong token_use"),
        (lambda pool: pool.token(token_use=None), "missing claim"),
        (lambda pool: pool.token(sub=None), "missing claim"),
        (lambda pool: pool.token(signing_key=new_key()), "bad signature"),
        (lambda pool: pool.token(key_id="key-unknown"), "unknown signing key"),
    ],
    ids=["none", "empty", "malformed", "expired", "issuer", "id-aud", "access-client_id", "token_use",
         "no-token_use", "no-sub", "signature", "kid"],
)
def test_verify_rejects_a_token_that_does_not_prove_a_user_of_this_client(pool, make_token, reason) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TokenRejected) as rejected:
        verifier_for(pool).verify(make_token(pool))
    assert rejected.value.reason == reason and rejected.value.status_code == 401


def test_verify_refuses_tokens_not_signed_with_rs256(pool: StubPool) -> None:
    # The classic confusion: HS256 "signed" with the public key as the shared secret, and alg=none.
    unsigned = jwt.encode({"sub": SUB, "iss": ISSUER, "token_use": "id", "aud": CLIENT_ID,
                           "exp": int(time.time()) + 60}, key=None, algorithm="none", headers={"kid": pool.key_id})
    with pytest.raises(TokenRejected, match="unexpected signing algorithm"):
        verifier_for(pool).verify(unsigned)


def test_verify_fetches_the_keys_once_per_container(pool: StubPool) -> None:
    pool.fetches.clear()
    verifier = verifier_for(pool)
    for _ in range(3):
        verifier.verify(pool.token())
    assert pool.fetches == [f"{ISSUER}/.well-known/jwks.json"]


def test_verify_refetches_for_a_new_key_id_but_not_more_than_once_per_interval() -> None:
    pool = StubPool()
    now = [1000.0]
    verifier = verifier_for(pool, clock=lambda: now[0], refetch_interval_seconds=60)
    verifier.verify(pool.token())
    for _ in range(3):  # forged key ids within the interval: no download storm
        with pytest.raises(TokenRejected, match="unknown signing key"):
            verifier.verify(pool.token(key_id="key-2"))
    assert len(pool.fetches) == 1

    pool.key, pool.key_id = new_key(), "key-2"  # Cognito rotates its signing key
    now[0] += 61
    assert verifier.verify(pool.token()).user_id == SUB
    assert len(pool.fetches) == 2


def test_verify_fails_closed_when_the_keys_cannot_be_fetched() -> None:
    def unreachable(url: str) -> dict[str, object]:
        raise DependencyError("the user pool's signing keys could not be fetched")

    verifier = CognitoTokenVerifier(region=REGION, user_pool_id=USER_POOL_ID, client_id=CLIENT_ID,
                                    fetch_jwks=unreachable)
    with pytest.raises(DependencyError):
        verifier.verify(StubPool().token())


def test_verifier_from_settings_needs_the_pool_and_client() -> None:
    with pytest.raises(InvalidInput, match="VOICEASSIST_USER_POOL_ID"):
        verifier_from_settings(Settings())
    verifier = verifier_from_settings(Settings(region=REGION, user_pool_id=USER_POOL_ID,
                                               user_pool_client_id=CLIENT_ID))
    assert verifier.jwks_url == f"https://cognito-idp.{REGION}.amazonaws.com/{USER_POOL_ID}/.well-known/jwks.json"


def test_fetch_jwks_refuses_plain_http() -> None:
    with pytest.raises(InvalidInput):
        fetch_jwks_over_https("http://cognito-idp.eu-west-1.amazonaws.com/pool/.well-known/jwks.json")
