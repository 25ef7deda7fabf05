"""`make smoke ENV=dev`: a throw-away Cognito user asks the deployed API three things.

1. a bad request gets the error envelope; 2. a question about the sample corpus gets a cited answer; 3. a
question carrying PHI is answered inside the boundary (PHI detected, not the cloud model). The user signs in
with the smoke-test app client (admin password flow, dev and staging only) and a TOTP second factor computed
here (the pool requires MFA), and is deleted afterwards.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import struct
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from infra.config import EnvironmentConfig
from infra.ops.shell import Shell

Http = Callable[[str, str, dict[str, str], bytes | None], tuple[int, dict[str, Any]]]
QUESTION = "What is the maximum daily dose of metformin?"
PHI_QUESTION = "Jane Doe, MRN 48213377, born 03/14/1952: what is the maximum daily dose of metformin?"
SAMPLE_DOCUMENT = "metformin-drug-reference"


# The requests the smoke test makes, by route (every route starts with /v1: infra/constructs/api.py REST_STAGE).
BAD_REQUEST = ("POST", "/v1/query")
LIST_DOCUMENTS = ("GET", "/v1/documents")
ASK = ("POST", "/v1/query")


class SmokeFailed(AssertionError):
    pass


def route_url(rest_api_url: str, route: str) -> str:
    """The one path scheme: the stage URL (RestApiUrl, or the local server's root) + the route (/v1/...)."""
    if not route.startswith("/v1/"):
        raise ValueError(f"a route starts with /v1/: {route!r}")
    return rest_api_url.rstrip("/") + route


def totp(secret: str, at: float | None = None, digits: int = 6, step: int = 30) -> str:
    """RFC 6238 (HMAC-SHA1), as Cognito's software token MFA checks it."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = struct.pack(">Q", int((time.time() if at is None else at) // step))
    digest = hmac.new(key, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    code = (struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 10**digits
    return str(code).zfill(digits)


def urllib_http(method: str, url: str, headers: dict[str, str], body: bytes | None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=35) as response:  # noqa: S310 - the stack's own API URL
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def sign_in(shell: Shell, pool: str, client: str, username: str) -> str:
    """Create the user, set up its TOTP factor and return an ID token."""
    password = secrets.token_urlsafe(18) + "Aa1!"
    shell.aws("cognito-idp", "admin-create-user", "--user-pool-id", pool, "--username", username,
              "--user-attributes", f"Name=email,Value={username}", "Name=email_verified,Value=true",
              "--message-action", "SUPPRESS")
    shell.aws("cognito-idp", "admin-set-user-password", "--user-pool-id", pool, "--username", username,
              "--password", password, "--permanent")
    started = shell.aws("cognito-idp", "admin-initiate-auth", "--user-pool-id", pool, "--client-id", client,
                        "--auth-flow", "ADMIN_USER_PASSWORD_AUTH",
                        "--auth-parameters", f"USERNAME={username},PASSWORD={password}")
    if started.get("ChallengeName") != "MFA_SETUP":
        raise SmokeFailed(f"expected the MFA_SETUP challenge, got {started.get('ChallengeName')}")
    associated = shell.aws("cognito-idp", "associate-software-token", "--session", started["Session"])
    verified = shell.aws("cognito-idp", "verify-software-token", "--session", associated["Session"],
                         "--user-code", totp(associated["SecretCode"]))
    answered = shell.aws("cognito-idp", "admin-respond-to-auth-challenge", "--user-pool-id", pool,
                         "--client-id", client, "--challenge-name", "MFA_SETUP",
                         "--challenge-responses", f"USERNAME={username}", "--session", verified["Session"])
    return str(answered["AuthenticationResult"]["IdToken"])


def smoke(shell: Shell, config: EnvironmentConfig, outputs: dict[str, str], *, http: Http = urllib_http,
          wait_seconds: float = 600, sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    if "SmokeClientId" not in outputs:
        raise SmokeFailed(f"{config.name} has no smoke-test client (api.smoke_test_client in cdk.json)")
    pool = outputs["UserPoolId"]
    username = f"smoke-{secrets.token_hex(4)}@example.invalid"
    token = sign_in(shell, pool, outputs["SmokeClientId"], username)
    try:
        return check_api(http, outputs["RestApiUrl"], token, openai_model=config.openai_model,
                         wait_seconds=wait_seconds, sleep=sleep)
    finally:
        shell.aws("cognito-idp", "admin-delete-user", "--user-pool-id", pool, "--username", username)


def check_api(http: Http, rest_api_url: str, token: str, *, openai_model: str, wait_seconds: float = 600,
              sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """The three checks, against the API at rest_api_url (the deployed stage, or a local server behind it)."""
    def call(request: tuple[str, str], payload: Any = None) -> tuple[int, dict[str, Any]]:
        body = None if payload is None else json.dumps(payload).encode()
        method, route = request
        return http(method, route_url(rest_api_url, route),
                    {"Authorization": token, "Content-Type": "application/json"}, body)

    status, bad = call(BAD_REQUEST, {})
    if not (400 <= status < 500 and {"code", "message", "trace_id"} <= set(bad.get("error", {}))):
        raise SmokeFailed(f"a bad request did not get the error envelope: {status} {bad}")
    deadline = time.monotonic() + wait_seconds
    while SAMPLE_DOCUMENT not in json.dumps(call(LIST_DOCUMENTS)[1]):
        if time.monotonic() > deadline:
            raise SmokeFailed(f"{SAMPLE_DOCUMENT} was not ingested within {wait_seconds:g} s")
        sleep(15)
    status, answer = call(ASK, {"query": QUESTION})
    if status != 200 or not answer.get("citations"):
        raise SmokeFailed(f"the sample question got no cited answer: {status} {answer}")
    status, phi = call(ASK, {"query": PHI_QUESTION})
    metadata = phi.get("metadata", {})
    if status != 200 or not metadata.get("phi_detected") or metadata.get("model") == openai_model:
        raise SmokeFailed(f"the PHI question was not answered inside the boundary: {status} {metadata}")
    return {"answer_citations": len(answer["citations"]), "phi_model": metadata.get("model")}
