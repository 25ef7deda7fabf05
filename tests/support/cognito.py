"""A stand-in Cognito user pool for token tests: a locally generated RSA key, its JWKS, and signed tokens."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

REGION = "eu-west-1"
USER_POOL_ID = "eu-west-1_TestPool1"
CLIENT_ID = "testclient0123456789abcdef"
ISSUER = f"https://cognito-idp.{REGION}.amazonaws.com/{USER_POOL_ID}"
SUB = "7b1f0c7e-3a52-4f7a-9d2e-0c6c2f3b9a11"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class StubPool:
    """Signs tokens like Cognito and serves its JWKS to the verifier, counting the fetches."""

    key: rsa.RSAPrivateKey = field(default_factory=new_key)
    key_id: str = "key-1"
    fetches: list[str] = field(default_factory=list)

    def jwks(self, url: str) -> dict[str, Any]:
        self.fetches.append(url)
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": self.key_id, "alg": "RS256", "use": "sig"}]}

    def token(self, *, token_use: str = "id", signing_key: rsa.RSAPrivateKey | None = None,
              key_id: str | None = None, **overrides: Any) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {"sub": SUB, "iss": ISSUER, "token_use": token_use, "iat": now,
                                  "auth_time": now, "exp": now + 3600}
        if token_use == "id":
            claims |= {"aud": CLIENT_ID, "cognito:username": "dr.house", "email": "house@example.org"}
        else:
            claims |= {"client_id": CLIENT_ID, "username": "dr.house", "scope": "aws.cognito.signin.user.admin"}
        claims |= overrides
        claims = {name: value for name, value in claims.items() if value is not None}
        return jwt.encode(claims, signing_key or self.key, algorithm="RS256",
                          headers={"kid": key_id or self.key_id})
