"""Latency of the workspace tools against local real servers, and the executor's share of it; prints JSON.

    .venv/bin/python bench/workspace_tools.py [--calls 200] [--files 60]

Starts Radicale (CalDAV) with one calendar holding a daily recurring event and five single ones, WsgiDAV
(WebDAV at Nextcloud's path) sharing `files` text files in three folders, and the local Brave Search stub, all on
127.0.0.1 (the servers of the tests: tests/support/). Each tool is called `calls` times after a warm-up:
"calendar_read" get_calendar_events over one week (recurrences expanded), "file_search" search_nextcloud_files by
name (a PROPFIND walk of every folder), "web_search" one query to the stub. "direct" runs the tool's function
alone (the HTTP round trips and parsing); "executor" runs the same call through ToolExecutor.execute
(validation, roles, the PHI rule with the tests' rule-based detector, the rate limit, the time-out thread and
the audit write on SQLite), alternating with the direct calls.
"executor_overhead_share_of_p50" = (executor p50 - direct p50) / executor p50.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for the tests' servers and stubs

from pydantic import SecretStr  # noqa: E402

from tests.support.dav_servers import FILES_PREFIX, PASSWORD, USER, make_calendar, radicale, wsgidav  # noqa: E402
from tests.support.web_search_stub import KEY, WebSearchStub  # noqa: E402
from tests.support.workspace_executor import Harness  # noqa: E402
from tests.unit.tools.executor_fixtures import RuleDetector  # noqa: E402
from voiceassist.adapters.caldav.calendar import CalDavCalendar  # noqa: E402
from voiceassist.adapters.webdav.client import WebDavFiles  # noqa: E402
from voiceassist.adapters.websearch.brave import BraveSearch  # noqa: E402
from voiceassist.models import ToolCall  # noqa: E402
from voiceassist.observability import logger  # noqa: E402
from voiceassist.tools.calendar import calendar_tools  # noqa: E402
from voiceassist.tools.executor import Caller  # noqa: E402
from voiceassist.tools.files import file_tools  # noqa: E402
from voiceassist.tools.registry import Tool, ToolEnvironment  # noqa: E402
from voiceassist.tools.web_search import web_search_tools  # noqa: E402
from voiceassist.tools.workspace import DavAccount, Workspace, WorkspaceAccount  # noqa: E402

WARM_UP = 10
WEEK = {"start": "2026-03-02T00:00:00", "end": "2026-03-09T00:00:00", "timezone": "Europe/Paris"}
EVENT = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//bench//EN
BEGIN:VEVENT
UID:{uid}
DTSTART;TZID=Europe/Paris:{start}
DTEND;TZID=Europe/Paris:{end}
{rule}SUMMARY:{summary}
END:VEVENT
END:VCALENDAR
"""
CALLS = {"calendar_read": ("get_calendar_events", WEEK),
         "file_search": ("search_nextcloud_files", {"query": "handover"}),
         "web_search": ("web_search", {"query": "sepsis rapid test approval"})}


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered), 3), "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 3)}


def interleaved_ms(first: Callable[[], Any], second: Callable[[], Any], repeats: int
                   ) -> tuple[list[float], list[float]]:
    """Both functions' timings, alternating call by call, so a loaded machine's drift hits both alike."""
    timings: tuple[list[float], list[float]] = ([], [])
    for n in range(WARM_UP + repeats):
        for function, kept in zip((first, second), timings, strict=True):
            started = time.perf_counter()
            function()
            if n >= WARM_UP:
                kept.append((time.perf_counter() - started) * 1000)
    return timings


def _seed_calendar(url: str) -> None:
    calendar = CalDavCalendar(DavAccount(url=url, username=USER, password=SecretStr(PASSWORD)))._calendar
    calendar.save_event(EVENT.format(uid="round", start="20260301T090000", end="20260301T091500",
                                     rule="RRULE:FREQ=DAILY;COUNT=30\n", summary="Ward round"))
    for day in range(2, 7):
        calendar.save_event(EVENT.format(uid=f"clinic-{day}", start=f"2026030{day}T140000",
                                         end=f"2026030{day}T170000", rule="", summary=f"Clinic {day}"))


def _seed_share(share: Path, files: int) -> None:
    for n in range(files):
        folder = share / ("Ward", "Protocols", "Teaching")[n % 3]
        folder.mkdir(exist_ok=True)
        name = f"handover {n}.txt" if n % 10 == 0 else f"note {n}.txt"
        (folder / name).write_text(f"Note {n}: nothing of note.\n", encoding="utf-8")


@dataclasses.dataclass
class Servers:
    calendar_url: str
    files_url: str
    search_url: str


def _servers(stack: ExitStack, folder: Path, files: int) -> Servers:
    for name in ("radicale", "wsgidav", "share"):
        (folder / name).mkdir()
    calendar_server = stack.enter_context(radicale(folder / "radicale"))
    share = folder / "share"
    _seed_share(share, files)
    files_server = stack.enter_context(wsgidav(folder / "wsgidav", share))
    search = stack.enter_context(WebSearchStub())
    calendar_url = make_calendar(calendar_server)
    _seed_calendar(calendar_url)
    return Servers(calendar_url, f"{files_server.base_url}{FILES_PREFIX}/", search.base_url)


def _tools(servers: Servers) -> list[Tool]:
    account = WorkspaceAccount(
        calendar=DavAccount(url=servers.calendar_url, username=USER, password=SecretStr(PASSWORD)),
        files=DavAccount(url=servers.files_url, username=USER, password=SecretStr(PASSWORD)))
    workspace = Workspace(lambda _user: account, calendar=lambda a: CalDavCalendar(a, timeout_s=7),
                          files=lambda a: WebDavFiles(a, timeout_s=7))
    tools = [*calendar_tools(workspace), *file_tools(workspace, detector=RuleDetector),
             *web_search_tools(BraveSearch(KEY, base_url=servers.search_url), detector=RuleDetector)]
    # the bench measures the limiter's cost, not its refusals
    return [dataclasses.replace(t, definition=t.definition.model_copy(update={"rate_limit": 10**9})) for t in tools]


def measure(harness: Harness, tools: dict[str, Tool], calls: int) -> Iterator[tuple[str, dict[str, Any]]]:
    caller = Caller(user_id=USER, channel="api", turn_has_phi=False)
    for label, (name, arguments) in CALLS.items():
        tool = tools[name]
        params = tool.params.model_validate(arguments)
        env = ToolEnvironment(ctx=None, turn_has_phi=False, user_id=USER)  # type: ignore[arg-type]
        call = ToolCall(name=name, arguments=arguments)

        def through_executor(call: ToolCall = call) -> None:
            result = harness.executor.execute(call, caller)
            assert result.status == 200, result.content

        direct_ms, executor_ms = interleaved_ms(lambda tool=tool, params=params, env=env: tool.run(params, env),
                                                through_executor, calls)
        direct, executor = percentiles(direct_ms), percentiles(executor_ms)
        overhead = executor["p50_ms"] - direct["p50_ms"]
        yield label, {"tool": name, "calls": calls, "direct": direct, "executor": executor,
                      "overhead_p50_ms": round(overhead, 3),
                      "executor_overhead_share_of_p50": round(overhead / executor["p50_ms"], 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--files", type=int, default=60)
    args = parser.parse_args(argv)
    logger.setLevel("WARNING")
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        tools = _tools(_servers(stack, Path(folder), args.files))
        harness = Harness(Path(folder), tools)
        report = dict(measure(harness, {t.name: t for t in tools}, args.calls))
    print(json.dumps({"files": args.files, **report}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
