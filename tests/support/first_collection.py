"""On a virtualenv whose modules are not compiled yet (a fresh machine: the Makefile's pip installs with
--no-compile), one pytest-xdist worker collects first and the others wait for it; tests/conftest.py installs the
hook.

Python compiles a module the first time a process imports it and writes its .pyc; the workers of one run start
together and import the same ~3,000 modules in the same order, so on a fresh virtualenv each of them compiled every
module itself (a worker's collection 23 s of CPU there, 13.5 s reading the .pyc files: docs/benchmarks.md, "The test
suite"). Once the first worker has collected, the others read what it wrote. Where the modules are compiled already
(every run after the first) no worker waits.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
from collections.abc import Iterator

import pytest

from tests.support.shared_build import run_folder

# Imported while the test modules are collected and never by tests/conftest.py (which every worker imports before
# this hook runs): their .pyc files are missing only where nothing has collected the suite on this virtualenv yet.
COLLECTED_ONLY = ("moto", "spacy", "presidio_analyzer", "openai", "mcp", "aws_cdk")


def compiled(modules: tuple[str, ...] = COLLECTED_ONLY) -> bool:
    """Whether every installed one of `modules` has its .pyc (sys.pycache_prefix honoured)."""
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.cached is not None and not os.path.exists(spec.cached):
            return False
    return True


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    if not os.environ.get("PYTEST_XDIST_WORKER") or compiled():
        yield
        return
    lock_path = run_folder(session.config._tmp_path_factory) / "collection.lock"  # type: ignore[attr-defined]
    with open(lock_path, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the first worker here collects while holding it
        except BlockingIOError:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the others wait for its .pyc files
            fcntl.flock(lock, fcntl.LOCK_UN)
        yield
