"""Where a pending action is sealed on AWS (tools/actions.py): the tools that need confirmation are the workspace
tools, so every function that runs them ships cryptography (the auth layer) and may use the environment key
through its state table grant; query_tools never registers them, so it needs neither (3.5 MB of margin)."""

from __future__ import annotations

from typing import Any, cast

from voiceassist.constants.functions import FUNCTIONS_BY_NAME, TOOL_FUNCTIONS, TOOL_RUNNER, Access, carries_auth_layer
from voiceassist.tools.calendar import calendar_tools
from voiceassist.tools.catalogue import default_registry
from voiceassist.tools.files import file_tools


def test_only_the_workspace_tools_need_confirmation() -> None:
    workspace: Any = object()  # only the tools' definitions are read
    tools = [*calendar_tools(workspace), *file_tools(workspace, ingest=None, detector=cast(Any, None))]
    confirmed = {t.definition.name for t in tools if t.definition.requires_confirmation}
    assert confirmed == {"create_calendar_event", "update_calendar_event", "delete_calendar_event",
                         "add_nextcloud_file_to_knowledge_base"}
    assert [d.name for d in default_registry([]).definitions() if d.requires_confirmation] == []


def test_every_function_that_runs_them_can_seal_and_open_a_pending_action() -> None:
    runners = [name for name in TOOL_FUNCTIONS if FUNCTIONS_BY_NAME[name].runs_workspace_tools]
    assert sorted(runners) == ["api", "mcp"]
    for name in runners:
        spec = FUNCTIONS_BY_NAME[name]
        assert carries_auth_layer(spec) and Access.STATE_WRITE in spec.access, name
    assert not FUNCTIONS_BY_NAME[TOOL_RUNNER].runs_workspace_tools
    assert not carries_auth_layer(FUNCTIONS_BY_NAME[TOOL_RUNNER])
