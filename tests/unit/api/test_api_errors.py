"""The API's error envelope: bad input gets a clear 4xx, never a 5xx or a traceback (no sockets: events only)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event


def call(method: str, path: str, body: bytes = b"", content_type: str = "application/json") -> tuple[int, Any]:
    headers = {"content-type": content_type} if body else {}
    reply = invoke("api", to_api_gateway_event(method, path, headers, body))
    return reply["statusCode"], json.loads(reply["body"])


@pytest.fixture(autouse=True)
def _stack(local_deps):  # type: ignore[no-untyped-def]
    return local_deps


def test_health_reports_local_runtime() -> None:
    status, body = call("GET", "/v1/health")
    assert status == 200 and body["status"] == "ok" and body["runtime"] == "local"


def test_malformed_json_is_a_400_with_an_envelope() -> None:
    status, body = call("POST", "/v1/query", b'{"query": ')
    assert status == 400
    assert body["error"]["code"] == "invalid_request" and "not valid JSON" in body["error"]["message"]


def test_an_error_names_its_code_as_type_too_where_openais_sdks_read_it() -> None:
    # the API function's envelope, as the local server's (OpenAI's SDKs read error.type and error.message)
    status, body = call("POST", "/v1/chat/completions", json.dumps({"model": "voiceassist", "messages": []}).encode())
    assert status == 400 and body["error"]["type"] == body["error"]["code"]


def test_empty_query_is_a_400_naming_the_field() -> None:
    status, body = call("POST", "/v1/query", json.dumps({"query": "   "}).encode())
    assert status == 400 and "query" in body["error"]["message"]


def test_missing_query_field_is_a_400() -> None:
    status, body = call("POST", "/v1/query", json.dumps({"question": "x"}).encode())
    assert status == 400 and body["error"]["details"]


def test_unknown_route_is_a_404_envelope() -> None:
    status, body = call("GET", "/v1/nothing-here")
    assert status == 404 and "GET /v1/nothing-here" in body["error"]["message"]


def test_unsupported_upload_type_is_a_415() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    status, body = call("POST", "/v1/documents?filename=scan.png", png, "image/png")
    assert status == 415 and body["error"]["code"] == "unsupported_media_type"


def test_upload_without_filename_says_how_to_fix_it() -> None:
    status, body = call("POST", "/v1/documents", b"some bytes", "application/octet-stream")
    assert status == 400 and "filename" in body["error"]["message"]


def test_a_raw_upload_without_filename_is_named_by_its_content_and_type() -> None:
    status, body = call("POST", "/v1/documents", b"Some plain text about zorbafen.", "text/plain")
    assert status == 202 and body["doc_key"].startswith("upload-")


def test_empty_upload_is_a_400() -> None:
    status, body = call("POST", "/v1/documents", json.dumps({"filename": "a.txt", "text": ""}).encode())
    assert status == 400 and "empty" in body["error"]["message"]


def test_unknown_job_is_a_404() -> None:
    status, body = call("GET", "/v1/jobs/job_doesnotexist")
    assert status == 404 and body["error"]["code"] == "not_found"


def test_openapi_document_lists_the_routes() -> None:
    status, body = call("GET", "/v1/openapi.json")
    assert status == 200
    assert {"/v1/query", "/v1/documents", "/v1/jobs/{job_id}", "/v1/health"} <= set(body["paths"])


def test_openapi_documents_the_routes_outside_the_resolver_and_every_status_of_invoke() -> None:
    """The streamed query (a local face) and MCP (its own function) are routes a client can call too; the tool
    route answers with a tool's refusals and failures, each in the error envelope."""
    status, body = call("GET", "/v1/openapi.json")
    assert status == 200
    stream = body["paths"]["/v1/query/stream"]["post"]
    assert "text/event-stream" in stream["responses"]["200"]["content"]
    assert {"200", "202", "400"} <= set(body["paths"]["/v1/mcp"]["post"]["responses"])
    invoke = body["paths"]["/v1/tools/{name}/invoke"]["post"]["responses"]
    assert {"403", "404", "422", "429", "502", "504"} <= set(invoke)


@pytest.mark.parametrize("name", ["dose\u0000.md", "gdp\u202etxt.md", "two\nlines.md"])
def test_a_file_name_with_a_control_or_formatting_character_is_a_400(name: str) -> None:
    envelope = json.dumps({"filename": name, "text": "# Gout\n\nColchicine treats a gout flare."}).encode()
    status, body = call("POST", "/v1/documents", envelope)
    assert status == 400 and "control or formatting character" in body["error"]["message"]
    assert name not in body["error"]["message"]  # not echoed: a file name can hold PHI


# An id the API never issued, as a client may send one: very long, or free text that could be a patient's name.
# A 404 names an id shaped like the API's own (ses_..., doc_..._v1, job_...) and never echoes anything else.
LONG_ID = "x" * 5000
NAMED_ID = "Zebulon Quartermaine 1961-04-17"
ID_ROUTES = [
    ("GET", "/v1/sessions/{}", None), ("DELETE", "/v1/sessions/{}", None),
    ("GET", "/v1/sessions/{}/messages", None), ("GET", "/v1/admin/sessions/{}/trace", None),
    ("GET", "/v1/documents/{}", None), ("DELETE", "/v1/documents/{}", None),
    ("GET", "/v1/documents/{}/chunks/{}:00000", None), ("GET", "/v1/documents/doc_x_v1/chunks/{}", None),
    ("GET", "/v1/jobs/{}", None), ("POST", "/v1/jobs/{}/retry", None),
    ("POST", "/v1/actions/{}/confirm", b"{}"), ("POST", "/v1/actions/{}/cancel", b"{}"),
    ("GET", "/v1/models/{}", None), ("GET", "/v1/{}", None),
    ("POST", "/v1/query", '{{"query": "dose of amoxicillin for otitis media", "session_id": "{}"}}'),
]


