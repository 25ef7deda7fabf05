"""An ingestion job's metrics, recorded when it ends: completed (with its chunks: the throughput) or failed (by
reason). The reason dimension is the failed stage's error class (ExtractionError, States.Timeout, ...), never
the reason's sentence: that can quote a file name."""

from __future__ import annotations

import re

from voiceassist.constants import metrics as names
from voiceassist.models import IndexingJob, utc_now
from voiceassist.telemetry.points import MetricPoint

_ERROR_CLASS = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,63}")  # a Python exception or a States.* error name
ABANDONED = "DeletedWhileIndexing"  # Finalize found its version deleted meanwhile (stages._abandon)


def completed_points(job: IndexingJob) -> list[MetricPoint]:
    return [MetricPoint(names.INGESTION_JOBS, 1, {"outcome": "completed"}),
            MetricPoint(names.INGESTION_CHUNKS, job.chunks_total),
            MetricPoint(names.INGESTION_DURATION, _duration_ms(job))]


def failed_points(job: IndexingJob, error_class: str | None) -> list[MetricPoint]:
    reason = error_class if error_class and _ERROR_CLASS.fullmatch(error_class) else names.UNKNOWN
    return [MetricPoint(names.INGESTION_JOBS, 1, {"outcome": "failed"}),
            MetricPoint(names.INGESTION_FAILURES, 1, {"reason": reason}),
            MetricPoint(names.INGESTION_DURATION, _duration_ms(job))]


def _duration_ms(job: IndexingJob) -> float:
    started = job.started_at or job.created_at
    return round(max((utc_now() - started).total_seconds(), 0.0) * 1000, 1)
