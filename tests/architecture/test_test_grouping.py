"""`make test` runs on pytest-xdist workers with --dist loadgroup: the tests of a module that uses a module-scoped
fixture (a server, a browser, a runner) must run on one worker, so the fixture is built once. When the grouping
breaks nothing fails, every such fixture is just built on both workers (pytest 9.2 with pytest-xdist 3.8 did that
silently, pytest-dev/pytest-xdist#1386), so this runs a small suite with our own grouping hook and checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

# the project's own plugin list (pyproject.toml addopts), which `-c os.devnull` leaves out
PLUGINS_OFF = ("-p", "no:faker", "-p", "no:hypothesispytest", "-p", "no:schemathesis", "-p", "no:typeguard",
               "-p", "no:anyio")
CONFTEST = "from tests.conftest import pytest_collection_modifyitems  # noqa: F401 - the hook under test\n"
MODULE = '''
import os
from pathlib import Path

import pytest

OUT = Path(__file__).parent / "workers.txt"


@pytest.fixture(scope="module")
def server():
    with OUT.open("a") as out:
        out.write(f"build {os.environ['PYTEST_XDIST_WORKER']}\\n")


@pytest.mark.parametrize("n", range(6))
def test_on_the_server(server, n):
    with OUT.open("a") as out:
        out.write(f"test {os.environ['PYTEST_XDIST_WORKER']}\\n")


@pytest.mark.parametrize("n", range(6))
def test_alone(n):
    pass
'''


def test_xdist_loadgroup_builds_a_module_fixture_once_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_grouped.py").write_text(MODULE)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider",
         *PLUGINS_OFF, "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    lines = (tmp_path / "workers.txt").read_text().splitlines()
    builds = [line for line in lines if line.startswith("build")]
    workers = {line.split()[1] for line in lines if line.startswith("test")}
    assert len(builds) == 1 and len(workers) == 1, lines
