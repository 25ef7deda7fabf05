"""EventBridge schedule -> compare each PENDING or RUNNING job with its Step Functions execution
(DescribeExecution); fail the jobs whose execution ended or is gone, and re-drive those with attempts left."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from voiceassist import service
from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    deps = dependencies()
    recovered = service.reconcile_jobs(deps, liveness=service.execution_liveness(deps), any_worker=True)
    return {"recovered": [asdict(recovery) for recovery in recovered]}
