"""`ask`, `ingest` and `documents` go to the server running on the data folder (found through server.json) and
say so; without one they run in this process, through the same API handler the server calls."""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.cli import main
from voiceassist_local.cli.api_client import SERVER_FILE, running_server, write_server_file
from voiceassist_local.server import make_server

from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.models import AuditOutcome, DocumentStatus

QUESTION = "What is the first-line treatment for uncomplicated hypertension?"


@pytest.fixture
def admin_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """The local user as an admin (VOICEASSIST_LOCAL_GROUPS=admin,clinician), before any server starts."""
    monkeypatch.setenv("VOICEASSIST_LOCAL_GROUPS", "admin,clinician")


@pytest.fixture
def served(admin_user: None, kb_deps: Dependencies, kb_server_url: str,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[Dependencies]:
    """The sample corpus's data folder with a local server on it, as `voiceassist serve` leaves it."""
    warm(kb_server_url)
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(kb_deps.settings.data_dir))
    write_server_file(kb_deps.settings.data_dir, kb_server_url)
    yield kb_deps


def warm(url: str) -> None:
    """A running server has answered before (its warm-up): the CLI's 2 s probe must not meet this process's first
    API call, which imports the API handler and takes longer than that on a slow, loaded machine."""
    with urllib.request.urlopen(f"{url}/v1/health", timeout=120) as reply:  # noqa: S310 - 127.0.0.1
        assert reply.status == 200


def test_ask_is_answered_by_the_running_server_and_says_so(served: Dependencies, kb_server_url: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", QUESTION]) == 0
    out, err = capsys.readouterr()
    assert f"(asking the server at {kb_server_url})" in err
    assert "[1] Hypertension in Primary Care" in out
    assert "status: answered" in out


def test_ask_json_through_the_server_is_the_query_response(served: Dependencies,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", QUESTION, "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert response["metadata"]["answer_status"] == "answered"
    assert response["citations"][0]["title"].startswith("Hypertension")


def test_a_server_file_whose_server_is_gone_is_ignored(tmp_path: Path) -> None:
    (tmp_path / SERVER_FILE).write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": os.getpid()}))
    assert running_server(tmp_path) is None  # nothing answers there: the command runs in-process


@pytest.fixture(params=["admin,clinician", "clinician"])
def ingesting_server(request: pytest.FixtureRequest, local_deps: Dependencies,
                     monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Dependencies, str]]:
    """An empty data folder with a server whose runner has both pipelines (the query stack's has only one), its
    local user an admin or (the default) a clinician."""
    server = make_server("127.0.0.1", 0, groups=request.param)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    warm(url)
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(local_deps.settings.data_dir))
    write_server_file(local_deps.settings.data_dir, url)
    yield local_deps, request.param
    server.shutdown()
    server.server_close()


