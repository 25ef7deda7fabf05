"""The boto3 client of an in-boundary model runtime (SageMaker runtime, Bedrock runtime), made on first use."""

from __future__ import annotations

import threading
from typing import Any


class ModelRuntimeClient:
    """One client per adapter, built once (thread-safe) unless one is given (tests: botocore's Stubber).

    One attempt per call (retries belong to routing), and a read time-out of the model's budget: a slow model
    must not hold the answer past it."""

    def __init__(self, service: str, *, client: Any = None, region_name: str | None, timeout_s: float) -> None:
        self.service = service
        self.region_name = region_name
        self.timeout_s = timeout_s
        self._client = client
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3
                from botocore.config import Config

                self._client = boto3.client(
                    self.service, region_name=self.region_name,
                    config=Config(read_timeout=self.timeout_s, connect_timeout=min(self.timeout_s, 5.0),
                                  retries={"total_max_attempts": 1}))
            return self._client


def is_cut_stream(exc: Exception) -> bool:
    """A response stream that failed part-way: botocore's EventStream reads the raw urllib3 response, so a read
    time-out or a dropped connection arrives as urllib3's own error, not as a BotoCoreError."""
    from urllib3.exceptions import HTTPError

    return isinstance(exc, HTTPError)
