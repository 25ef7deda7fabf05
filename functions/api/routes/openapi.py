"""The OpenAPI document as the API really answers: Powertools generates it from the routes; this adds what it
cannot know (the error envelope on every 4xx and 5xx, 400 rather than 422, the upload's request bodies, the
extra success statuses, the security scheme). Routes added later get the common errors without doing anything.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {
        "type": "object",
        "required": ["code", "message", "trace_id"],
        "properties": {
            "code": {"type": "string", "description": "machine-readable: invalid_request, not_found, ..."},
            "message": {"type": "string", "description": "what was wrong and how to fix it (4xx); a 5xx says "
                        "only to quote the trace id"},
            "trace_id": {"type": "string"},
            "type": {"type": "string", "description": "the code again, where OpenAI's error bodies put it"},
            "details": {"type": "array", "items": {"type": "object"}},
            "param": {"type": "string", "description": "the request option refused (unsupported_parameter), where "
                      "OpenAI's error bodies name it"},
            "retry_after": {"type": "integer", "description": "seconds to wait before trying again (429, 503, 504)"},
        },
    }},
}
ERROR_DESCRIPTIONS = {
    "400": "Invalid request: malformed JSON, wrong types, unknown fields, nesting deeper than 32 levels",
    "401": "No valid identity (on AWS: a Cognito ID token in the Authorization header)",
    "403": "The caller's role may not do this (document and job changes are for admins)",
    "404": "No such resource (another user's session reads as 404)",
    "405": "The path exists but not with this method",
    "409": "A lost race or an invalid state transition",
    "413": "The body is larger than the limit",
    "415": "The body's Content-Type is not one this route takes",
    "410": "The pending action has expired: propose it again",
    "422": "Refused: a tool's arguments or action (validation, the PHI rule, a confirmation it needs), or an admin "
           "configuration the PHI boundary or the deployment does not allow (details name each field)",
    "429": "Too many requests (the ingestion backlog, a tool's rate limit): retry after the Retry-After seconds",
    "500": "An unexpected error: the body carries only a trace id",
    "503": "A backing store or service is unavailable: retry after the Retry-After seconds",
    "501": "Not available on this runtime (voice runs on the local server; the AWS adapters are not built yet)",
    "502": "A dependency failed (the query pipeline, a key service): the body carries only a trace id",
    "504": "PHI detection did not answer in time: nothing left the boundary; retry after the Retry-After seconds",
}
COMMON = ("400", "401", "405", "500", "503")
EXTRA_ERRORS: dict[tuple[str, str], tuple[str, ...]] = {
    ("post", "/v1/query"): ("404", "502", "504"),  # 404: an unknown or another user's session_id
    ("post", "/v1/chat/completions"): ("502", "504"),  # the query pipeline failed or its PHI detection timed out
    ("post", "/v1/documents"): ("403", "409", "413", "415", "429"),
    ("post", "/v1/documents/uploads"): ("403",),
    ("delete", "/v1/documents/{doc_id}"): ("403", "404", "409"),
    ("post", "/v1/jobs/{job_id}/retry"): ("403", "404", "409", "429"),
    ("get", "/v1/jobs"): ("403",),
    # a tool's refusals and failures (tools/errors.py, ToolResult.status), in the error envelope
    ("post", "/v1/tools/{name}/invoke"): ("403", "422", "429", "502", "504"),
    ("post", "/v1/actions/{action_id}/confirm"): ("403", "409", "410", "422", "429", "502", "504"),
    ("post", "/v1/actions/{action_id}/cancel"): ("410",),
    ("get", "/v1/jobs/{job_id}"): ("403",),
    ("get", "/v1/admin/telemetry"): ("403",),
    ("get", "/v1/admin/sessions/{session_id}/trace"): ("403", "404"),
    ("get", "/v1/admin/audit/verify"): ("403",),
    # 501: a runtime without speech adapters (AWS, for now); 502: the recognizer or synthesizer failed
    ("post", "/v1/voice/transcribe"): ("413", "415", "501", "502"),
    ("post", "/v1/voice/query"): ("404", "413", "415", "501", "502", "504"),
    ("post", "/v1/voice/speak"): ("501", "502"),
    # the admin configuration and the cost ledger (routes/admin_config.py): admins only; 409 a concurrent save
    ("get", "/v1/admin/config"): ("403",),
    ("put", "/v1/admin/config"): ("403", "409", "422"),
    ("patch", "/v1/admin/config"): ("403", "409", "422"),
    ("get", "/v1/admin/config/history"): ("403",),
    ("get", "/v1/admin/billing"): ("403",),
}
AUDIO_TYPES = ("audio/wav", "audio/webm", "audio/ogg")
BINARY_UPLOAD_TYPES = ("application/pdf", "text/plain", "text/markdown", "text/html")
UPLOAD_ENVELOPE = {
    "type": "object", "additionalProperties": False, "required": ["filename"],
    "properties": {
        "filename": {"type": "string", "minLength": 1, "maxLength": 255, "description": "e.g. guide.pdf"},
        "content_base64": {"type": "string", "minLength": 4, "format": "byte",
                           "description": "the file's bytes, base64 (any supported type)"},
        "text": {"type": "string", "minLength": 1, "description": "plain text or Markdown, instead of content_base64 "
                 "(a body with both is a 400)"},
        "metadata": {"type": "object", "additionalProperties": False, "properties": {
            "doc_key": {"type": "string", "maxLength": 512, "description": "stable key across versions "
                        "(default: the file name)"},
            "title": {"type": "string", "maxLength": 1000},
            "source_type": {"$ref": "#/components/schemas/SourceType"},
            "specialty": {"type": "string", "maxLength": 100},
            "authors": {"type": "array", "items": {"type": "string"}},
            "year": {"type": "integer", "minimum": 1800, "maximum": 2100},
            "doi": {"type": "string"}, "pmid": {"type": "string"},
            "url": {"type": "string", "maxLength": 2048, "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$",
                    "description": "the source's web address: absolute http:// or https://, no spaces"}}},
    },
}


SECURITY_SCHEMES = {
    "cognito": {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "A Cognito ID token (on AWS, checked by API Gateway's authorizer)"},
    "localToken": {"type": "http", "scheme": "bearer",
                   "description": "VOICEASSIST_LOCAL_TOKEN, required when the local server listens beyond 127.0.0.1"},
}


def security_requirement() -> str | None:
    """The scheme this deployment enforces: Cognito on AWS; locally the token if one is configured, else none
    (the local server on 127.0.0.1 acts as its single user), so the document says what the server does."""
    from voiceassist.composition import dependencies
    from voiceassist.settings import Runtime

    settings = dependencies().settings
    if settings.runtime is Runtime.AWS:
        return "cognito"
    return "localToken" if settings.local_token else None


def document(app: APIGatewayRestResolver) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(app.get_openapi_json_schema())
    components = spec.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    for unused in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        schemas.pop(unused, None)
    components["securitySchemes"] = SECURITY_SCHEMES
    required = security_requirement()
    if required:
        spec["security"] = [{required: []}]
    for path, operations in spec.get("paths", {}).items():
        for method, operation in operations.items():
            _complete(method, path, operation)
    _document_upload(spec["paths"]["/v1/documents"]["post"])
    _document_calculators(spec)
    spec["paths"].update(outside_the_resolver(local=required != "cognito"))
    _audio_upload(spec["paths"]["/v1/voice/transcribe"]["post"], query=False)
    _audio_upload(spec["paths"]["/v1/voice/query"]["post"], query=True)
    _voice_answer(spec)
    return spec


CALCULATOR_ARGUMENTS = "CalculateMedicalScoreArguments"


def _document_calculators(spec: dict[str, Any]) -> None:
    """The calculate_medical_score tool's arguments (every calculator's fields, units and ranges) as a component,
    and named from the invoke route, so a client reads them here as well as from GET /v1/tools."""
    from voiceassist.tools.medical import CALCULATE_MEDICAL_SCORE

    here = f"#/components/schemas/{CALCULATOR_ARGUMENTS}/$defs/"
    text = json.dumps(CALCULATE_MEDICAL_SCORE.definition.parameters).replace('"#/$defs/', f'"{here}')
    spec["components"]["schemas"][CALCULATOR_ARGUMENTS] = json.loads(text)
    invoke = spec.get("paths", {}).get("/v1/tools/{name}/invoke", {}).get("post")
    if invoke is not None:
        invoke["description"] = (invoke.get("description", "") + "\n\nFor `calculate_medical_score`, `arguments` "
                                 f"follows `#/components/schemas/{CALCULATOR_ARGUMENTS}`: each calculator's "
                                 "fields, their units, the other units accepted as [value, unit], and their "
                                 "plausible ranges.").strip()


SSE_EVENT = {"type": "object", "description": "one Server-Sent Event: `data` is the event's JSON",
             "properties": {"event": {"type": "string", "description": "step, token, citation, done or error"},
                            "data": {"type": "string"}, "id": {"type": "string"}}}


def outside_the_resolver(*, local: bool) -> dict[str, Any]:
    """The routes another function (or a local face) answers: MCP everywhere (the mcp Lambda behind the same API),
    and locally the streamed query (on AWS the WebSocket API streams instead)."""
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    errors = {code: {"description": ERROR_DESCRIPTIONS[code], "content": error}
              for code in ("401", "403", "413", "415", "500")}
    json_rpc = {"type": "object", "description": "a JSON-RPC 2.0 message (MCP's streamable HTTP, stateless)"}
    paths: dict[str, Any] = {"/v1/mcp": {"post": {
        "summary": "MCP over streamable HTTP (stateless, JSON replies): initialize, tools/list, tools/call",
        "operationId": "mcp_post",
        "requestBody": {"required": True, "content": {"application/json": {"schema": json_rpc}}},
        "responses": {
            "200": {"description": "The JSON-RPC reply (a result, or an error with the specification's message)",
                    "content": {"application/json": {"schema": json_rpc}}},
            "202": {"description": "A notification or a response: accepted, no body"},
            "400": {"description": "A JSON-RPC error: not JSON (-32700), not a request, an id that is not a "
                                   "string, a number or null (-32600)",
                    "content": {"application/json": {"schema": json_rpc}}},
            "406": {"description": "The Accept header must allow application/json and text/event-stream",
                    "content": {"application/json": {"schema": json_rpc}}},
            **errors}},
        "get": {"summary": "No server-initiated stream (the server is stateless): 405", "operationId": "mcp_get",
                "responses": {"405": {"description": "POST each message instead",
                                      "content": {"application/json": {"schema": json_rpc}}}}},
        "delete": {"summary": "No session to end (the server is stateless): 405", "operationId": "mcp_delete",
                   "responses": {"405": {"description": "POST each message instead",
                                         "content": {"application/json": {"schema": json_rpc}}}}}}}
    if local:
        paths["/v1/query/stream"] = {"post": {
            "summary": "Ask, and receive the run's events as Server-Sent Events (step, token, citation, done or "
                       "error); an invalid body is a 400 before the stream starts",
            "operationId": "query_stream",
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/QueryRequest"}}}},
            "responses": {"200": {"description": "event: <type> / data: <json>, until done or error",
                                  "content": {"text/event-stream": {"schema": SSE_EVENT}}},
                          "400": {"description": ERROR_DESCRIPTIONS["400"], "content": error}, **errors}}}
    return paths


def _complete(method: str, path: str, operation: dict[str, Any]) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    responses.pop("422", None)
    codes = list(COMMON) + list(EXTRA_ERRORS.get((method, path), ()))
    if "{" in path:
        codes.append("404")
    if "requestBody" in operation:
        codes.extend(("413", "415"))
    for code in codes:
        responses.setdefault(code, {"description": ERROR_DESCRIPTIONS[code], "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
    if (method, path) == ("post", "/v1/jobs/{job_id}/retry") and "200" in responses:
        responses["202"] = {**responses.pop("200"), "description": "Accepted: the job is PENDING again"}


def _document_upload(operation: dict[str, Any]) -> None:
    accepted = operation["responses"]["202"]
    operation["responses"]["200"] = {**accepted, "description": "Unchanged: this content is already indexed "
                                     "or being indexed (`unchanged: true`)"}
    operation["parameters"] = [
        {"name": name, "in": "query", "required": False, "schema": {"type": "string"},
         "description": "raw uploads only" + (": the file name (default: upload-<content hash> with the "
                                              "Content-Type's suffix)" if name == "filename" else "")}
        for name in ("filename", "title", "source_type", "specialty", "doc_key")
    ]
    content: dict[str, Any] = {"application/json": {"schema": UPLOAD_ENVELOPE}}
    for media_type in BINARY_UPLOAD_TYPES:
        content[media_type] = {"schema": {"type": "string", "format": "binary", "minLength": 1}}
    operation["requestBody"] = {"required": True, "content": content}


def _audio_upload(operation: dict[str, Any], *, query: bool) -> None:
    """A recording as the raw body (up to 4 MiB and 60 s); /v1/voice/query also takes a session and ?speak."""
    operation["requestBody"] = {"required": True, "content": {
        media_type: {"schema": {"type": "string", "format": "binary", "minLength": 1}} for media_type in AUDIO_TYPES}}
    if query:
        operation["parameters"] = [
            {"name": "session_id", "in": "query", "required": False, "schema": {"type": "string"},
             "description": "continue this session"},
            {"name": "speak", "in": "query", "required": False, "schema": {"type": "boolean"},
             "description": "add the answer read aloud (WAV) as audio_wav_base64; or send Accept: audio/wav"},
        ]
    for code in ("413", "415"):
        operation["responses"].setdefault(code, {"description": ERROR_DESCRIPTIONS[code], "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})


def _voice_answer(spec: dict[str, Any]) -> None:
    """/v1/voice/query answers JSON (VoiceQueryResponse) or, with Accept: audio/*, the answer as a WAV: the route
    returns either, so its schema is written here rather than from a return annotation."""
    from voiceassist.speech import VoiceQueryResponse

    shape = VoiceQueryResponse.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas = spec["components"]["schemas"]
    for name, schema in shape.pop("$defs", {}).items():
        schemas.setdefault(name, schema)
    schemas["VoiceQueryResponse"] = shape
    spec["paths"]["/v1/voice/query"]["post"]["responses"]["200"] = {
        "description": "The cited answer with metadata.transcript; with Accept: audio/wav, the answer read aloud",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/VoiceQueryResponse"}},
                    "audio/wav": {"schema": {"type": "string", "format": "binary"}}}}
    spec["paths"]["/v1/voice/speak"]["post"]["responses"]["200"] = {
        "description": "The text read aloud", "content": {"audio/wav": {"schema": {"type": "string",
                                                                                   "format": "binary"}}}}


def swagger_page(spec: dict[str, Any]) -> str:
    """Swagger UI for `spec`, with the UI's script and styles inlined from the Powertools package (the page
    fetches nothing from elsewhere)."""
    from importlib.resources import files

    from aws_lambda_powertools.event_handler.openapi.swagger_ui.html import generate_swagger_html

    assets = files("aws_lambda_powertools.event_handler.openapi.swagger_ui")
    return generate_swagger_html(
        json.dumps(spec).replace("</", "<\\/"), assets.joinpath("swagger-ui-bundle.min.js").read_text("utf-8"),
        assets.joinpath("swagger-ui.min.css").read_text("utf-8"), "", None)


def page_policy(page: str) -> str:
    """The Content-Security-Policy of `page` (swagger_page): its own inline script and style blocks allowed by hash
    (CSP Level 3), the UI's icons as data: images, requests to this API only (its "Try it out"), nothing else.
    Every other reply's policy, default-src 'none', blocked the inline blocks and the page showed "Loading..."."""

    def hashes(tag: str) -> str:
        blocks = re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.S)
        return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(b.encode()).digest()).decode()}'" for b in blocks)

    return (f"default-src 'none'; script-src {hashes('script')}; style-src {hashes('style')}; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'")
