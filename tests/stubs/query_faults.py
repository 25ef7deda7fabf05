"""Failures to inject into the query stack (tests/stubs/query_stack.py) for the fault matrix
(tests/integration/test_phi_matrix_faults.py): a store down or slow, a hanging PHI detector, a failing
embedder, a search index that fails mid-query.

Store outages go through the real adapters, so what reaches the pipeline is what production would raise: the
SQLite adapter on a database file that cannot be opened (sqlite3.OperationalError inside), or the DynamoDB
adapter on a client that answers every call with a throttling ClientError.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from voiceassist.errors import DependencyError
from voiceassist.models import SearchQuery

Outage = Callable[[str], Callable[..., Any]]  # a store method's name -> a stand-in that fails as the store does


class FaultyStore:
    """A store whose `failing` methods go to a store that is down; every other method to the real one."""

    def __init__(self, inner: Any, failing: Sequence[str], outage: Outage) -> None:
        self._inner = inner
        self._failing = {name: outage(name) for name in failing}
        self.calls = 0  # of the failing methods

    def __getattr__(self, name: str) -> Any:
        failing = self.__dict__.get("_failing", {})
        if name not in failing:
            return getattr(self._inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return failing[name](*args, **kwargs)

        return call


def sqlite_outage(store_class: type, unreachable_dir: Path) -> Outage:
    """The SQLite adapter on a "database file" that is a directory: sqlite3 raises OperationalError ("unable
    to open database file") as it does for a missing volume, a full disk or a lost lock."""
    unreachable_dir.mkdir(parents=True, exist_ok=True)

    def method(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return getattr(store_class(unreachable_dir), name)(*args, **kwargs)

        return call

    return method


class ThrottledDynamoDb:
    """A DynamoDB client that answers every call as a throttled (or unavailable) table does."""

    def __init__(self, code: str = "ProvisionedThroughputExceededException") -> None:
        self.code = code
        self.calls: list[str] = []

    def __getattr__(self, operation: str) -> Callable[..., Any]:
        if operation.startswith("_"):
            raise AttributeError(operation)

        def call(**_: Any) -> Any:
            self.calls.append(operation)
            error = {"Code": self.code, "Message": "Rate of requests exceeds the allowed throughput."}
            raise ClientError({"Error": error, "ResponseMetadata": {"HTTPStatusCode": 400}}, operation)

        return call


def dynamodb_outage(store_class: type, client: ThrottledDynamoDb) -> Outage:
    def method(name: str) -> Callable[..., Any]:
        return getattr(store_class("voiceassist-test", client=client), name)  # type: ignore[no-any-return]

    return method


class SlowStore:
    """Every method of the store answers after `delay_s` (a store under load); results unchanged."""

    def __init__(self, inner: Any, delay_s: float) -> None:
        self._inner = inner
        self._delay_s = delay_s
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.__dict__["_inner"], name)
        if not callable(attribute):
            return attribute

        def slow(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            time.sleep(self._delay_s)
            return attribute(*args, **kwargs)

        return slow


class HangingDetector:
    """A PHI detector that never answers until the test releases it (a stuck NLP model)."""

    def __init__(self) -> None:
        self.released = threading.Event()
        self.calls = 0

    def detect(self, text: str) -> Any:
        self.calls += 1
        self.released.wait(60)
        raise RuntimeError("released")


class FailingEmbedder:
    """The embedding port raising at query time (a corrupt model file, an out-of-memory ONNX session), quoting
    its input as careless libraries do."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        raise RuntimeError(f"ONNX session failed on {list(texts)!r}")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_inner"], name)


class PartialIndex:
    """The search cluster answers the first `answered` searches, then goes down (mid-query)."""

    def __init__(self, inner: Any, answered: int = 1) -> None:
        self._inner = inner
        self._left = answered
        self._lock = threading.Lock()
        self.failed = 0

    def search(self, query: SearchQuery) -> Any:
        with self._lock:
            answer, self._left = self._left > 0, self._left - 1
            self.failed += not answer
        if not answer:
            raise DependencyError("the search cluster could not be reached")
        return self._inner.search(query)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_inner"], name)
