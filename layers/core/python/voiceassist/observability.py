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
