"""Logger, tracer and metrics for every function and the local server.

Handlers import these; the domain imports them too, never the handlers. Nothing here logs raw user text:
callers pass redacted text and hashes only (tests check the captured logs for PHI).
"""

from __future__ import annotations

import logging
import sys

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit, single_metric

from voiceassist.constants.environment import (  # noqa: F401 - the metrics the alarms in infra watch
    METRIC_CIRCUIT_BREAKER_OPENED,
    METRIC_PHI_DETECTOR_ERRORS,
    METRICS_NAMESPACE,
    SERVICE,
)

# Logs go to stderr: Lambda sends both streams to CloudWatch, and locally stdout stays free for the JSON a CLI
# or benchmark prints (EMF metric lines still go to stdout, where CloudWatch expects them).
logger = Logger(service=SERVICE, logger_handler=logging.StreamHandler(sys.stderr))
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace=METRICS_NAMESPACE, service=SERVICE)


def count(metric: str) -> None:
    """Emit one count at once (an EMF line CloudWatch turns into a metric), dimensioned by service."""
    with single_metric(name=metric, unit=MetricUnit.Count, value=1, namespace=METRICS_NAMESPACE) as one:
        one.add_dimension(name="service", value=SERVICE)


def log_failure(message: str, exc: BaseException, **extra: object) -> None:
    """Log an exception by type and stack frames only: exception messages can echo user text (PHI)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}:{code.co_name}")
        tb = tb.tb_next
    logger.error(message, extra={"error_type": type(exc).__name__, "frames": frames[-12:], **extra})
