"""Who is on the other end of a WebSocket, and how the client presents its Cognito token.

API Gateway WebSocket APIs take no Cognito authorizer, so `$connect` has a Lambda REQUEST authorizer that
verifies the token through a `TokenVerifier` (the Cognito adapter: adapters/cognito_tokens.py). Browsers
cannot set an Authorization header on a WebSocket, so the client offers two subprotocols in
`Sec-WebSocket-Protocol`, `voiceassist` and its token; the `$connect` reply accepts `voiceassist` (a browser
closes a connection whose offered protocol the server does not accept). Tokens never appear in URLs, where
access logs and proxies would keep them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from voiceassist.errors import VoiceAssistError

APP_SUBPROTOCOL = "voiceassist"


class TokenRejected(VoiceAssistError):
    """The token does not prove a user of this pool and client; `reason` is a fixed phrase, safe to log."""

    status_code = 401
    code = "unauthenticated"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class AuthenticatedUser:
    user_id: str  # the token's `sub`: stable for the user's life in the pool, never reassigned
    username: str | None
    token_use: str  # "id" or "access"


class TokenVerifier(Protocol):
    def verify(self, token: str | None) -> AuthenticatedUser:
        """The user the token proves; raises TokenRejected otherwise."""
        ...


def offered_subprotocols(header: str | None) -> list[str]:
    """The Sec-WebSocket-Protocol header as a list (comma-separated tokens)."""
    return [part.strip() for part in (header or "").split(",") if part.strip()]


def token_from_subprotocols(header: str | None) -> str | None:
    """The client's token: the one offered subprotocol besides `voiceassist` (None unless exactly one)."""
    candidates = [p for p in offered_subprotocols(header) if p != APP_SUBPROTOCOL]
    return candidates[0] if len(candidates) == 1 else None


def accepted_subprotocol(header: str | None) -> str | None:
    """The subprotocol the `$connect` reply echoes, when the client offered ours."""
    return APP_SUBPROTOCOL if APP_SUBPROTOCOL in offered_subprotocols(header) else None


def header_value(headers: dict[str, str] | None, name: str) -> str | None:
    """A request header by case-insensitive name (clients and proxies differ in case)."""
    wanted = name.lower()
    return next((value for key, value in (headers or {}).items() if key.lower() == wanted), None)
