"""An executor on SQLite stores with a rule-based PHI detector and a few tools that misbehave on purpose."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from voiceassist.adapters.local.key_file_cipher import key_file_cipher
from voiceassist.adapters.local.sqlite_audit import SqliteAuditLog
from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.adapters.local.sqlite_rate_limits import SqliteRateLimiter
from voiceassist.adapters.local.sqlite_state import SqliteKeyValueState
from voiceassist.models import PhiEntity, PhiResult, ToolCategory
from voiceassist.phi import redact
from voiceassist.tools import medical
from voiceassist.tools.actions import PendingActions
from voiceassist.tools.events import ToolEvent, ToolEvents
from voiceassist.tools.executor import ToolExecutor
from voiceassist.tools.registry import ToolEnvironment, ToolOutput, ToolRegistry, define

NAMES = re.compile(r"John Smith|MRN \d+")


class RuleDetector:
    """Flags "John Smith" and "MRN <digits>"; raises on text containing "crash" (a detector failure)."""

    def detect(self, text: str) -> PhiResult:
        if "crash" in text:
            raise RuntimeError(f"detector crashed on {text!r}")
        entities = [PhiEntity(entity_type="PERSON", start=m.start(), end=m.end(), score=0.9)
                    for m in NAMES.finditer(text)]
        return PhiResult(contains_phi=bool(entities), entities=entities, redacted_text=redact(text, entities))


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


def echo(params: Note, env: ToolEnvironment) -> ToolOutput:
    return ToolOutput(content=f"echo: {params.text}")


def slow(params: Note, env: ToolEnvironment) -> ToolOutput:
    time.sleep(0.3)  # longer than its time-out; the abandoned thread ends soon after
    return ToolOutput(content="late")


def broken(params: Note, env: ToolEnvironment) -> ToolOutput:
    raise KeyError(params.text)


TEST_TOOLS = [
    define("send_letter", "Send a letter", Note, echo, summarize=lambda p: f"send a letter saying {p.text!r}",
           requires_confirmation=True, requires_phi=True, category=ToolCategory.FILE),
    define("web_lookup", "Outside the boundary", Note, echo, requires_phi=False, category=ToolCategory.SEARCH,
           rate_limit=2),
    define("slow_tool", "Never finishes in time", Note, slow, requires_phi=True, timeout_seconds=0.05),
    define("broken_tool", "Raises", Note, broken, requires_phi=True),
    define("admin_tool", "Admins only", Note, echo, requires_phi=True, allowed_roles=["admin"]),
]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class Harness:
    executor: ToolExecutor
    audit: SqliteAuditLog
    clock: Clock
    events: list[ToolEvent]


def build(tmp_path: Path, *, ctx: Any = None) -> Harness:
    database = SqliteDatabase(tmp_path / "tools.sqlite3")
    clock = Clock()
    audit = SqliteAuditLog(database)
    events = ToolEvents()
    seen: list[ToolEvent] = []
    events.subscribe(seen.append)
    registry = ToolRegistry([medical.CALCULATE_MEDICAL_SCORE, *TEST_TOOLS])
    cipher = key_file_cipher(tmp_path)
    executor = ToolExecutor(registry, env=ToolEnvironment(ctx=cast(Any, ctx)), detector=RuleDetector(),
                            limiter=SqliteRateLimiter(database, clock=clock),
                            actions=PendingActions(SqliteKeyValueState(database, clock=clock), cipher=lambda: cipher,
                                                   clock=clock),
                            audit=audit, events=events)
    return Harness(executor=executor, audit=audit, clock=clock, events=seen)
