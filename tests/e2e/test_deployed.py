"""Opt-in checks against a deployed environment: VOICEASSIST_E2E_URL=<RestApiUrl> (and VOICEASSIST_E2E_ENV,
default dev, with AWS credentials for that account). What the offline tests assert about the templates, seen
from the outside: Cognito on every route, CORS preflight without it, API Gateway's errors in the envelope, the
smoke test, and a presigned upload that S3 accepts."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

import pytest

from infra.ops.environment import Stacks, load, stack_outputs
from infra.ops.shell import Shell
from infra.ops.smoke import route_url, sign_in, smoke, urllib_http

URL = os.environ.get("VOICEASSIST_E2E_URL", "").rstrip("/") + "/"
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not os.environ.get("VOICEASSIST_E2E_URL"), reason="set VOICEASSIST_E2E_URL to run these"),
]


@pytest.fixture(scope="module")
def deployed() -> tuple[Any, Shell, dict[str, str]]:
    config = load(os.environ.get("VOICEASSIST_E2E_ENV", "dev"))
    shell = Shell(config.region, echo=False)
    outputs = stack_outputs(shell, Stacks(config).main) or {}
    assert outputs.get("RestApiUrl", "").rstrip("/") + "/" == URL, "VOICEASSIST_E2E_URL is not this stack's API"
    return config, shell, outputs


def test_routes_need_a_token_and_refusals_carry_the_envelope(deployed: tuple[Any, Shell, dict[str, str]]) -> None:
    status, body = urllib_http("GET", route_url(URL, "/v1/health"), {}, None)
    assert status == 401 and body["error"]["code"] == "unauthorized" and body["error"]["trace_id"]


def test_cors_preflight_is_answered_without_a_token(deployed: tuple[Any, Shell, dict[str, str]]) -> None:
    origin = deployed[0].api.cors_origins[0]
    request = urllib.request.Request(route_url(URL, "/v1/query"), method="OPTIONS", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type"})
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - the deployed API
        assert response.status in (200, 204)
        assert response.headers["Access-Control-Allow-Origin"] == origin


def test_the_smoke_test_passes(deployed: tuple[Any, Shell, dict[str, str]]) -> None:
    config, shell, outputs = deployed
    result = smoke(shell, config, outputs)
    assert result["answer_citations"] >= 1 and result["phi_model"] != config.openai_model


def test_a_presigned_upload_lands_in_s3(deployed: tuple[Any, Shell, dict[str, str]]) -> None:
    config, shell, outputs = deployed
    username = f"e2e-upload-{os.getpid()}@example.invalid"
    token = sign_in(shell, outputs["UserPoolId"], outputs["SmokeClientId"], username)
    try:
        status, form = urllib_http("POST", route_url(URL, "/v1/documents/uploads"), {
            "Authorization": token, "Content-Type": "application/json"},
            json.dumps({"filename": "e2e-note.txt", "metadata": {"title": "E2E note"}}).encode())
        assert status == 201, form
        boundary = "voiceassist-e2e"
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                 for k, v in form["fields"].items()]
        payload = ("".join(parts) + f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                   f'filename="e2e-note.txt"\r\n\r\nMetformin e2e note.\r\n--{boundary}--\r\n').encode()
        request = urllib.request.Request(form["url"], data=payload, method="POST",
                                         headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - S3's presigned URL
                assert response.status in (200, 201, 204)
        except urllib.error.HTTPError as error:
            raise AssertionError(error.read().decode()) from error
        head = shell.aws("s3api", "head-object", "--bucket", outputs["DocumentsBucketName"], "--key", form["key"])
        assert head["Metadata"]["title"] == "E2E note"
    finally:
        shell.aws("cognito-idp", "admin-delete-user", "--user-pool-id", outputs["UserPoolId"], "--username", username)
