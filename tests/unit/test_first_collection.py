"""tests/support/first_collection.py: on a virtualenv not compiled yet, the xdist workers after the first wait for its
collection (and read the .pyc files it wrote) instead of compiling every module themselves at the same time."""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support import first_collection


def worker_session(run: Path, name: str) -> SimpleNamespace:
    """What the hook reads of a pytest-xdist worker's session: its base temporary folder inside the run's."""
    return SimpleNamespace(config=SimpleNamespace(_tmp_path_factory=SimpleNamespace(getbasetemp=lambda: run / name)))


def test_first_collection_makes_the_other_workers_wait_until_it_has_collected(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setattr(first_collection, "compiled", lambda: False)
    first = first_collection.pytest_collection(worker_session(tmp_path, "popen-gw0"))  # type: ignore[arg-type]
    next(first)  # the first worker collects
    second_collects = threading.Event()

    def second_worker() -> None:
        second = first_collection.pytest_collection(worker_session(tmp_path, "popen-gw1"))  # type: ignore[arg-type]
        next(second)
        second_collects.set()
        next(second, None)

    thread = threading.Thread(target=second_worker, daemon=True)
    thread.start()
    assert not second_collects.wait(0.5), "the second worker collected beside the first"
    next(first, None)  # the first one's collection ends
    assert second_collects.wait(60), "the second worker still waits after the first collected"
    thread.join(60)


def test_first_collection_waits_for_nothing_where_the_modules_are_compiled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setattr(first_collection, "compiled", lambda: True)
    first = first_collection.pytest_collection(worker_session(tmp_path, "popen-gw0"))  # type: ignore[arg-type]
    second = first_collection.pytest_collection(worker_session(tmp_path, "popen-gw1"))  # type: ignore[arg-type]
    next(first)
    assert not list(tmp_path.glob("*.lock"))  # no lock taken: the second worker cannot wait on the first
    next(second)


def test_first_collection_reads_a_module_without_its_pyc_as_not_compiled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "never_imported_here.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert first_collection.compiled(("never_imported_here",)) is False
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    importlib.import_module("never_imported_here")  # compiles it and writes its .pyc
    sys.modules.pop("never_imported_here")
    assert first_collection.compiled(("never_imported_here",)) is True
    assert first_collection.compiled(("no_module_by_this_name",)) is True  # not installed: nothing to wait for
