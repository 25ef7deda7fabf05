"""A folder built once per test run and read by every pytest-xdist worker (make test runs one worker per core).

A session-scoped fixture runs once per worker process; for an expensive, read-only result (a synthesized cloud
assembly, an ingested corpus) the first worker builds it under a file lock and the others wait and reuse it.
Without xdist it is a plain temporary folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder `name`, filled by build(folder) once for the run (the folder does not exist when it is called).

    Under xdist every worker's base temporary folder sits in one folder per run, so that parent is shared by the
    run's workers and by no other run. A build that raised leaves no marker: the next worker tries again.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, done = base / name, base / f"{name}.built"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            build(folder)
            done.touch()
    return folder
