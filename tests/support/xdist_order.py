"""How `make test` hands the tests to its pytest-xdist workers (`-n <cores + 1> --dist loadgroup`); tests/conftest.py
installs these hooks. Standard library and pytest only: tests/architecture/test_test_grouping.py runs them in a
small xdist suite of its own, where importing the project would cost each of its three processes a second.

- A test that uses a module-, class- or package-scoped fixture (a server, a browser, a runner) runs on the worker
  that runs the rest of its module, so the fixture is built once: the test is marked xdist_group(<its file>).
  Every other test goes to whichever worker is free. A test marked xdist_group keeps its own group.
- Longest first: the units marked slow (a test, or a group with a slow test), then the groups, most tests first,
  then single tests, which fill the tail. The single tests of each file are spread evenly over that tail (a test at
  position i of a file's n goes at (i + 0.5) / n of it, a file's own order kept): files whose tests mostly wait (the
  PHI matrix's deliberate delays, servers' time limits, sockets) then run beside files that compute, instead of all
  at once on every worker while the cores idle (docs/benchmarks.md, "The test suite").
  pytest-xdist would otherwise put every group of two or more tests before the single tests (its
  --loadscope-reorder, on by default, sorts the units by their number of tests): a slow single test such as a
  whole-corpus ingestion started only after every group and could end the run alone on one worker.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

GROUPING_SCOPES = {"module", "class", "package"}


def group_of(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return None
    return str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))


def mark_groups(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        if fixtures is None or item.get_closest_marker("xdist_group") is not None:
            continue
        scopes = {definitions[-1].scope for definitions in fixtures.name2fixturedefs.values() if definitions}
        if scopes & GROUPING_SCOPES:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def longest_first(items: list[pytest.Item]) -> None:
    """Sort in place: slow units, then groups by size, then single tests spread by file (a stable sort: a
    module's tests keep their order, and each group stays in one piece)."""
    groups = [group_of(item) for item in items]
    sizes = Counter(group for group in groups if group is not None)
    files = Counter(item.nodeid.split("::")[0] for item, group in zip(items, groups, strict=True) if group is None)
    seen: Counter[str] = Counter()
    spread: dict[int, float] = {}  # a single test's place in the tail: its position in its file, as a fraction
    for index, (item, group) in enumerate(zip(items, groups, strict=True)):
        if group is None:
            file = item.nodeid.split("::")[0]
            spread[index] = (seen[file] + 0.5) / files[file]
            seen[file] += 1
    slow_groups = {group for item, group in zip(items, groups, strict=True)
                   if group is not None and item.get_closest_marker("slow") is not None}

    def rank(entry: tuple[int, tuple[pytest.Item, str | None]]) -> tuple[bool, bool, int, float]:
        index, (item, group) = entry
        slow = item.get_closest_marker("slow") is not None or group in slow_groups
        return (not slow, group is None, -sizes[group] if group is not None else 0, spread.get(index, 0.0))

    items[:] = [item for _, (item, _) in sorted(enumerate(zip(items, groups, strict=True)), key=rank)]


def pytest_configure(config: pytest.Config) -> None:
    """The order longest_first gives is the order the controller hands the units out in."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.has_plugin("xdist"):
        return
    mark_groups(items)
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the order of a worker's collection is the controller's queue
        longest_first(items)
