"""The file tools through the executor against a real WebDAV server (WsgiDAV at Nextcloud's files path)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from tests.support.dav_servers import FILES_PREFIX, PASSWORD, USER, DavServer, free_port, wsgidav
from tests.support.pdfgen import build_pdf
from tests.support.workspace_executor import Harness
from tests.unit.tools.executor_fixtures import RuleDetector
from voiceassist.adapters.webdav.client import WebDavFiles
from voiceassist.models import DocumentMetadata
from voiceassist.tools import files
from voiceassist.tools.executor import Caller
from voiceassist.tools.files import file_tools
from voiceassist.tools.workspace import DavAccount, Workspace, WorkspaceAccount

ADMIN = Caller(user_id=USER, roles=("admin",))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DavServer]:
    share = tmp_path_factory.mktemp("share")
    (share / "Protocols" / "Sepsis").mkdir(parents=True)
    (share / "Protocols" / "Sepsis" / "sepsis bundle.md").write_text(
        "# Sepsis bundle\n\nGive antibiotics within one hour.\n", encoding="utf-8")
    (share / "Protocols" / "stroke-protocol.pdf").write_bytes(
        build_pdf([("Stroke", ["Alteplase within 4.5 hours of onset."])]))
    (share / "Patients").mkdir()
    (share / "Patients" / "letter.txt").write_text("Dear Dr Jones, about John Smith (MRN 123456).\n",
                                                   encoding="utf-8")
    (share / "big.txt").write_text("x" * 5000, encoding="utf-8")
    (share / "photo.bin").write_bytes(bytes(range(256)) * 4)
    (share / "empty.md").write_bytes(b"")
    (share / "broken.pdf").write_bytes(b"%PDF-1.7 not really")
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("not in the share\n", encoding="utf-8")
    (share / "linked.md").symlink_to(outside)  # a link out of the share: WsgiDAV refuses it (403)
    (share / "inside-link.md").symlink_to(share / "big.txt")  # a link within it: refused too (symlinks off)
    with wsgidav(tmp_path_factory.mktemp("wsgidav"), share) as running:
        yield running


def _workspace(url: str) -> Workspace:
    account = WorkspaceAccount(files=DavAccount(url=url, username=USER, password=SecretStr(PASSWORD)))
    return Workspace(lambda user: account if user == USER else None, calendar=_no_calendar,
                     files=lambda a: WebDavFiles(a, timeout_s=5))


def _no_calendar(_account: DavAccount) -> Any:
    raise AssertionError("no calendar tool in these tests")


class Ingested:
    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes, DocumentMetadata]] = []

    def __call__(self, name: str, data: bytes, metadata: DocumentMetadata) -> dict[str, Any]:
        self.calls.append((name, data, metadata))
        return {"doc_id": "doc-1", "job_id": "job-1", "unchanged": False}


@pytest.fixture
def ingested() -> Ingested:
    return Ingested()


@pytest.fixture
def harness(tmp_path: Path, server: DavServer, ingested: Ingested) -> Harness:
    tools = file_tools(_workspace(f"{server.base_url}{FILES_PREFIX}/"), ingest=ingested, detector=RuleDetector)
    return Harness(tmp_path, tools)


def test_files_are_found_by_name_in_every_folder(harness: Harness) -> None:
    result = harness.call("search_nextcloud_files", query="SEPSIS")

    assert result.status == 200, result.content
    [found] = result.data["files"]
    assert found["path"] == "Protocols/Sepsis/sepsis bundle.md" and found["size"] == 51
    assert found["modified"] and found["modified"].endswith("+00:00")
    assert result.carries_phi  # the person's files are in-boundary data, whatever was asked


def test_a_search_may_name_a_patient_the_tool_stays_in_the_boundary(harness: Harness) -> None:
    result = harness.call("search_nextcloud_files", query="John Smith")

    assert result.status == 200 and result.data["count"] == 0
    assert result.carries_phi
    [record] = harness.audit.list(user_id=USER)
    assert record.phi_detected and "John Smith" not in record.query_redacted


def test_content_search_on_a_plain_webdav_server_says_it_is_not_supported(harness: Harness) -> None:
    result = harness.call("search_nextcloud_files", query="antibiotics", content=True)

    assert (result.status, result.error) == (400, "invalid_input")
    assert "no content search" in result.content


@pytest.mark.parametrize(("path", "expected"), [
    ("Protocols/Sepsis/sepsis bundle.md", "Give antibiotics within one hour."),
    ("Protocols/stroke-protocol.pdf", "Alteplase within 4.5 hours of onset."),
])
def test_a_file_is_read_through_the_ingestion_extractors(harness: Harness, path: str, expected: str) -> None:
    result = harness.call("retrieve_nextcloud_file", path=path)

    assert result.status == 200, result.content
    assert expected in result.content and result.data["truncated"] is False
    assert result.carries_phi


def test_reading_is_capped(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 4096)
    too_big = harness.call("retrieve_nextcloud_file", path="big.txt")

    assert (too_big.status, too_big.error) == (413, "payload_too_large")

    monkeypatch.setattr(files, "MAX_FILE_BYTES", 10_000)
    monkeypatch.setattr(files, "MAX_TEXT_CHARS", 100)
    cut = harness.call("retrieve_nextcloud_file", path="big.txt")

    assert cut.status == 200 and cut.data["truncated"] is True and cut.content.endswith("the file is longer]")


@pytest.mark.parametrize(("path", "status", "error"), [
    ("Protocols/missing.md", 404, "not_found"),
    ("..", 400, "invalid_input"),  # the folder above the files root: the tool's own check
    ("../../../etc/passwd", 400, "invalid_input"),  # the same check, before the input screen's wording
    ("Protocols", 400, "invalid_input"),  # a folder: GET answered 403 and the tool said 502 "server failed"
    ("Protocols/Sepsis/", 400, "invalid_input"),
    ("linked.md", 403, "forbidden"),  # a symlink the server will not follow: 502 before
    ("inside-link.md", 403, "forbidden"),
    ("photo.bin", 415, "unsupported_media_type"),
    ("empty.md", 422, "unreadable_file"),
    ("broken.pdf", 422, "unreadable_file"),
])
def test_bad_paths_are_clear_tool_errors(harness: Harness, path: str, status: int, error: str) -> None:
    result = harness.call("retrieve_nextcloud_file", path=path)

    assert (result.status, result.error) == (status, error), result.content


@pytest.mark.parametrize("path", ["..", "../../../etc/passwd", "Protocols/../../x.md", "https://evil.example/x"])
def test_a_path_that_leaves_the_root_is_refused_in_those_words(harness: Harness, path: str) -> None:
    result = harness.call("retrieve_nextcloud_file", path=path)

    assert (result.status, result.error) == (400, "invalid_input") and "leaves the root" in result.content


@pytest.mark.parametrize(("path", "words"), [("Protocols", "is a folder"), ("linked.md", "link")])
def test_a_folder_or_a_link_says_what_it_is_without_quoting_the_path(harness: Harness, path: str,
                                                                     words: str) -> None:
    result = harness.call("retrieve_nextcloud_file", path=path)

    assert words in result.content and path not in result.content and "server failed" not in result.content


def test_adding_a_file_to_the_knowledge_base_waits_for_an_admins_confirmation(harness: Harness,
                                                                               ingested: Ingested) -> None:
    as_clinician = harness.call("add_nextcloud_file_to_knowledge_base", path="Protocols/stroke-protocol.pdf")
    assert as_clinician.status == 403

    proposed = harness.call("add_nextcloud_file_to_knowledge_base", ADMIN, path="Protocols/stroke-protocol.pdf",
                            title="Stroke protocol")
    assert proposed.status == 202 and proposed.pending_action is not None and ingested.calls == []

    done = harness.executor.confirm(proposed.pending_action.action_id, ADMIN)

    assert done.status == 200, done.content
    [(name, data, metadata)] = ingested.calls
    assert name == "stroke-protocol.pdf" and data.startswith(b"%PDF")
    assert (metadata.title, metadata.doc_key) == ("Stroke protocol", "workspace/doc/Protocols/stroke-protocol.pdf")


def test_a_cancelled_addition_ingests_nothing(harness: Harness, ingested: Ingested) -> None:
    proposed = harness.call("add_nextcloud_file_to_knowledge_base", ADMIN, path="Protocols/stroke-protocol.pdf")
    assert proposed.pending_action is not None

    harness.executor.cancel(proposed.pending_action.action_id, ADMIN)

    assert ingested.calls == []


def test_a_file_with_phi_never_reaches_the_shared_knowledge_base(harness: Harness, ingested: Ingested) -> None:
    result = harness.confirmed("add_nextcloud_file_to_knowledge_base", ADMIN, path="Patients/letter.txt")

    assert (result.status, result.error) == (422, "phi_refused")
    assert ingested.calls == []


def test_a_failing_detector_keeps_the_file_out_too(tmp_path: Path, server: DavServer, ingested: Ingested) -> None:
    class Broken:
        def detect(self, text: str) -> Any:
            raise RuntimeError("detector down")

    tools = file_tools(_workspace(f"{server.base_url}{FILES_PREFIX}/"), ingest=ingested, detector=Broken)
    result = Harness(tmp_path, tools).confirmed("add_nextcloud_file_to_knowledge_base", ADMIN,
                                                path="Protocols/Sepsis/sepsis bundle.md")

    assert (result.status, result.error) == (422, "phi_refused")
    assert ingested.calls == []


def test_a_file_server_that_is_down_is_a_clear_tool_error(tmp_path: Path, ingested: Ingested) -> None:
    tools = file_tools(_workspace(f"http://127.0.0.1:{free_port()}{FILES_PREFIX}/"), ingest=ingested,
                       detector=RuleDetector)
    harness = Harness(tmp_path, tools)

    for name, arguments in (("search_nextcloud_files", {"query": "sepsis"}),
                            ("retrieve_nextcloud_file", {"path": "big.txt"})):
        result = harness.call(name, **arguments)
        assert (result.status, result.error) == (502, "workspace_unavailable"), name
        assert "file server failed or is unreachable" in result.content


def test_wrong_credentials_are_a_tool_error(tmp_path: Path, server: DavServer) -> None:
    account = WorkspaceAccount(files=DavAccount(url=f"{server.base_url}{FILES_PREFIX}/", username=USER,
                                                password=SecretStr("wrong")))
    workspace = Workspace(lambda _u: account, calendar=_no_calendar, files=lambda a: WebDavFiles(a, timeout_s=5))

    result = Harness(tmp_path, file_tools(workspace)).call("search_nextcloud_files", query="sepsis")

    assert (result.status, result.error) == (502, "workspace_unavailable")


def test_a_user_without_files_is_told_they_are_not_configured(harness: Harness) -> None:
    result = harness.call("search_nextcloud_files", Caller(user_id="someone-else"), query="sepsis")

    assert (result.status, result.error) == (503, "not_configured")


def test_confirmation_runs_the_addition_once(harness: Harness, ingested: Ingested) -> None:
    from voiceassist.errors import Conflict

    proposed = harness.call("add_nextcloud_file_to_knowledge_base", ADMIN, path="Protocols/stroke-protocol.pdf")
    assert proposed.pending_action is not None
    harness.executor.confirm(proposed.pending_action.action_id, ADMIN)

    with pytest.raises(Conflict):
        harness.executor.confirm(proposed.pending_action.action_id, ADMIN)
    assert len(ingested.calls) == 1


@pytest.mark.parametrize(("name", "arguments", "status"), [
    ("search_nextcloud_files", {"query": "MRN 123456"}, 200),
    ("retrieve_nextcloud_file", {"path": "Patients/John Smith.txt"}, 404),
    ("add_nextcloud_file_to_knowledge_base", {"path": "Protocols/stroke-protocol.pdf", "title": "John Smith"}, 202),
])
def test_phi_in_any_file_tool_argument_stays_in_the_boundary_marked_and_redacted(
        harness: Harness, name: str, arguments: dict[str, str], status: int) -> None:
    result = harness.call(name, ADMIN, **arguments)

    assert result.status == status, result.content
    assert result.carries_phi
    [record] = harness.audit.list(user_id=USER)
    assert record.phi_detected and "John Smith" not in record.query_redacted
    assert "123456" not in record.query_redacted


def test_a_detector_failure_on_a_file_argument_counts_as_phi(harness: Harness) -> None:
    result = harness.call("search_nextcloud_files", query="crash cart")  # the test detector raises on "crash"

    assert result.status == 200 and result.carries_phi
    [record] = harness.audit.list(user_id=USER)
    assert record.phi_detected and "crash" not in record.query_redacted


def test_a_server_that_never_answers_is_a_tool_error_not_a_hung_query(tmp_path: Path) -> None:
    import socket

    with socket.socket() as silent:  # accepts connections (the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}{FILES_PREFIX}/"
        account = WorkspaceAccount(files=DavAccount(url=url, username=USER, password=SecretStr(PASSWORD)))
        workspace = Workspace(lambda _u: account, calendar=_no_calendar,
                              files=lambda a: WebDavFiles(a, timeout_s=0.5))

        result = Harness(tmp_path, file_tools(workspace)).call("retrieve_nextcloud_file", path="big.txt")

    assert (result.status, result.error) == (502, "workspace_unavailable")
    assert "(ReadTimeout)" in result.content
