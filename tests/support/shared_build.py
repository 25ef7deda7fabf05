"""A folder built once per test run and read by every pytest-xdist worker (make test runs one worker per core).

A session-scoped fixture runs once per worker process; for an expensive, read-only result (a synthesized cloud
assembly, an ingested corpus) the first worker builds it under a file lock and the others wait and reuse it.
Without xdist it is a plain temporary folder.

A build that many tests wait for can also be started in the background as soon as the tests are collected
(`start_building`): a subprocess builds it under the same lock while the workers run other tests, so no worker sits
idle waiting for it when its tests come up.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
_background: list[subprocess.Popen[bytes]] = []


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder this run's workers share: under xdist every worker's base temporary folder sits in one folder per
    run, so that parent is shared by the run's workers and by no other run."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder `name`, filled by build(folder) once for the run (the folder does not exist when it is called)."""
    return built_once_in(run_folder(tmp_path_factory), name, build)


def built_once_in(base: Path, name: str, build: Callable[[Path], object]) -> Path:
    """built_once in the run folder `base`. A build that raised leaves no marker: the next caller tries again."""
    folder, done = base / name, base / f"{name}.built"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            build(folder)
            done.touch()
    return folder


def start_building(tmp_path_factory: pytest.TempPathFactory, name: str, module: str) -> None:
    """Start `python -m module RUN_FOLDER` once for the run, in the background; the module builds `name` with
    built_once_in under the same lock, so a test that needs it waits for the build, or builds it itself if the
    background build failed (its error is then the test's; the background one is in RUN_FOLDER/name.log)."""
    base = run_folder(tmp_path_factory)
    try:
        os.close(os.open(base / f"{name}.started", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # another worker started it
    with open(base / f"{name}.log", "wb") as log:
        _background.append(subprocess.Popen([sys.executable, "-m", module, str(base)], cwd=REPO_ROOT,
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT))
