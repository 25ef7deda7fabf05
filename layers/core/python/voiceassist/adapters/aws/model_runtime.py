"""The boto3 client of an in-boundary model runtime (SageMaker runtime, Bedrock runtime)."""

from __future__ import annotations

from typing import Any


def model_runtime_client(service: str, *, region_name: str | None, timeout_s: float) -> Any:
    """One attempt per call (retries belong to routing), and a read time-out of the model's budget: a slow model
    must not hold the answer past it."""
    import boto3
    from botocore.config import Config

    return boto3.client(service, region_name=region_name,
                        config=Config(read_timeout=timeout_s, connect_timeout=min(timeout_s, 5.0),
                                      retries={"total_max_attempts": 1}))