@pytest.mark.parametrize("sent", [LONG_ID, NAMED_ID], ids=["long", "free-text"])
@pytest.mark.parametrize(("method", "template", "body"), ID_ROUTES, ids=[f"{m} {t}" for m, t, _ in ID_ROUTES])
def test_a_404_never_echoes_an_id_the_api_did_not_issue(method: str, template: str, body: Any, sent: str) -> None:
    from urllib.parse import quote

    if isinstance(body, str):
        status, reply = call(method, template, body.format(sent).encode())
    else:
        status, reply = call(method, template.replace("{}", quote(sent, safe="")), body or b"")
    assert status in (400, 404), reply
    message = json.dumps(reply)
    assert sent not in message and sent[:40] not in message and "Zebulon" not in message, message[:300]
    assert len(message) < 1000


def test_a_404_still_names_an_id_shaped_like_the_apis_own() -> None:
    status, reply = call("GET", "/v1/sessions/ses_0123456789abcdef0123456789abcdef")
    assert status == 404 and "ses_0123456789abcdef0123456789abcdef" in reply["error"]["message"]


@pytest.mark.parametrize(("path", "allowed"), [("/v1/documents/uploads", "POST, OPTIONS"),
                                               ("/v1/documents/doc_1_v1", "DELETE, GET, HEAD, OPTIONS")])
def test_a_concrete_path_allows_its_own_methods_not_its_templated_neighbours(path: str, allowed: str) -> None:
    """OpenAPI matches a concrete path before a templated one: /v1/documents/uploads takes POST only, yet its Allow
    listed /v1/documents/{doc_id}'s DELETE and GET too (schemathesis ST205 against the served API)."""
    reply = invoke("api", to_api_gateway_event("OPTIONS", path, {}, b""))
    assert reply["statusCode"] == 204 and reply["multiValueHeaders"]["Allow"] == [allowed]


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/query", {"query": "What is the dose of metformin?", "John Smith MRN 48213377": 1}),
    ("/v1/query", {"query": "What is the dose of metformin?", "filters": {"John Smith MRN 48213377": "x"}}),
    ("/v1/sessions", {"John Smith MRN 48213377": 1}),
    ("/v1/chat/completions", {"model": "John Smith MRN 48213377", "messages": [{"role": "user", "content": "hi"}]}),
])
def test_a_400_never_echoes_a_field_name_or_model_that_is_free_text(path: str, body: Any) -> None:
    """A key the client sent is named back only when shaped like a field name ('qeury'): free text there (a
    patient's name, an MRN) was quoted in the message and in `details`, as a path or an id never is."""
    status, reply = call("POST", path, json.dumps(body).encode())
    assert status == 400 and reply["error"]["code"] == "invalid_request"
    assert "Smith" not in json.dumps(reply) and "48213377" not in json.dumps(reply)


def test_a_400_names_a_misspelt_field_and_a_model_shaped_like_one() -> None:
    status, reply = call("POST", "/v1/query", json.dumps({"qeury": "x", "query": "dose of metformin?"}).encode())
    assert status == 400 and reply["error"]["details"][0]["field"] == "qeury"
    status, reply = call("POST", "/v1/chat/completions", json.dumps(
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode())
    assert status == 400 and "'gpt-4o'" in reply["error"]["message"]


def test_a_field_name_thousands_of_characters_long_is_not_sent_back() -> None:
    status, reply = call("POST", "/v1/query", json.dumps({"query": "dose of metformin?", "k" * 100_000: 1}).encode())
    assert status == 400 and len(json.dumps(reply)) < 1_000


def test_a_405_names_the_methods_without_saying_back_a_path_of_free_text() -> None:
    # the 404 said '(that path)' for such a path since 31fd5d4; the 405 quoted it whole, a patient's name included
    status, body = call("PUT", "/v1/documents/John Smith MRN 48213377", b"{}")
    assert status == 405 and "DELETE, GET" in body["error"]["message"]
    assert "John" not in json.dumps(body) and "48213377" not in json.dumps(body)


@pytest.mark.parametrize("path", ["/v1/documents/\u00c2\u00ae", "/v1/jobs/\u00e2\u0080\u00ae", "/v1/sessions/\u00a9x"])
def test_a_path_parameter_the_router_cannot_match_is_a_404_not_a_405_naming_the_method_sent(path: str) -> None:
    # raw UTF-8 bytes in a request line (read as Latin-1) or a decoded '(c)': the router's parameter pattern takes
    # none of these characters, and the reply was '405 ... takes DELETE, GET, not GET' with the path quoted back
    status, body = call("GET", path)
    assert status == 404 and body["error"]["code"] == "not_found", body
    assert "not GET" not in body["error"]["message"] and path not in json.dumps(body, ensure_ascii=False)
