"""Domain errors -> HTTP, once. 4xx bodies say what was wrong and how to fix it; 5xx bodies carry a trace id,
no internals and no PHI."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)

from routes.input_policy import content_type_of, is_json_type
from routes.route_methods import allowed_methods
from voiceassist.errors import NOT_ISSUED, Unavailable, VoiceAssistError, field_path, quoted_id
from voiceassist.observability import log_failure


def envelope(status: int, code: str, message: str, trace_id: str, details: Any = None,
             retry_after: int | None = None, param: str | None = None) -> Response[Any]:
    # `type` repeats the code where OpenAI's error bodies put it (its SDKs and the local server read it there)
    body: dict[str, Any] = {"error": {"code": code, "type": code, "message": message, "trace_id": trace_id}}
    if param is not None:  # the request field at fault, where OpenAI's error bodies put it
        body["error"]["param"] = param
    if details:
        body["error"]["details"] = details
    headers = None
    if retry_after is not None:
        body["error"]["retry_after"] = retry_after
        headers = {"Retry-After": str(retry_after)}
    return Response(status_code=status, content_type="application/json", body=body, headers=headers)


def _outage(exc: Exception) -> Unavailable | None:
    """An AWS store that is down, throttled or unreachable is a 503 with Retry-After, not a 500."""
    try:
        from botocore.exceptions import ClientError, ConnectionError, HTTPClientError
    except ImportError:  # pragma: no cover - botocore ships with every runtime
        return None
    if isinstance(exc, ConnectionError | HTTPClientError):
        return Unavailable("a backing service could not be reached; try again")
    if isinstance(exc, ClientError) and exc.response.get("Error", {}).get("Code") in THROTTLED:
        return Unavailable("a backing service is throttling requests; try again")
    return None


def _raised_while_parsing_the_body(exc: BaseException) -> bool:
    """Powertools' request validation parses the body before any route code runs; what fails there is the
    request's fault (a malformed Content-Type), not ours."""
    frame = exc.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_filename.endswith(VALIDATION_MODULE):
            return True
        frame = frame.tb_next
    return False


VALIDATION_MODULE = "middlewares/openapi_validation.py"
THROTTLED = {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
             "ServiceUnavailable", "InternalServerError", "TransactionInProgressException"}


def shown_path(path: str) -> str:
    """A path as a message may quote it: each segment shaped like a route's or an id this API issues, else none
    (a path can carry free text, a patient's name, or thousands of characters)."""
    segments = path.strip("/").split("/")
    if len(path) <= 200 and all(quoted_id(segment) != NOT_ISSUED for segment in segments):
        return path
    return "(that path)"


def _describe(errors: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    details = []
    for err in errors:
        where = field_path(err.get("loc", ())) or "body"
        if err.get("type") == "json_invalid":
            details.append({"field": "body", "problem": "the body is not valid JSON"})
        else:
            # our validators' messages, without the "Value error, " pydantic puts before them
            details.append({"field": where, "problem": str(err.get("msg", "invalid")).removeprefix("Value error, ")})
    message = "; ".join(f"{d['field']}: {d['problem']}" for d in details) or "invalid request"
    return message, details


def register(app: APIGatewayRestResolver) -> None:
    def trace() -> str:
        return app.current_event.request_context.request_id or "local"

    def unsupported_type() -> Response[Any]:
        media_type = content_type_of(app.current_event.headers)
        return envelope(415, "unsupported_media_type", f"{app.current_event.path} takes JSON: send the body with "
                        f"Content-Type: application/json (got {media_type})", trace())

    @app.exception_handler(RequestUnsupportedContentType)
    def unsupported_content_type(exc: RequestUnsupportedContentType) -> Response[Any]:
        return unsupported_type()

    @app.exception_handler(RequestValidationError)
    def invalid_request(exc: RequestValidationError) -> Response[Any]:
        if not is_json_type(content_type_of(app.current_event.headers)):  # a form body on a JSON route
            return unsupported_type()
        message, details = _describe(list(exc.errors()))
        return envelope(400, "invalid_request", message, trace(), details)

    @app.exception_handler(VoiceAssistError)
    def domain_error(exc: VoiceAssistError) -> Response[Any]:
        if isinstance(exc, Unavailable):
            if exc.status_code >= 500:
                log_failure("service unavailable", exc, code=exc.code)
            return envelope(exc.status_code, exc.code, str(exc), trace(), retry_after=exc.retry_after)
        if exc.status_code >= 500:
            log_failure("request failed", exc, code=exc.code)
            return envelope(exc.status_code, exc.code, "the request could not be completed; quote the trace id "
                            "when you report it", trace())
        return envelope(exc.status_code, exc.code, str(exc), trace(), getattr(exc, "details", None),
                        param=getattr(exc, "param", None))

    @app.exception_handler(Exception)
    def unexpected(exc: Exception) -> Response[Any]:
        outage = _outage(exc)
        if outage is not None:
            return domain_error(outage)
        if isinstance(exc, RecursionError):  # a nesting the input policy did not see (a route's own parsing)
            return envelope(400, "invalid_request", "the request nests too deeply; send a flatter document", trace())
        if _raised_while_parsing_the_body(exc):  # e.g. multipart/form-data without a boundary
            if not is_json_type(content_type_of(app.current_event.headers)):
                return unsupported_type()
            return envelope(400, "invalid_request", "the body could not be read as JSON", trace())
        log_failure("unexpected error", exc)
        return envelope(500, "internal_error", "an unexpected error occurred; quote the trace id when you report it",
                        trace())

    @app.not_found
    def not_found(exc: Exception) -> Response[Any]:
        event = app.current_event
        allowed = allowed_methods(app, event.path)
        if allowed and event.http_method == "OPTIONS":
            methods = [*allowed, *(["HEAD"] if "GET" in allowed else []), "OPTIONS"]
            return Response(status_code=204, body="", headers={"Allow": ", ".join(methods)})
        if event.http_method in allowed:  # a route of this shape takes the method: the router refused a parameter
            return envelope(404, "not_found", f"no {event.http_method} {shown_path(event.path)}: a path parameter "
                            "holds characters no id of this API has; see /v1/openapi.json", trace())
        if allowed:
            response = envelope(405, "method_not_allowed", f"{shown_path(event.path)} takes {', '.join(allowed)}, "
                                f"not {event.http_method}; see /v1/openapi.json", trace())
            response.headers["Allow"] = ", ".join(allowed)
            return response
        return envelope(404, "not_found", f"no route {event.http_method} {shown_path(event.path)}; see "
                        "/v1/openapi.json", trace())
