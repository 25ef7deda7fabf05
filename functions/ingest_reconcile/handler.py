"""EventBridge schedule -> compare each PENDING or RUNNING job with its Step Functions execution
(DescribeExecution); fail the jobs whose execution ended or is gone, and re-drive those with attempts left.
Then sweep incoming/: start every upload whose "Object Created" event was lost (ingest/upload_sweep.py), so
the trigger keeps no dead-letter queue of raw keys."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from voiceassist import service
from voiceassist.composition import dependencies
from voiceassist.ingest.upload_sweep import sweep_uploads
from voiceassist.observability import logger, tracer
from voiceassist.ports import UploadListing


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False)  # the sweep's reply is hashes only; kept small anyway
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    deps = dependencies()
    recovered = service.reconcile_jobs(deps, liveness=service.execution_liveness(deps), any_worker=True)
    swept = []
    if isinstance(deps.blobs, UploadListing):  # S3; the local folder has its own watcher
        swept = sweep_uploads(deps, deps.blobs, now=datetime.now(UTC), lambda_context=context,
                              seconds_left=lambda: context.get_remaining_time_in_millis() / 1000)
    return {"recovered": [asdict(recovery) for recovery in recovered], "swept": [asdict(s) for s in swept]}
