"""The executor's refusals, each with its HTTP status (mapped once in functions/api/routes/errors.py)."""

from __future__ import annotations

from voiceassist.errors import Forbidden, VoiceAssistError


class ToolForbidden(Forbidden):
    """The caller's roles may not use this tool."""


class PhiRefused(VoiceAssistError):
    """The arguments carry PHI (or could not be checked) and the tool may not receive PHI."""

    status_code = 422
    code = "phi_refused"


class RateLimited(VoiceAssistError):
    status_code = 429
    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ActionExpired(VoiceAssistError):
    """A pending action was confirmed or cancelled after its expiry."""

    status_code = 410
    code = "action_expired"


class ToolTimeout(VoiceAssistError):
    status_code = 504
    code = "tool_timeout"


class InputRefused(VoiceAssistError):
    """A string argument reads as prompt injection, a jailbreak or a request for harmful content
    (voiceassist.safety.input_screen); the message never echoes it."""

    status_code = 422
    code = "input_refused"

    def __init__(self, message: str, *, category: str) -> None:
        super().__init__(message)
        self.category = category
