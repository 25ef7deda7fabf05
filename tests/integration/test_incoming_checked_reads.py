"""The incoming folder reads what it checked (one open with O_NOFOLLOW, checks on the descriptor), and a
dropped file's name does not stay raw at rest once it is ingested."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from voiceassist_local import incoming
from voiceassist_local.checked_read import Refused, read_checked
from voiceassist_local.incoming import IncomingFolderWatcher

from voiceassist.composition import Dependencies
from voiceassist.models import DocumentStatus

SECRET = b"root:x:0:0:root:/root:/bin/bash\nthe outside file's words: quetiapine zebrafish\n"
GUIDE = b"# Sepsis bundle\n\nGive 30 mL/kg of crystalloid within 3 hours for hypotension.\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_bytes(SECRET)
    return secret


def test_read_checked_refuses_a_symlink_a_linked_folder_a_hard_link_a_fifo_and_an_empty_file(
        tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "incoming"
    folder.mkdir()
    (folder / "link.txt").symlink_to(outside)
    (folder / "linked-folder").symlink_to(outside.parent)
    os.link(outside, folder / "hard.txt")
    os.mkfifo(folder / "pipe.txt")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "big.txt").write_bytes(b"x" * 101)
    for name, reason in [("link.txt", "symlinks are never followed"), ("linked-folder/secret.txt", "not a folder"),
                         ("hard.txt", "hard link"), ("pipe.txt", "not a regular file"), ("empty.txt", "empty"),
                         ("big.txt", "the limit is 100 bytes"), ("../outside/secret.txt", "not a path inside")]:
        with pytest.raises(Refused, match=reason):
            read_checked(folder, name, max_bytes=100)
    (folder / "fine.txt").write_bytes(GUIDE)
    assert read_checked(folder, "fine.txt", max_bytes=1000).data == GUIDE



def test_a_file_swapped_for_a_symlink_after_the_scan_is_refused_and_nothing_outside_is_indexed(
        local_deps: Dependencies, outside: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    path = watcher.folder / "notes.txt"
    path.write_bytes(SECRET[:len(SECRET)])  # the same size as the target: the stamp alone cannot tell

    def swap_then_read(folder: Path, relative: str, *, max_bytes: int):  # type: ignore[no-untyped-def]
        path.unlink()
        path.symlink_to(outside)  # between the scan's lstat and the read
        return read_checked(folder, relative, max_bytes=max_bytes)

    watcher.poll()
    monkeypatch.setattr(incoming, "read_checked", swap_then_read)
    replies = watcher.poll()
    assert [(r["status"], "symlinks are never followed" in r["reason"]) for r in replies] == [("refused", True)]
    local_deps.pipelines.join()  # type: ignore[attr-defined]
    assert local_deps.jobs.list(limit=10) == [] and local_deps.documents.list(limit=10) == []


def test_a_hard_link_into_the_folder_is_refused(local_deps: Dependencies, outside: Path) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    os.link(outside, watcher.folder / "notes.txt")
    watcher.poll()
    assert [(r["status"], "hard link" in r["reason"]) for r in watcher.poll()] == [("refused", True)]
    local_deps.pipelines.join()  # type: ignore[attr-defined]
    assert local_deps.documents.list(limit=10) == []
    assert outside.read_bytes() == SECRET and (watcher.folder / "notes.txt").exists()  # left alone


def test_an_empty_file_is_refused_with_the_reason(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    (watcher.folder / "empty.md").write_bytes(b"")
    watcher.poll()
    assert [(r["status"], r["reason"]) for r in watcher.poll()] == [
        ("refused", "the file is empty: drop a document with content")]
    assert watcher.poll() == []  # not retried in a loop


def test_a_phi_file_name_is_not_at_rest_once_the_file_is_ingested(local_deps: Dependencies) -> None:
    """Blob keys, blob metadata, the idempotency record, the documents and jobs, and the incoming folder."""
    raw = "Quartermaine_Zebulon_MRN97366946 discharge.md"
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    (watcher.folder / raw).write_bytes(GUIDE)
    (watcher.folder / (raw + ".meta.json")).write_text('{"title": "Sepsis bundle for Zebulon Quartermaine"}')
    watcher.poll(), watcher.poll()
    local_deps.pipelines.join()  # type: ignore[attr-defined]
    watcher.poll()
    [document] = local_deps.documents.list(limit=10)
    assert document.status is DocumentStatus.ACTIVE and document.metadata_screened

    needles = ("quartermaine", "zebulon", "97366946")
    blob_root = local_deps.settings.blob_dir
    for path in blob_root.rglob("*"):
        relative = path.relative_to(blob_root).as_posix().lower()
        assert not any(n in relative for n in needles), relative
        if path.is_file() and (".meta" in path.parts or "incoming" in path.parts):
            text = path.read_bytes().decode("utf-8", "replace").lower()
            assert not any(n in text for n in needles), relative
    assert not any(n in document.blob_key.lower() for n in needles)
    with sqlite3.connect(local_deps.settings.db_path) as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in ("idempotency_records", "documents", "jobs"):
            assert table in tables
            rows = " ".join(map(str, db.execute(f"SELECT * FROM {table}").fetchall())).lower()  # noqa: S608
            assert not any(n in rows for n in needles), table
