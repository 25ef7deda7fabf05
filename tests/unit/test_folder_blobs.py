"""FolderBlobStore: what the folder looks like on disk, and what a failed or hostile write leaves there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from voiceassist.adapters.local.folder_blobs import FolderBlobStore
from voiceassist.errors import Conflict, InvalidInput, NotFound


def files_under(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def test_folder_blobs_store_an_object_as_the_file_at_its_key(tmp_path: Path) -> None:
    blobs = FolderBlobStore(tmp_path)

    blobs.put("guidelines/sepsis.pdf", b"%PDF", metadata={"version": "2"})

    assert (tmp_path / "guidelines" / "sepsis.pdf").read_bytes() == b"%PDF"
    assert files_under(tmp_path) == [".meta/guidelines/sepsis.pdf", "guidelines/sepsis.pdf"]


def test_folder_blobs_read_a_file_a_person_dropped_in(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    (tmp_path / "inbox" / "asthma.md").write_text("# Asthma", encoding="utf-8")
    blobs = FolderBlobStore(tmp_path)

    assert blobs.get("inbox/asthma.md") == b"# Asthma"
    assert blobs.head("inbox/asthma.md") == {}


@pytest.mark.parametrize("key", ["../escaped.txt", "a/../../escaped.txt", "/tmp/escaped.txt"])
def test_folder_blobs_refuse_keys_that_leave_the_root(tmp_path: Path, key: str) -> None:
    root = tmp_path / "blobs"
    blobs = FolderBlobStore(root)

    with pytest.raises(InvalidInput):
        blobs.put(key, b"payload")

    assert not (tmp_path / "escaped.txt").exists()
    assert not root.exists()


def test_folder_blobs_a_failed_write_keeps_the_old_object_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blobs = FolderBlobStore(tmp_path)
    blobs.put("guidelines/sepsis.pdf", b"version one")

    def disk_full(source: str, destination: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError):
        blobs.put("guidelines/sepsis.pdf", b"version two")

    assert blobs.get("guidelines/sepsis.pdf") == b"version one"
    assert files_under(tmp_path) == [".meta/guidelines/sepsis.pdf", "guidelines/sepsis.pdf"]


def test_folder_blobs_a_key_under_an_object_conflicts(tmp_path: Path) -> None:
    blobs = FolderBlobStore(tmp_path)
    blobs.put("guidelines", b"a file, not a folder")

    with pytest.raises(Conflict):
        blobs.put("guidelines/sepsis.pdf", b"%PDF")

    assert blobs.get("guidelines") == b"a file, not a folder"


def test_folder_blobs_head_of_a_folder_is_not_found(tmp_path: Path) -> None:
    blobs = FolderBlobStore(tmp_path)
    blobs.put("guidelines/sepsis.pdf", b"%PDF")

    with pytest.raises(NotFound):
        blobs.head("guidelines")


def test_folder_blobs_delete_removes_the_metadata_too(tmp_path: Path) -> None:
    blobs = FolderBlobStore(tmp_path)
    blobs.put("guidelines/sepsis.pdf", b"%PDF", metadata={"version": "2"})

    blobs.delete("guidelines/sepsis.pdf")
    (tmp_path / "guidelines" / "sepsis.pdf").write_bytes(b"%PDF")  # a person drops the file in again

    assert blobs.head("guidelines/sepsis.pdf") == {}
    assert files_under(tmp_path) == ["guidelines/sepsis.pdf"]
