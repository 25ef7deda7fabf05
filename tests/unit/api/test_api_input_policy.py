"""One input policy on every route: wrong content types are 415, deep JSON and wrong types are 400, unknown
fields are 400, a store outage is 503 with Retry-After; the OpenAPI document says so (events only, no sockets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.adapters.local.sqlite_sessions import SqliteSessionStore


def call(method: str, path: str, body: bytes = b"", content_type: str | None = "application/json"
         ) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {"content-type": content_type} if body and content_type else {}
    reply = invoke("api", to_api_gateway_event(method, path, headers, body))
    merged = {k.lower(): v for k, v in (reply.get("headers") or {}).items()}
    merged |= {k.lower(): v[-1] for k, v in (reply.get("multiValueHeaders") or {}).items()}
    return reply["statusCode"], json.loads(reply["body"]), merged


@pytest.fixture(autouse=True)
def _stack(local_deps):  # type: ignore[no-untyped-def]
    return local_deps


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "application/x-www-form-urlencoded",
                                          "multipart/form-data"])
@pytest.mark.parametrize("path", ["/v1/query", "/v1/sessions"])
def test_a_json_route_answers_415_to_another_content_type(path: str, content_type: str) -> None:
    status, body, _ = call("POST", path, b'{"query": "x"}', content_type)
    assert status == 415 and body["error"]["code"] == "unsupported_media_type"
    assert "application/json" in body["error"]["message"]


def test_a_body_on_a_route_without_one_must_still_be_json() -> None:
    status, _, _ = call("POST", "/v1/jobs/job_x/retry", b"hello", "text/plain")
    assert status == 415


@pytest.mark.parametrize("path", ["/v1/query", "/v1/sessions", "/v1/documents"])
def test_json_nested_a_thousand_levels_is_a_400(path: str) -> None:
    deep = b'{"query": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    status, body, _ = call("POST", path, deep)
    assert status == 400, body


def test_json_nested_past_the_limit_is_a_400_even_where_the_parser_copes() -> None:
    deep = {"filename": "a.txt", "text": "x", "metadata": {"doc_key": "k"}}
    node: dict[str, Any] = deep["metadata"]  # type: ignore[assignment]
    for _ in range(40):
        node["n"] = {}
        node = node["n"]
    status, body, _ = call("POST", "/v1/documents", json.dumps(deep).encode())
    assert status == 400 and "deeper" in body["error"]["message"]


@pytest.mark.parametrize("metadata", ["a string", ["a", "list"], 7])
def test_upload_metadata_that_is_not_an_object_is_a_400(metadata: Any) -> None:
    body = json.dumps({"filename": "a.txt", "text": "hello", "metadata": metadata}).encode()
    status, reply, _ = call("POST", "/v1/documents", body)
    assert status == 400 and "metadata" in reply["error"]["message"]


def test_upload_filename_that_is_a_list_is_a_400_not_a_doc_key() -> None:
    status, reply, _ = call("POST", "/v1/documents", json.dumps({"filename": ["a"], "text": "hello"}).encode())
    assert status == 400 and "filename" in reply["error"]["message"]


def test_upload_envelope_with_an_unknown_field_is_a_400() -> None:
    body = json.dumps({"filename": "a.txt", "text": "hello", "colour": "red"}).encode()
    status, reply, _ = call("POST", "/v1/documents", body)
    assert status == 400 and "colour" in reply["error"]["message"]


def test_upload_envelope_with_both_content_base64_and_text_is_a_400_naming_both() -> None:
    body = json.dumps({"filename": "a.txt", "text": "hello", "content_base64": "aGVsbG8="}).encode()
    status, reply, _ = call("POST", "/v1/documents", body)
    assert status == 400 and reply["error"]["code"] == "invalid_input"
    assert "content_base64" in reply["error"]["message"] and '"text"' in reply["error"]["message"]


@pytest.mark.parametrize("filename", [".md", "C:\\Users\\me\\.md"])
def test_upload_of_a_file_without_a_name_before_its_extension_is_a_400_naming_the_rule(filename: str) -> None:
    status, reply, _ = call("POST", "/v1/documents", json.dumps({"filename": filename, "text": "# Gout"}).encode())
    assert status == 400 and "needs a name before its extension" in reply["error"]["message"]
    assert "Users" not in reply["error"]["message"]


def test_upload_named_with_a_windows_path_is_keyed_by_its_file_name() -> None:
    body = json.dumps({"filename": "C:\\Windows\\evil.md", "text": "Colchicine dosing in gout."}).encode()
    status, reply, _ = call("POST", "/v1/documents", body)
    assert status == 202 and reply["doc_key"] == "evil"


def test_sessions_reject_unknown_fields_as_query_does() -> None:
    status, body, _ = call("POST", "/v1/sessions", json.dumps({"clinical_context": "x", "zzz": 1}).encode())
    assert status == 400 and "zzz" in body["error"]["message"]


def test_a_store_outage_is_a_503_with_retry_after(local_deps, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "not-a-database").mkdir()
    local_deps.sessions = SqliteSessionStore(tmp_path / "not-a-database")  # SQLite cannot open a folder
    status, body, headers = call("POST", "/v1/sessions", json.dumps({"clinical_context": None}).encode())
    assert status == 503 and body["error"]["code"] == "store_unavailable"
    assert int(headers["retry-after"]) > 0 and body["error"]["retry_after"] > 0
    assert "sqlite" not in json.dumps(body).lower()


def test_a_known_path_with_another_method_is_a_405_naming_the_allowed_ones() -> None:
    status, body, headers = call("PATCH", "/v1/query")
    assert status == 405 and headers["allow"] == "POST"
    status, _, headers = call("PUT", "/v1/jobs/job_1")
    assert status == 405 and headers["allow"] == "GET"


def test_openapi_documents_400_the_error_envelope_the_upload_body_and_the_security_scheme() -> None:
    _, spec, _ = call("GET", "/v1/openapi.json")
    query = spec["paths"]["/v1/query"]["post"]["responses"]
    assert "422" not in query and {"400", "415", "500", "503"} <= set(query)
    assert query["400"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    upload = spec["paths"]["/v1/documents"]["post"]
    assert {"application/json", "application/pdf", "text/plain"} <= set(upload["requestBody"]["content"])
    assert {"200", "202", "413", "415", "429"} <= set(upload["responses"])
    assert "404" in spec["paths"]["/v1/jobs/{job_id}"]["get"]["responses"]
    assert "202" in spec["paths"]["/v1/jobs/{job_id}/retry"]["post"]["responses"]
    assert spec["components"]["securitySchemes"]["cognito"]["in"] == "header"
    assert "security" not in spec  # the local server on 127.0.0.1 asks for no credentials: the document agrees


def test_swagger_ui_is_served_with_its_assets_inlined() -> None:
    reply = invoke("api", to_api_gateway_event("GET", "/v1/docs", {}, b""))
    page = reply["body"]
    assert reply["statusCode"] == 200 and "SwaggerUIBundle" in page and "/v1/query" in page
    assert "<script src=" not in page and "<link rel='stylesheet'" not in page  # nothing fetched from elsewhere


class ThrottledSessions:
    """A SessionStore whose DynamoDB table throttles every call, as botocore reports it."""

    def __getattr__(self, name: str) -> Any:
        from botocore.exceptions import ClientError

        def throttled(*args: Any, **kwargs: Any) -> Any:
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
                              "PutItem")

        return throttled


def test_a_throttled_dynamodb_table_is_a_503_not_a_500(local_deps) -> None:  # type: ignore[no-untyped-def]
    local_deps.sessions = ThrottledSessions()
    status, body, headers = call("POST", "/v1/sessions", json.dumps({"clinical_context": None}).encode())
    assert status == 503 and "retry-after" in headers and "slow down" not in json.dumps(body)


@pytest.mark.parametrize("top_k", [True, "5", 2.5])
def test_integers_must_be_json_integers(top_k: Any) -> None:
    status, body, _ = call("POST", "/v1/query", json.dumps({"query": "metformin dose", "top_k": top_k}).encode())
    assert status == 400 and "top_k" in body["error"]["message"]


def test_an_integral_float_is_a_json_integer() -> None:
    status, _, _ = call("POST", "/v1/query", json.dumps({"query": "metformin dose", "top_k": 3.0}).encode())
    assert status == 200


def test_swagger_ui_allows_exactly_its_own_inline_script_and_styles() -> None:
    """Every reply's policy (default-src 'none') blocked the page's inline script and styles: it showed 'Loading...'.
    Its own policy names each inline block by hash, and nothing else (no 'unsafe-inline' script, no origin)."""
    import base64
    import hashlib
    import re

    reply = invoke("api", to_api_gateway_event("GET", "/v1/docs", {}, b""))
    policy = {**reply.get("headers", {}), **{k: v[0] for k, v in reply.get("multiValueHeaders", {}).items()}}[
        "Content-Security-Policy"]
    for tag in ("script", "style"):
        for block in re.findall(rf"<{tag}>(.*?)</{tag}>", reply["body"], re.S):
            digest = base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in policy, (tag, block[:80])
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "script-src 'unsafe-inline'" not in policy and "http" not in policy