def test_ingest_through_the_server_indexes_the_file(ingesting_server: tuple[Dependencies, str], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    deps, groups = ingesting_server
    note = tmp_path / "gout.md"
    note.write_text("# Acute gout\n\nColchicine 1.2 mg, then 0.6 mg an hour later, treats an acute gout flare.\n",
                    encoding="utf-8")
    assert main(["ingest", str(note), "--specialty", "rheumatology"]) == 0
    out, err = capsys.readouterr()
    assert "(uploading to the server at" in err
    # a server whose local user is a clinician refuses uploads: the operator's command ingests in-process
    assert ("takes uploads only from an admin" in err) is ("admin" not in groups)
    assert out.strip().splitlines()[-1] == "1 completed"
    [document] = deps.documents.list(limit=50)
    assert document.status is DocumentStatus.ACTIVE and document.metadata.specialty == "rheumatology"
    assert document.metadata.title == "Acute gout"  # a Markdown file is titled with its first heading


def test_documents_list_show_and_delete_through_the_server(served: Dependencies,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["documents", "list"]) == 0
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == "4 document(s)"
    doc_id = next(line.split()[0] for line in out.splitlines() if "Metformin" in line)

    assert main(["documents", "show", doc_id]) == 0
    assert "title:       Metformin (sample drug reference)" in capsys.readouterr().out

    assert main(["documents", "delete", doc_id]) == 0
    assert f"deleted {doc_id}" in capsys.readouterr().out
    assert served.documents.get(doc_id).status is DocumentStatus.DELETED
    actions = [(r.action, r.outcome) for r in served.audit.list(limit=50)]
    assert ("document.delete", AuditOutcome.ACCEPTED) in actions  # audited as the API's delete is


def test_documents_in_process_without_a_server(kb_deps: Dependencies, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(kb_deps.settings.data_dir))
    try:
        assert main(["documents", "list", "--json"]) == 0
        documents = json.loads(capsys.readouterr().out)
        assert len(documents) == 4
        assert main(["documents", "show", "doc_nope_v1"]) == 2
        assert capsys.readouterr().err.startswith("error: ")
    finally:
        use_dependencies(kb_deps)


def test_documents_delete_needs_the_admin_role_as_the_api_does(kb_deps: Dependencies,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(kb_deps.settings.data_dir))
    monkeypatch.setenv("VOICEASSIST_LOCAL_GROUPS", "clinician")
    doc_id = kb_deps.documents.list(limit=1)[0].doc_id
    try:
        assert main(["documents", "delete", doc_id]) == 2
        assert "admin" in capsys.readouterr().err
    finally:
        use_dependencies(kb_deps)
    assert kb_deps.documents.get(doc_id).status is DocumentStatus.ACTIVE


def test_documents_delete_through_a_clinicians_server_names_the_setting(
        kb_deps: Dependencies, kb_server_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(kb_deps.settings.data_dir))
    write_server_file(kb_deps.settings.data_dir, kb_server_url)  # the default server: a clinician
    doc_id = kb_deps.documents.list(limit=1)[0].doc_id
    assert main(["documents", "delete", doc_id]) == 2
    assert "VOICEASSIST_LOCAL_GROUPS=admin,clinician" in capsys.readouterr().err
    assert kb_deps.documents.get(doc_id).status is DocumentStatus.ACTIVE


def test_ask_in_process_on_an_empty_knowledge_base_says_how_to_fill_it(local_deps: Dependencies,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A newcomer's first `ask` before `make run` ever seeded the folder: the abstention alone read as if the
    question were at fault."""
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(local_deps.settings.data_dir))
    try:
        assert main(["ask", QUESTION]) == 0
        err = capsys.readouterr().err
        assert "has no searchable document" in err and "make run" in err and "voiceassist ingest" in err
    finally:
        use_dependencies(local_deps)


def test_ingest_exits_1_when_a_file_failed_so_a_script_can_tell(ingesting_server: tuple[Dependencies, str],
                                                                tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "gout.md"
    note.write_text("# Acute gout\n\nColchicine 1.2 mg, then 0.6 mg an hour later, treats an acute gout flare.\n",
                    encoding="utf-8")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF")
    assert main(["ingest", str(note), str(broken)]) == 1  # was 0: `ingest guide.pdf && ...` went on
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == "1 completed, 1 failed"
    assert main(["ingest", str(note)]) == 0  # every file indexed (here unchanged): a success


def test_a_server_that_needs_a_token_the_command_lacks_is_named_with_the_way_out(
        local_deps: Dependencies, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    server = make_server("127.0.0.1", 0, token="s3cret-of-the-server")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        write_server_file(tmp_path, f"http://127.0.0.1:{server.server_address[1]}")
        monkeypatch.delenv("VOICEASSIST_LOCAL_TOKEN", raising=False)
        assert running_server(tmp_path) is None  # the command runs in its own process, as without a server...
        err = capsys.readouterr().err
        assert "needs its token" in err and "VOICEASSIST_LOCAL_TOKEN" in err  # ...and says why (it was silent)
        assert "s3cret" not in err
        monkeypatch.setenv("VOICEASSIST_LOCAL_TOKEN", "s3cret-of-the-server")
        assert running_server(tmp_path) is not None
    finally:
        server.shutdown()
        server.server_close()
