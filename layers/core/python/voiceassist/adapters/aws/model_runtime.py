"""The boto3 client of an in-boundary model runtime (SageMaker runtime, Bedrock runtime), made on first use."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


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


class Variants(Generic[T]):
    """An adapter's variants on other model ids (the admin configuration's in-boundary model: a SageMaker endpoint
    name, a Bedrock model id), built once per id (thread-safe), each sharing the adapter's runtime client."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._built: dict[str, T] = {}

    def get(self, model_id: str, build: Callable[[], T]) -> T:
        with self._lock:
            if model_id not in self._built:
                self._built[model_id] = build()
            return self._built[model_id]


def is_cut_stream(exc: Exception) -> bool:
    """A response stream that failed part-way: botocore's EventStream reads the raw urllib3 response, so a read
    time-out or a dropped connection arrives as urllib3's own error, not as a BotoCoreError."""
    from urllib3.exceptions import HTTPError

    return isinstance(exc, HTTPError)
