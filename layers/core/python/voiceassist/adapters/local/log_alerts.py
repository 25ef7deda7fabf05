"""AlertPublisher for the local runtime: a warning log line (the admin page lists the ledger's alerts)."""

from __future__ import annotations

from voiceassist.observability import logger


class LogAlertPublisher:
    def publish(self, subject: str, message: str) -> None:
        logger.warning(f"ADMIN ALERT: {subject}", extra={"alert": message})
