"""The domain's error hierarchy. HTTP mapping happens once, in the API function."""

from __future__ import annotations

import re
from collections.abc import Iterable

# The shape of the ids this API issues (ses_<hex>, doc_<hex>_v1, a chunk's doc_<hex>_v1:00003, job_<hex>) and of the
# names it knows (a model, a calculator): a message may quote a value of that shape. Anything else a client sends
# as an id (free text, perhaps a patient's name, or 5,000 characters) is never echoed in a reply or a log line.
_ID_SHAPE = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
NOT_ISSUED = "(not an id this API issued)"
# A field name as a validation error may show it: the route's own, or a key a client misspelt ("qeury"). Any other key
# a client sent (free text, perhaps a patient's name, or 100,000 characters) is named by this instead.
_FIELD_SHAPE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
UNSHOWN_FIELD = "(a field of that name)"


def quoted_id(value: object) -> str:
    """The id quoted for a message when it is shaped like one this API issues; else NOT_ISSUED."""
    text = str(value)
    return repr(text) if _ID_SHAPE.fullmatch(text) else NOT_ISSUED


def field_path(loc: Iterable[object]) -> str:
    """A validation error's location ("filters.specialty", "messages.0.role") as a message may show it: positions,
    and names shaped like a field's; any other name is UNSHOWN_FIELD. "body" (the whole body's name) is left out."""
    return ".".join(str(part) if isinstance(part, int) or _FIELD_SHAPE.fullmatch(str(part)) else UNSHOWN_FIELD
                    for part in loc if part != "body")


def quoted_name(value: object) -> str:
    """A name a client gave (a model) quoted when shaped like one (quoted_id's shape), else "of that name"."""
    return quoted_id(value) if quoted_id(value) != NOT_ISSUED else "of that name"


class VoiceAssistError(Exception):
    """Base of every error the domain raises on purpose."""

    status_code = 500
    code = "internal_error"


class InvalidInput(VoiceAssistError):
    """The caller sent something we cannot use; the message says what and how to fix it."""

    status_code = 400
    code = "invalid_input"


class InvalidRequest(InvalidInput):
    """A body that does not match its route's schema: the API's 400 for a validation error (routes/errors.py), with
    `details` listing each field and its problem; the local server's own routes raise it for the same body."""

    code = "invalid_request"

    def __init__(self, message: str, details: list[dict[str, str]]) -> None:
        super().__init__(message)
        self.details = details


class UnsupportedParameter(InvalidInput):
    """A request option this API cannot honour; refused (400) rather than accepted and ignored. `param` names it,
    as OpenAI's error bodies do."""

    code = "unsupported_parameter"

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param


class InvalidParameter(InvalidInput):
    """A request option whose value is outside what it takes (temperature 5, OpenAI's 0-2): 400 with `param`
    naming it, as OpenAI's error bodies do."""

    code = "invalid_value"

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param


class UnsupportedMediaType(InvalidInput):
    status_code = 415
    code = "unsupported_media_type"


class PayloadTooLarge(InvalidInput):
    status_code = 413
    code = "payload_too_large"


class Forbidden(VoiceAssistError):
    """The caller is known but its role may not do this (a clinician changing the knowledge base)."""

    status_code = 403
    code = "forbidden"


class NotFound(VoiceAssistError):
    status_code = 404
    code = "not_found"


class Conflict(VoiceAssistError):
    """A conditional write lost a race, or the item already exists."""

    status_code = 409
    code = "conflict"


class InvalidTransition(Conflict):
    code = "invalid_transition"


class ExtractionError(VoiceAssistError):
    """A document could not be read; `reason` is what an operator sees on the FAILED job."""

    code = "extraction_failed"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DependencyError(VoiceAssistError):
    """An outside system (model endpoint, search cluster, source) failed or timed out."""

    status_code = 502
    code = "dependency_failed"


class ModelUnavailable(DependencyError):
    code = "model_unavailable"


class SourceUnavailable(DependencyError):
    """An external search source (PubMed, web search) failed, timed out or used up its retries.

    The query goes on without that source (degraded). The message names the source, the stage and the HTTP
    status or failure kind, never the query text or a credential.
    """

    code = "source_unavailable"


class PhiBoundaryViolation(VoiceAssistError):
    """Text carrying PHI was about to leave the boundary; the egress guard stopped it."""

    status_code = 500
    code = "phi_boundary"


class Unavailable(VoiceAssistError):
    """Temporarily unable to serve: the caller should try again after `retry_after` seconds."""

    status_code = 503
    code = "unavailable"

    def __init__(self, message: str, *, retry_after: int = 5) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StoreUnavailable(Unavailable):
    """A store (SQLite file, DynamoDB table) could not be read or written: locked, full, gone or throttled."""

    code = "store_unavailable"


class Overloaded(Unavailable):
    """A bounded queue is full (the ingestion backlog): try again later."""

    status_code = 429
    code = "too_many_requests"


class DependencyTimeout(Unavailable):
    """A step did not finish within its time limit (the PHI detection's, in the query pipeline): nothing was
    done on its behalf, and trying again may succeed."""

    status_code = 504
    code = "timed_out"
