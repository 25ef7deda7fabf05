"""A pytest plugin that writes each test's CPU time (the process and the children it waited for), wall time and
start (seconds since the epoch, for a timeline across workers), one file per xdist worker, and when the worker's
collection ended, for docs/benchmarks.md ("The test suite and the set-up"):

    .venv/bin/python -m pytest -q -n 2 --dist loadgroup -p tests.support.cpuprof   # rows in $CPUPROF_DIR
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from typing import IO

import pytest

_out: IO[str] | None = None


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _opened() -> IO[str]:
    global _out
    if _out is None:
        folder = os.environ.get("CPUPROF_DIR", ".artifacts/cpuprof")
        os.makedirs(folder, exist_ok=True)
        _out = open(f"{folder}/{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.tsv", "a", buffering=1)  # noqa: SIM115
    return _out


def pytest_collection_finish() -> None:
    _opened().write(f"#collected\t{time.time():.3f}\t{_cpu():.2f}\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    out = _opened()
    if not getattr(pytest_runtest_protocol, "started", False):
        pytest_runtest_protocol.started = True  # type: ignore[attr-defined]
        out.write(f"#start_cpu\t{_cpu():.2f}\n")
    cpu, wall, start = _cpu(), time.monotonic(), time.time()
    yield
    out.write(f"{item.nodeid}\t{_cpu() - cpu:.3f}\t{time.monotonic() - wall:.3f}\t{start:.3f}\n")


def pytest_sessionfinish() -> None:
    if _out is not None:
        _out.write(f"#total_cpu\t{_cpu():.2f}\n")
