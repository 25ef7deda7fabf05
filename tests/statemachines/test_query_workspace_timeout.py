"""A slow workspace server in the query's tool loop (issue 19, "Limits"): the real query.asl.json and handlers,
the real calendar tool against a server that accepts connections and never answers. The model reads a
time-out (or the server failure) as a tool error, the clinician gets a note in the answer's warnings, and the
query finishes: it never hangs."""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from tests.statemachines.test_query_tool_loop import QUESTION, USER, ToolScriptModel, ask, calls, text
from voiceassist.adapters.caldav.calendar import CalDavCalendar
from voiceassist.composition import Dependencies
from voiceassist.models import QueryRequest, ToolCall, ToolResult
from voiceassist.query.state import QueryState, response_of
from voiceassist.query.tool_loop import FAILURE_NOTE, TIMEOUT_NOTE, absorb_results
from voiceassist.tools.calendar import calendar_tools
from voiceassist.tools.workspace import DavAccount, Workspace, WorkspaceAccount

WEEK = {"start": "2026-03-02T00:00:00", "end": "2026-03-09T00:00:00", "timezone": "Europe/Paris"}


class SilentServer:
    """Accepts every connection and never sends a byte (a CalDAV server that hangs)."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.held: list[socket.socket] = []
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/doc/work/"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:  # closed
                return
            self.held.append(connection)

    def reached(self, wait_s: float = 10.0) -> bool:
        """Whether a client connected (the accepting thread may run late on a busy machine: it is waited for)."""
        deadline = time.monotonic() + wait_s
        while not self.held and time.monotonic() < deadline:
            time.sleep(0.05)
        return bool(self.held)

    def close(self) -> None:
        self.socket.close()
        for connection in self.held:
            connection.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    # The CalDAV client imported before the clock starts: its first import, inside the tool's call, could take the
    # whole time-out on a busy machine, and the tool then timed out before it reached the server
    import caldav  # noqa: F401

    server = SilentServer()
    yield server
    server.close()


def _register_calendar(deps: Dependencies, url: str, *, client_timeout_s: float, tool_timeout_s: float) -> None:
    account = WorkspaceAccount(calendar=DavAccount(url=url, username="doc", password=SecretStr("secret")))
    workspace = Workspace(lambda _user: account, calendar=lambda a: CalDavCalendar(a, timeout_s=client_timeout_s),
                          files=lambda _a: None)  # type: ignore[arg-type,return-value]
    for tool in calendar_tools(workspace):
        definition = tool.definition.model_copy(update={"timeout_seconds": tool_timeout_s})
        deps.tool_registry.register(dataclasses.replace(tool, definition=definition))


@pytest.fixture
def deps(local_deps: Dependencies, runner) -> Dependencies:  # type: ignore[no-untyped-def]
    local_deps.pipelines = runner  # type: ignore[misc]
    return local_deps


def _model() -> ToolScriptModel:
    return ToolScriptModel("llama-local", in_boundary=True, script=[
        calls(ToolCall(name="get_calendar_events", arguments=WEEK)), text("Your calendar could not be read.")])


def test_a_server_that_never_answers_times_out_and_the_answer_says_so(deps: Dependencies,
                                                                      silent: SilentServer) -> None:
    # Given a calendar server that accepts the connection and never answers, and a client that would wait 5 s
    _register_calendar(deps, silent.url, client_timeout_s=5, tool_timeout_s=2)
    local = _model()

    # When the model calls the calendar tool in the query's tool loop
    response = ask(deps, QUESTION, local=local)

    # Then the executor stops the call at the tool's time-out, the model reads it as a tool error, and the
    # clinician's answer carries the note
    assert silent.reached(), "the tool reached the silent server"
    assert "did not finish within 2 s" in local.tool_replies(1)[0]
    assert response.answer == "Your calendar could not be read."
    assert TIMEOUT_NOTE.format(name="get_calendar_events") in response.metadata.warnings
    assert [(r.tool, r.tool_status) for r in deps.audit.list(user_id=USER) if r.tool] == [("get_calendar_events", 504)]


def test_the_clients_own_deadline_is_a_server_failure_note(deps: Dependencies, silent: SilentServer) -> None:
    # Given the client's deadline shorter than the tool's time-out (as composition/workspace.py sets it)
    _register_calendar(deps, silent.url, client_timeout_s=0.3, tool_timeout_s=5)
    local = _model()

    response = ask(deps, QUESTION, local=local)

    assert "(ReadTimeout)" in local.tool_replies(1)[0] and "workspace_unavailable" not in response.answer
    assert FAILURE_NOTE.format(name="get_calendar_events") in response.metadata.warnings


def _state() -> QueryState:
    return QueryState(user_id=USER, request=QueryRequest(query=QUESTION))


def test_the_maps_backstop_time_out_leaves_the_same_note() -> None:
    # Given the Map's Catch of a task that ran past its TimeoutSecondsPath
    state = _state()
    state.tool_results = [{"call": {"call_id": "call_0", "name": "get_calendar_events", "arguments": WEEK,
                                    "timeout_seconds": 10}, "error": "States.Timeout"}]

    absorb_results(state)

    assert state.tool_history[0].result.status == 504
    assert response_of(state).metadata.warnings == [TIMEOUT_NOTE.format(name="get_calendar_events")]


@pytest.mark.parametrize(("status", "error", "notes"), [
    (422, "phi_refused", 0), (429, "rate_limited", 0), (400, "invalid_arguments", 0), (502, "workspace_unavailable", 1),
])
def test_only_a_failure_on_the_tools_side_is_noted(status: int, error: str, notes: int) -> None:
    state = _state()
    failed = ToolResult(name="get_calendar_events", call_id="call_0", ok=False, status=status, error=error,
                        content="refused")
    state.tool_results = [failed.model_dump(mode="json"), failed.model_copy(update={"call_id": "call_1"}).model_dump(
        mode="json")]

    absorb_results(state)

    assert len(state.warnings) == notes  # one note per tool, however many of its calls failed
