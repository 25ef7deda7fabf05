"""Domain errors -> HTTP, once. 4xx bodies say what was wrong and how to fix it; 5xx bodies carry a trace id,
no internals and no PHI."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from voiceassist.errors import VoiceAssistError
from voiceassist.observability import log_failure


def envelope(status: int, code: str, message: str, trace_id: str, details: Any = None) -> Response[Any]:
    body: dict[str, Any] = {"error": {"code": code, "message": message, "trace_id": trace_id}}
    if details:
        body["error"]["details"] = details
    return Response(status_code=status, content_type="application/json", body=body)


def _describe(errors: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    details = []
    for err in errors:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        if err.get("type") == "json_invalid":
            details.append({"field": "body", "problem": "the body is not valid JSON"})
        else:
            details.append({"field": where, "problem": err.get("msg", "invalid")})
    message = "; ".join(f"{d['field']}: {d['problem']}" for d in details) or "invalid request"
    return message, details


def register(app: APIGatewayRestResolver) -> None:
    def trace() -> str:
        return app.current_event.request_context.request_id or "local"

    @app.exception_handler(RequestValidationError)
    def invalid_request(exc: RequestValidationError) -> Response[Any]:
        message, details = _describe(list(exc.errors()))
        return envelope(400, "invalid_request", message, trace(), details)

    @app.exception_handler(VoiceAssistError)
    def domain_error(exc: VoiceAssistError) -> Response[Any]:
        if exc.status_code >= 500:
            log_failure("request failed", exc, code=exc.code)
            return envelope(exc.status_code, exc.code, "the request could not be completed; quote the trace id "
                            "when you report it", trace())
        return envelope(exc.status_code, exc.code, str(exc), trace())

    @app.exception_handler(Exception)
    def unexpected(exc: Exception) -> Response[Any]:
        log_failure("unexpected error", exc)
        return envelope(500, "internal_error", "an unexpected error occurred; quote the trace id when you report it",
                        trace())

    @app.not_found
    def not_found(exc: Exception) -> Response[Any]:
        event = app.current_event
        return envelope(404, "not_found", f"no route {event.http_method} {event.path}; see /v1/openapi.json",
                        trace())
