"""The workspace tools as the composition root builds them from Settings, through the REST API: listed only
when configured, writes confirmed through POST /v1/actions/{id}/confirm, a file added to the knowledge base
through the real ingestion (accept_upload and the local pipeline)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.cli.local import wait_for_jobs

from tests.support.dav_servers import FILES_PREFIX, PASSWORD, USER, DavServer, make_calendar, radicale, wsgidav
from tests.support.web_search_stub import KEY, WebSearchStub
from tests.unit.api.test_api_tools import call
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.models import JobState
from voiceassist.settings import Settings

WORKSPACE_TOOLS = {"get_calendar_events", "create_calendar_event", "update_calendar_event",
                   "delete_calendar_event", "search_nextcloud_files", "retrieve_nextcloud_file",
                   "add_nextcloud_file_to_knowledge_base", "web_search"}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DavServer, DavServer]]:
    share = tmp_path_factory.mktemp("share")
    (share / "Protocols").mkdir()
    (share / "Protocols" / "hypokalaemia.md").write_text(
        "# Hypokalaemia\n\nReplace potassium orally when the level is above 2.5 mmol/L and there are no ECG "
        "changes; give it intravenously otherwise, at no more than 10 mmol per hour through a peripheral "
        "line.\n", encoding="utf-8")
    with radicale(tmp_path_factory.mktemp("radicale")) as caldav, \
            wsgidav(tmp_path_factory.mktemp("wsgidav"), share) as webdav:
        yield caldav, webdav


@pytest.fixture
def configured(tmp_path: Path, servers: tuple[DavServer, DavServer], shared_embedder: Any,
               shared_phi_detector: Any) -> Iterator[Dependencies]:
    caldav, webdav = servers
    accounts = {"users": {"*": {
        "calendar": {"url": make_calendar(caldav, cal_id=f"api-{tmp_path.name[-12:]}".lower()),
                     "username": USER, "password": PASSWORD},
        "files": {"url": f"{webdav.base_url}{FILES_PREFIX}/", "username": USER, "password": PASSWORD}}}}
    accounts_file = tmp_path / "workspace.json"
    accounts_file.write_text(json.dumps(accounts), encoding="utf-8")
    accounts_file.chmod(0o600)
    with WebSearchStub() as stub:
        deps = Dependencies(Settings(data_dir=tmp_path / "data", workspace_accounts_file=accounts_file,
                                     web_search_base_url=stub.base_url, web_search_api_key=KEY))
        deps.settings.data_dir.mkdir(parents=True)
        deps.embedder = shared_embedder  # type: ignore[misc]
        deps.phi_detector = shared_phi_detector  # type: ignore[misc]
        use_dependencies(deps)
        yield deps
        use_dependencies(None)
        runner = deps.__dict__.get("pipelines")
        if runner is not None and hasattr(runner, "close"):
            runner.close()


def test_unconfigured_workspace_tools_are_not_listed(local_deps: Dependencies) -> None:
    status, body, _ = call("GET", "/v1/tools")

    assert status == 200 and not WORKSPACE_TOOLS & {tool["name"] for tool in body}


def test_configured_workspace_tools_are_listed_with_their_rules(configured: Dependencies) -> None:
    status, body, _ = call("GET", "/v1/tools")

    listed = {tool["name"]: tool for tool in body}
    assert status == 200 and set(listed) >= WORKSPACE_TOOLS
    assert not listed["web_search"]["requires_phi"]
    assert all(listed[name]["requires_phi"] for name in WORKSPACE_TOOLS - {"web_search"})
    assert {name for name in WORKSPACE_TOOLS if listed[name]["requires_confirmation"]} == {
        "create_calendar_event", "update_calendar_event", "delete_calendar_event",
        "add_nextcloud_file_to_knowledge_base"}
    assert listed["delete_calendar_event"]["risk_level"] == "high"
    assert (listed["get_calendar_events"]["rate_limit"], listed["search_nextcloud_files"]["rate_limit"],
            listed["web_search"]["rate_limit"]) == (20, 20, 10)


def test_an_event_is_created_through_the_api_only_once_confirmed(configured: Dependencies) -> None:
    status, proposed, _ = call("POST", "/v1/tools/create_calendar_event/invoke", {"arguments": {
        "summary": "Teaching with John Smith", "start": "2026-04-01T12:00:00+02:00",
        "end": "2026-04-01T13:00:00+02:00"}})
    assert status == 202, proposed
    action_id = proposed["pending_action"]["action_id"]
    # the pending call is sealed at rest (tools/actions.py): the name is in no file of the data folder (the
    # audit keeps the arguments redacted)
    at_rest = [path for path in configured.settings.data_dir.rglob("*") if path.is_file()]
    assert at_rest and [path.name for path in at_rest if b"John Smith" in path.read_bytes()] == []

    confirmed, done, _ = call("POST", f"/v1/actions/{action_id}/confirm")
    listed, events, _ = call("POST", "/v1/tools/get_calendar_events/invoke", {"arguments": {
        "start": "2026-04-01T00:00:00Z", "end": "2026-04-02T00:00:00Z", "timezone": "Europe/Berlin"}})

    assert confirmed == 200, done
    assert listed == 200 and [(e["summary"], e["start"]) for e in events["data"]["events"]] == [
        ("Teaching with John Smith", "2026-04-01T12:00:00+02:00")]


def test_a_file_goes_into_the_knowledge_base_through_ingestion(configured: Dependencies) -> None:
    found, search, _ = call("POST", "/v1/tools/search_nextcloud_files/invoke", {"arguments": {"query": "kalaem"}})
    [path] = [f["path"] for f in search["data"]["files"]]
    status, proposed, _ = call("POST", "/v1/tools/add_nextcloud_file_to_knowledge_base/invoke",
                               {"arguments": {"path": path, "title": "Hypokalaemia protocol"}})
    assert (found, status) == (200, 202), proposed

    confirmed, done, _ = call("POST", f"/v1/actions/{proposed['pending_action']['action_id']}/confirm")

    assert confirmed == 200, done
    [job] = wait_for_jobs(configured, [done["data"]["job_id"]], show=False)
    assert job.state is JobState.COMPLETED
    [document] = [d for d in configured.documents.list() if d.doc_id == done["data"]["doc_id"]]
    assert document.metadata.title == "Hypokalaemia protocol"


def test_over_mcp_a_calendar_write_waits_for_confirmation_and_files_are_searched(configured: Dependencies) -> None:
    import threading

    import anyio
    from mcp import Client
    from voiceassist_local.server import make_server

    server = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()

    async def session() -> tuple[Any, Any, Any]:
        async with Client(f"http://127.0.0.1:{server.server_address[1]}/v1/mcp") as client:
            return (await client.list_tools(),
                    await client.call_tool("create_calendar_event", {
                        "summary": "Journal club", "start": "2026-04-02T17:00:00Z", "end": "2026-04-02T18:00:00Z"}),
                    await client.call_tool("search_nextcloud_files", {"query": "hypokal"}))

    try:
        listed, pending, found = anyio.run(session)
    finally:
        server.shutdown()
        server.server_close()

    assert {tool.name for tool in listed.tools} >= WORKSPACE_TOOLS
    assert (pending.is_error, pending.structured_content["status"]) == (False, 202)
    events = call("POST", "/v1/tools/get_calendar_events/invoke", {"arguments": {
        "start": "2026-04-02T00:00:00Z", "end": "2026-04-03T00:00:00Z"}})[1]
    assert events["data"]["count"] == 0  # nothing written until the person confirms
    confirmed, _, _ = call("POST", f"/v1/actions/{pending.structured_content['pending_action']['action_id']}/confirm")
    assert confirmed == 200
    assert (found.is_error, [f["path"] for f in found.structured_content["data"]["files"]]) == (
        False, ["Protocols/hypokalaemia.md"])


def test_a_server_that_is_down_or_an_account_that_is_missing_is_a_clear_error_never_a_500(
        configured: Dependencies) -> None:
    from tests.support.dav_servers import free_port

    accounts_file = configured.settings.workspace_accounts_file
    assert accounts_file is not None
    dead = {"users": {"*": {"calendar": {"url": f"http://127.0.0.1:{free_port()}/doc/work/"}}}}
    accounts_file.write_text(json.dumps(dead), encoding="utf-8")  # re-read on every call

    down, calendar, _ = call("POST", "/v1/tools/get_calendar_events/invoke", {"arguments": {
        "start": "2026-04-01T00:00:00Z", "end": "2026-04-02T00:00:00Z"}})
    missing, files, _ = call("POST", "/v1/tools/search_nextcloud_files/invoke", {"arguments": {"query": "x"}})

    assert (down, calendar["error"]["code"]) == (502, "workspace_unavailable")
    assert "calendar server failed or is unreachable" in calendar["error"]["message"]
    assert (missing, files["error"]["code"]) == (503, "not_configured")
