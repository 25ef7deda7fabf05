"""Cognito token verification (the TokenVerifier the WebSocket `$connect` authorizer uses).

The checks Cognito documents for its JWTs: an RS256 signature by a key in the pool's JWKS, the pool's
issuer, expiry, `token_use`, and the app client (`aud` on ID tokens, `client_id` on access tokens). The
JWKS is public data that Cognito serves per pool; it is fetched at run time and cached per warm container.
PyJWT (with `cryptography`) does the signature and claim checks: it ships in the auth layer, which only the
authorizer carries.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

import jwt

from voiceassist.authentication import AuthenticatedUser, TokenRejected
from voiceassist.errors import DependencyError, InvalidInput
from voiceassist.settings import ENV_USER_POOL_CLIENT_ID, ENV_USER_POOL_ID, Settings

_ALGORITHM = "RS256"  # the only algorithm Cognito signs with; anything else is refused before decoding
_REQUIRED_CLAIMS = ["exp", "iss", "sub", "token_use"]
_CLIENT_CLAIM_BY_TOKEN_USE = {"id": "aud", "access": "client_id"}

JwksFetcher = Callable[[str], Mapping[str, Any]]


def fetch_jwks_over_https(url: str, *, timeout_seconds: float = 3.0) -> Mapping[str, Any]:
    """The pool's public signing keys (no credentials involved)."""
    if not url.startswith("https://"):
        raise InvalidInput(f"the JWKS URL must be https, not {url!r}")
    try:
        with urllib.request.urlopen(url, timeout=timeout_seconds) as response:  # noqa: S310 (https only)
            document: Mapping[str, Any] = json.load(response)
    except (OSError, ValueError) as exc:
        raise DependencyError("the user pool's signing keys could not be fetched") from exc
    return document


class CognitoTokenVerifier:
    """Verifies Cognito ID and access tokens for one user pool and app client.

    Keys are fetched on first use and again only when a token names a key id the cache does not hold
    (Cognito rotated its keys), at most once per `refetch_interval_seconds`: forged key ids cannot turn the
    authorizer into a JWKS download loop.
    """

    def __init__(
        self,
        *,
        region: str,
        user_pool_id: str,
        client_id: str,
        fetch_jwks: JwksFetcher = fetch_jwks_over_https,
        clock: Callable[[], float] = time.time,
        refetch_interval_seconds: float = 60.0,
    ) -> None:
        self.issuer = f"https://cognito-idp.{region}.amazonaws.com/{user_pool_id}"
        self.client_id = client_id
        self._fetch_jwks = fetch_jwks
        self._clock = clock
        self._refetch_interval = refetch_interval_seconds
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at: float | None = None

    @property
    def jwks_url(self) -> str:
        return f"{self.issuer}/.well-known/jwks.json"

    def verify(self, token: str | None) -> AuthenticatedUser:
        if not token:
            raise TokenRejected("no token")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            raise TokenRejected("malformed token") from None
        if header.get("alg") != _ALGORITHM:
            raise TokenRejected("unexpected signing algorithm")
        key = self._signing_key(str(header.get("kid") or ""))
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[_ALGORITHM],
                issuer=self.issuer,
                options={"require": _REQUIRED_CLAIMS, "verify_aud": False},  # the client is checked below
            )
        except jwt.ExpiredSignatureError:
            raise TokenRejected("expired") from None
        except jwt.InvalidSignatureError:
            raise TokenRejected("bad signature") from None
        except jwt.InvalidIssuerError:
            raise TokenRejected("wrong issuer") from None
        except jwt.MissingRequiredClaimError:
            raise TokenRejected("missing claim") from None
        except jwt.InvalidTokenError:
            raise TokenRejected("invalid token") from None
        token_use = str(claims["token_use"])
        client_claim = _CLIENT_CLAIM_BY_TOKEN_USE.get(token_use)
        if client_claim is None:
            raise TokenRejected("wrong token_use")
        if claims.get(client_claim) != self.client_id:
            raise TokenRejected("wrong client")
        username = claims.get("cognito:username") or claims.get("username")
        return AuthenticatedUser(
            user_id=str(claims["sub"]), username=str(username) if username else None, token_use=token_use
        )

    def _signing_key(self, key_id: str) -> jwt.PyJWK:
        if key_id not in self._keys and self._may_refetch():
            self._refresh_keys()
        try:
            return self._keys[key_id]
        except KeyError:
            raise TokenRejected("unknown signing key") from None

    def _may_refetch(self) -> bool:
        return self._fetched_at is None or self._clock() - self._fetched_at >= self._refetch_interval

    def _refresh_keys(self) -> None:
        self._fetched_at = self._clock()
        document = self._fetch_jwks(self.jwks_url)
        try:
            key_set = jwt.PyJWKSet.from_dict(dict(document))
        except jwt.PyJWTError as exc:
            raise DependencyError("the user pool's signing keys are not a usable JWKS") from exc
        self._keys = {
            str(key.key_id): key
            for key in key_set.keys
            if key.key_id and key.key_type == "RSA" and key.public_key_use in (None, "sig")
        }


def verifier_from_settings(
    settings: Settings, *, fetch_jwks: JwksFetcher = fetch_jwks_over_https
) -> CognitoTokenVerifier:
    if not settings.user_pool_id or not settings.user_pool_client_id:
        raise InvalidInput(
            f"invalid configuration: token checks need {ENV_USER_POOL_ID} and {ENV_USER_POOL_CLIENT_ID}"
        )
    return CognitoTokenVerifier(
        region=settings.region,
        user_pool_id=settings.user_pool_id,
        client_id=settings.user_pool_client_id,
        fetch_jwks=fetch_jwks,
    )
