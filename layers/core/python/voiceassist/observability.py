"""Logger, tracer and metrics for every function and the local server.

Handlers import these; the domain imports them too, never the handlers. Nothing here logs raw user text:
callers pass redacted text and hashes only (tests check the captured logs for PHI).
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "voiceassist"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace="VoiceAssist", service=SERVICE)


def log_failure(message: str, exc: BaseException, **extra: object) -> None:
    """Log an exception by type and stack frames only: exception messages can echo user text (PHI)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}:{code.co_name}")
        tb = tb.tb_next
    logger.error(message, extra={"error_type": type(exc).__name__, "frames": frames[-12:], **extra})
