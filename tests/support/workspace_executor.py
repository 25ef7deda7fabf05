"""An executor with the workspace tools on SQLite stores and the rule-based PHI detector of the unit tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from tests.unit.tools.executor_fixtures import Clock, RuleDetector
from voiceassist.adapters.local.key_file_cipher import key_file_cipher
from voiceassist.adapters.local.sqlite_audit import SqliteAuditLog
from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.adapters.local.sqlite_rate_limits import SqliteRateLimiter
from voiceassist.adapters.local.sqlite_state import SqliteKeyValueState
from voiceassist.models import ToolCall, ToolResult
from voiceassist.tools.actions import PendingActions
from voiceassist.tools.executor import Caller, ToolExecutor
from voiceassist.tools.registry import Tool, ToolEnvironment, ToolRegistry

DOCTOR = Caller(user_id="doc", channel="api")


class Harness:
    def __init__(self, tmp_path: Path, tools: Iterable[Tool], *, ctx: Any = None) -> None:
        database = SqliteDatabase(tmp_path / "tools.sqlite3")
        self.clock = Clock()
        self.audit = SqliteAuditLog(database)
        cipher = key_file_cipher(tmp_path)
        self.executor = ToolExecutor(
            ToolRegistry(tools), env=ToolEnvironment(ctx=cast(Any, ctx)), detector=RuleDetector(),
            limiter=SqliteRateLimiter(database, clock=self.clock),
            actions=PendingActions(SqliteKeyValueState(database, clock=self.clock), cipher=lambda: cipher,
                                   clock=self.clock),
            audit=self.audit)

    def call(self, name: str, caller: Caller = DOCTOR, **arguments: Any) -> ToolResult:
        return self.executor.execute(ToolCall(name=name, arguments=arguments), caller)

    def confirmed(self, name: str, caller: Caller = DOCTOR, **arguments: Any) -> ToolResult:
        """Propose the call, check it waits for confirmation, and confirm it."""
        proposed = self.call(name, caller, **arguments)
        assert proposed.status == 202, proposed.content
        assert proposed.pending_action is not None
        return self.executor.confirm(proposed.pending_action.action_id, caller)
