"""make models and make smoke, offline: a scripted shell stands in for the AWS CLI, a fake for the API."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dev_on_sagemaker
from fake_shell import Failure, FakeShell

from infra.ops.environment import load
from infra.ops.smoke import PHI_QUESTION, QUESTION, SmokeFailed, smoke, totp
from infra.ops.weights import MANIFEST, StagingError, stage

DEV = dev_on_sagemaker()  # dev itself is on Bedrock: no weights to stage


def _weights(folder: Path) -> Path:
    folder.mkdir()
    (folder / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    (folder / "model-00001-of-00001.safetensors").write_bytes(b"\x00weights" * 100)
    (folder / "tokenizer.json").write_text("{}")
    (folder / "README.md").write_text("not staged")
    return folder


def _s3_that_stores(shell_store: dict[str, bytes]) -> Any:
    def put(argv: list[str]) -> dict[str, Any]:
        body = Path(argv[argv.index("--body") + 1]).read_bytes()
        claimed = argv[argv.index("--checksum-sha256") + 1]
        if base64.b64encode(hashlib.sha256(body).digest()).decode() != claimed:  # S3 refuses a mismatch
            return Failure("BadDigest")  # type: ignore[return-value]
        shell_store[argv[argv.index("--key") + 1]] = body
        return {"ChecksumSHA256": claimed}

    def head(argv: list[str]) -> dict[str, Any]:
        body = shell_store[argv[argv.index("--key") + 1]]
        return {"ChecksumSHA256": base64.b64encode(hashlib.sha256(body).digest()).decode()}

    return put, head


def test_models_stages_every_weight_file_with_checksums_and_the_manifest_last(tmp_path: Path) -> None:
    stored: dict[str, bytes] = {}
    put, head = _s3_that_stores(stored)
    shell = FakeShell({("aws", "s3api", "put-object"): put, ("aws", "s3api", "head-object"): head})
    staged = stage(shell, DEV, _weights(tmp_path / "llama"))
    prefix = DEV.llm.model_data_prefix
    assert sorted(stored) == sorted(prefix + name for name in
                                    ("config.json", "model-00001-of-00001.safetensors", "tokenizer.json", MANIFEST))
    puts = [call[call.index("--key") + 1] for call in shell.ran("aws", "s3api", "put-object")]
    assert puts[-1] == prefix + MANIFEST
    manifest = stored[prefix + MANIFEST].decode().splitlines()
    assert manifest == [f"{f.sha256_hex}  {f.name}" for f in staged]
    assert all(call[call.index("--bucket") + 1] == DEV.model_artifacts_bucket_name
               for call in shell.ran("aws", "s3api", "put-object"))


def test_a_checksum_that_does_not_match_stops_staging(tmp_path: Path) -> None:
    stored: dict[str, bytes] = {}
    put, _ = _s3_that_stores(stored)
    shell = FakeShell({("aws", "s3api", "put-object"): put,
                       ("aws", "s3api", "head-object"): {"ChecksumSHA256": "AAAA"}})
    with pytest.raises(StagingError, match="checksum"):
        stage(shell, DEV, _weights(tmp_path / "llama"))
    assert not any(key.endswith(MANIFEST) for key in stored)


def test_a_folder_without_a_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(StagingError, match="config.json"):
        stage(FakeShell({}), DEV, tmp_path / "empty")


def test_totp_matches_rfc_6238() -> None:
    secret = base64.b32encode(b"12345678901234567890").decode()
    assert totp(secret, at=59, digits=8) == "94287082" and totp(secret, at=1111111109, digits=8) == "07081804"


OUTPUTS = {"UserPoolId": "us-east-1_pool", "SmokeClientId": "smoke", "RestApiUrl": "https://api.example/api/"}


def _cognito() -> dict[tuple[str, ...], Any]:
    secret = base64.b32encode(b"smoke-secret-1234567").decode()
    return {("aws", "cognito-idp", "admin-create-user"): {}, ("aws", "cognito-idp", "admin-set-user-password"): {},
            ("aws", "cognito-idp", "admin-initiate-auth"): {"ChallengeName": "MFA_SETUP", "Session": "s1"},
            ("aws", "cognito-idp", "associate-software-token"): {"SecretCode": secret, "Session": "s2"},
            ("aws", "cognito-idp", "verify-software-token"): {"Status": "SUCCESS", "Session": "s3"},
            ("aws", "cognito-idp", "admin-respond-to-auth-challenge"):
                {"AuthenticationResult": {"IdToken": "id-token"}},
            ("aws", "cognito-idp", "admin-delete-user"): {}}


class FakeApi:
    def __init__(self, phi_model: str = "llama-3.1-8b-instruct", ingested_after: int = 1) -> None:
        self.phi_model = phi_model
        self.listings = 0
        self.ingested_after = ingested_after
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []

    def __call__(self, method: str, url: str, headers: dict[str, str], body: bytes | None) -> tuple[int, Any]:
        payload = json.loads(body) if body else None
        self.requests.append((method, url, headers, payload))
        if url.endswith("/documents"):
            self.listings += 1
            ready = self.listings > self.ingested_after
            return 200, {"documents": [{"doc_key": "metformin-drug-reference"}] if ready else []}
        if not payload:
            return 400, {"error": {"code": "invalid_request", "message": "query: field required", "trace_id": "t"}}
        if payload["query"] == QUESTION:
            return 200, {"answer": "2,550 mg [1]", "citations": [{"n": 1}], "metadata": {"phi_detected": False}}
        assert payload["query"] == PHI_QUESTION
        return 200, {"answer": "...", "citations": [], "metadata": {"phi_detected": True, "model": self.phi_model}}


def test_smoke_signs_in_with_totp_asks_three_things_and_deletes_its_user() -> None:
    shell, api = FakeShell(_cognito()), FakeApi()
    result = smoke(shell, DEV, OUTPUTS, http=api, sleep=lambda _s: None)
    assert result == {"answer_citations": 1, "phi_model": "llama-3.1-8b-instruct"}
    (verify,) = shell.ran("aws", "cognito-idp", "verify-software-token")
    code = verify[verify.index("--user-code") + 1]
    assert len(code) == 6 and code.isdigit()
    assert all(headers["Authorization"] == "id-token" for _, _, headers, _ in api.requests)
    assert [(m, u.removeprefix("https://api.example/api")) for m, u, _, _ in api.requests] == [
        ("POST", "/v1/query"), ("GET", "/v1/documents"), ("GET", "/v1/documents"), ("POST", "/v1/query"),
        ("POST", "/v1/query")]
    (created,) = shell.ran("aws", "cognito-idp", "admin-create-user")
    (deleted,) = shell.ran("aws", "cognito-idp", "admin-delete-user")
    assert created[created.index("--username") + 1] == deleted[deleted.index("--username") + 1]


def test_smoke_fails_when_the_phi_question_reaches_the_cloud_model() -> None:
    shell = FakeShell(_cognito())
    with pytest.raises(SmokeFailed, match="inside the boundary"):
        smoke(shell, DEV, OUTPUTS, http=FakeApi(phi_model=DEV.openai_model), sleep=lambda _s: None)
    assert shell.ran("aws", "cognito-idp", "admin-delete-user")  # the user goes even when the check fails


def test_smoke_fails_when_the_samples_are_never_ingested() -> None:
    with pytest.raises(SmokeFailed, match="not ingested"):
        smoke(FakeShell(_cognito()), DEV, OUTPUTS, http=FakeApi(ingested_after=10**6), wait_seconds=0,
              sleep=lambda _s: None)


def test_smoke_needs_the_smoke_client() -> None:
    with pytest.raises(SmokeFailed, match="smoke_test_client"):
        smoke(FakeShell({}), load("prod"), {k: v for k, v in OUTPUTS.items() if k != "SmokeClientId"})


def test_models_needs_exactly_one_source(capsys: pytest.CaptureFixture[str]) -> None:
    from infra.ops.__main__ import main

    assert main(["models", "--env", "staging"]) == 1
    assert "SOURCE=" in capsys.readouterr().err


def test_a_missing_cli_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from infra.ops.__main__ import main

    monkeypatch.setenv("PATH", "/nonexistent")
    assert main(["preflight", "--env", "dev"]) == 1
    assert "aws is not installed" in capsys.readouterr().err
