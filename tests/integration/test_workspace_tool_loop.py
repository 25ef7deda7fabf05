"""The workspace tools in the query's tool loop (query/tool_loop.run_tool and absorb_results, as the "Run
Tools" Map calls them): a calendar or file result carries PHI, so the rest of the turn stays in the boundary
and web_search is refused; web results become the answer's first excerpts with their URL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.support.dav_servers import FILES_PREFIX, PASSWORD, USER, DavServer, wsgidav
from tests.support.web_search_stub import KEY, WebSearchStub
from tests.support.workspace_executor import Harness
from tests.unit.tools.executor_fixtures import RuleDetector
from voiceassist.adapters.webdav.client import WebDavFiles
from voiceassist.adapters.websearch.brave import BraveSearch
from voiceassist.models import PhiResult, QueryRequest, ToolCall
from voiceassist.query.state import QueryState
from voiceassist.query.tool_loop import absorb_results, run_tool, turn_has_phi
from voiceassist.tools.files import file_tools
from voiceassist.tools.web_search import web_search_tools
from voiceassist.tools.workspace import DavAccount, Workspace, WorkspaceAccount


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DavServer]:
    share = tmp_path_factory.mktemp("share")
    (share / "handover.txt").write_text("Bed 4: start IV potassium.\n", encoding="utf-8")
    with wsgidav(tmp_path_factory.mktemp("wsgidav"), share) as running:
        yield running


@pytest.fixture
def stub() -> Iterator[WebSearchStub]:
    with WebSearchStub() as running:
        yield running


@pytest.fixture
def harness(tmp_path: Path, server: DavServer, stub: WebSearchStub) -> Harness:
    account = WorkspaceAccount(files=DavAccount(url=f"{server.base_url}{FILES_PREFIX}/", username=USER,
                                                password=SecretStr(PASSWORD)))
    workspace = Workspace(lambda _user: account, calendar=lambda _a: None,  # type: ignore[arg-type,return-value]
                          files=lambda a: WebDavFiles(a, timeout_s=5))
    return Harness(tmp_path, [*file_tools(workspace),
                              *web_search_tools(BraveSearch(KEY, base_url=stub.base_url), detector=RuleDetector)])


def _state() -> QueryState:
    question = "What does my handover say about potassium?"
    return QueryState(user_id=USER, request=QueryRequest(query=question),
                      phi=PhiResult(contains_phi=False, redacted_text=question))  # checked: no PHI


def test_a_file_result_keeps_the_rest_of_the_turn_inside_the_boundary(harness: Harness,
                                                                      stub: WebSearchStub) -> None:
    state = _state()
    read = run_tool(harness.executor, state, ToolCall(name="retrieve_nextcloud_file", arguments={
        "path": "handover.txt"}))
    state.tool_calls = [ToolCall(call_id=read.call_id, name=read.name)]
    state.tool_results = [read.model_dump(mode="json")]
    absorb_results(state)

    assert read.status == 200 and read.carries_phi and turn_has_phi(state)
    web = run_tool(harness.executor, state, ToolCall(name="web_search", arguments={"query": "IV potassium rate"}))
    assert (web.status, web.error) == (422, "phi_refused")
    assert stub.queries == []


def test_web_results_become_the_first_excerpts_of_a_clean_turn(harness: Harness) -> None:
    state = _state()
    web = run_tool(harness.executor, state, ToolCall(name="web_search", arguments={"query": "IV potassium rate"}))
    state.tool_results = [web.model_dump(mode="json")]
    absorb_results(state)

    assert web.status == 200 and not turn_has_phi(state)
    assert [hit.chunk.metadata.url for hit in state.hits[:2]] == ["https://www.fda.gov/news/sepsis-test",
                                                                  "https://www.ashp.org/drug-shortages"]
