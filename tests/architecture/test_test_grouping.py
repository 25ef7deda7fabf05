"""`make test` runs on pytest-xdist workers with --dist loadgroup: the tests of a module that uses a module-scoped
fixture (a server, a browser, a runner) must run on one worker, so the fixture is built once, and a test marked slow
is handed out before the rest. When either breaks nothing fails, every such fixture is just built on both workers
(pytest 9.2 with pytest-xdist 3.8 did that silently, pytest-dev/pytest-xdist#1386) or the run ends later, so this
runs a small suite with our own hooks (tests/support/xdist_order.py) and checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.xdist_order import longest_first

REPO_ROOT = Path(__file__).resolve().parents[2]

# the project's own plugin list (pyproject.toml addopts), which `-c os.devnull` leaves out
PLUGINS_OFF = ("-p", "no:faker", "-p", "no:hypothesispytest", "-p", "no:schemathesis", "-p", "no:typeguard",
               "-p", "no:anyio")
CONFTEST = """
from tests.support.xdist_order import pytest_collection_modifyitems  # noqa: F401 - the hooks under test
from tests.support.xdist_order import pytest_configure as hand_out_in_our_order


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long")  # as pyproject.toml registers it
    hand_out_in_our_order(config)
"""
RECORD = '''
import os
from pathlib import Path

import pytest

OUT = Path(__file__).parent / "workers.txt"


def record(line):
    with OUT.open("a") as out:
        out.write(f"{line} {os.environ['PYTEST_XDIST_WORKER']}\\n")
'''
GROUPED = RECORD + '''

@pytest.fixture(scope="module")
def server():
    record("build {name}")


@pytest.mark.parametrize("n", range(6))
def test_on_the_server(server, n):
    record("test {name}")
'''
ALONE = RECORD + '''

@pytest.mark.parametrize("n", range(6))
def test_alone(n):
    record("alone")


@pytest.mark.slow
def test_long():
    record("long")
'''


def test_xdist_loadgroup_builds_a_module_fixture_once_and_hands_out_a_slow_test_first(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for name in ("a", "b"):
        (tmp_path / f"test_grouped_{name}.py").write_text(GROUPED.replace("{name}", name))
    (tmp_path / "test_alone.py").write_text(ALONE)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider",
         *PLUGINS_OFF, "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    lines = [line.split() for line in (tmp_path / "workers.txt").read_text().splitlines()]
    for name in ("a", "b"):
        builds = [line for line in lines if line[:2] == ["build", name]]
        workers = {line[-1] for line in lines if line[:2] == ["test", name]}
        assert len(builds) == 1 and len(workers) == 1, lines
    # the slow test is the first its worker ran, though pytest-xdist would hand out both groups first
    (long_worker,) = {line[-1] for line in lines if line[0] == "long"}
    assert [line for line in lines if line[-1] == long_worker][0][0] == "long", lines


class _Item:
    """What longest_first reads of a pytest item: its node id and its markers."""

    def __init__(self, nodeid: str, *, group: str | None = None, slow: bool = False) -> None:
        self.nodeid = nodeid
        self._markers = {"xdist_group": pytest.mark.xdist_group(group).mark if group else None,
                         "slow": pytest.mark.slow.mark if slow else None}

    def get_closest_marker(self, name: str) -> object:
        return self._markers.get(name)


def test_longest_first_spreads_each_files_single_tests_over_the_tail() -> None:
    items = [_Item(f"test_a.py::t{n}") for n in range(4)] + [_Item(f"test_b.py::t{n}") for n in range(2)] + [
        _Item("test_g.py::t0", group="g"), _Item("test_g.py::t1", group="g"), _Item("test_s.py::t0", slow=True)]

    longest_first(items)  # type: ignore[arg-type]

    assert [item.nodeid for item in items] == [
        "test_s.py::t0", "test_g.py::t0", "test_g.py::t1",  # the slow test, then the group in one piece
        # a's tests at 1/8, 3/8, 5/8, 7/8 of the tail and b's at 1/4 and 3/4, each file in its own order
        "test_a.py::t0", "test_b.py::t0", "test_a.py::t1", "test_a.py::t2", "test_b.py::t1", "test_a.py::t3"]
