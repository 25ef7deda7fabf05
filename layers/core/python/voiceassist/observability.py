"""Logger, tracer and metrics for every function and the local server.

Handlers import these; the domain imports them too, never the handlers. Nothing here logs raw user text:
callers pass redacted text and hashes only (tests check the captured logs for PHI).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.base import SingleMetric

from voiceassist.constants.environment import (  # noqa: F401 - the metrics the alarms in infra watch
    METRIC_CIRCUIT_BREAKER_OPENED,
    METRIC_PHI_DETECTOR_ERRORS,
    METRICS_NAMESPACE,
    SERVICE,
)

# Logs go to stderr: Lambda sends both streams to CloudWatch, and locally stdout stays free for the JSON a CLI
# or benchmark prints (on Lambda, EMF metric lines go to stdout, where CloudWatch expects them).
logger = Logger(service=SERVICE, logger_handler=logging.StreamHandler(sys.stderr))
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace=METRICS_NAMESPACE, service=SERVICE)

# Where count() writes its EMF lines: stdout, read by Lambda's CloudWatch agent. The local runtime sends them to
# stderr (send_metric_lines_to_stderr), because its stdout is a CLI's JSON answer or the MCP stdio channel. The
# stream is looked up at each call, so a replaced sys.stderr (a test's capture) is never kept.
_metric_lines_to_stderr = False


def send_metric_lines_to_stderr(on: bool = True) -> None:
    """Write count()'s EMF lines to stderr (True) or to stdout, as on Lambda (False)."""
    global _metric_lines_to_stderr
    _metric_lines_to_stderr = on


def count(metric: str) -> None:
    """Emit one count at once (an EMF line CloudWatch turns into a metric), dimensioned by service."""
    one = SingleMetric(namespace=METRICS_NAMESPACE)
    one.add_metric(name=metric, unit=MetricUnit.Count, value=1)
    one.add_dimension(name="service", value=SERVICE)
    line = json.dumps(one.serialize_metric_set(), separators=(",", ":"))
    print(line, file=sys.stderr if _metric_lines_to_stderr else sys.stdout)


def log_failure(message: str, exc: BaseException, **extra: object) -> None:
    """Log an exception by type and stack frames only: exception messages can echo user text (PHI)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}:{code.co_name}")
        tb = tb.tb_next
    logger.error(message, extra={"error_type": type(exc).__name__, "frames": frames[-12:], **extra})


# Listeners to the wall-clock span of every query stage run in this process (name, time.perf_counter() at its start
# and end): bench/query.py counts as orchestration only the time no stage covers, so work that runs beside the
# steps (the PHI detection in its worker process, the search read ahead) is a stage's time, not the interpreter's.
# None is registered in Lambda or the server: a stage then costs one empty-list check.
StageListener = Callable[[str, float, float], None]
_stage_listeners: list[StageListener] = []


def listen_to_stages(listener: StageListener | None) -> None:
    """Send every stage span to `listener` (None: to nobody)."""
    _stage_listeners[:] = [] if listener is None else [listener]


def stage_span(stage: str, started: float, ended: float) -> None:
    """Tell the listener that `stage` ran from `started` to `ended` (time.perf_counter(), this process)."""
    for listener in _stage_listeners:
        listener(stage, started, ended)
