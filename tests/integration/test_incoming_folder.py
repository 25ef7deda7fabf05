"""`voiceassist serve`'s incoming/ watcher: files dropped into the blob folder go through the real
ingest_trigger handler and the ingestion state machine, once per version, as S3 uploads do on AWS."""

from __future__ import annotations

import os
from pathlib import Path

from voiceassist_local.incoming import IncomingFolderWatcher

from voiceassist.composition import Dependencies
from voiceassist.ingest.stages import content_hash
from voiceassist.ingest.triggers import object_created, object_created_event
from voiceassist.models import DocumentStatus, JobState

GUIDE = b"# Sepsis bundle\n\nGive 30 mL/kg of crystalloid within 3 hours for hypotension or lactate >= 4 mmol/L.\n"


def drop(deps: Dependencies, name: str, data: bytes) -> Path:
    path = deps.settings.blob_dir / "incoming" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def settle(deps: Dependencies) -> None:
    deps.pipelines.join()  # type: ignore[attr-defined]  # the local runner


def active_documents(deps: Dependencies) -> list[tuple[str, int]]:
    return sorted((d.doc_key, d.version) for d in deps.documents.list(limit=100)
                  if d.status is DocumentStatus.ACTIVE)


def test_a_dropped_file_is_ingested_once_it_holds_still(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    drop(local_deps, "sepsis.md", GUIDE)
    assert watcher.poll() == []  # first sighting: it may still be being written
    replies = watcher.poll()
    assert [reply["status"] for reply in replies] == ["started"]
    settle(local_deps)
    assert active_documents(local_deps) == [("sepsis", 1)]
    jobs = local_deps.jobs.list(limit=10)
    assert [job.state for job in jobs] == [JobState.COMPLETED]
    assert local_deps.index.count("sepsis") == jobs[0].chunks_total > 0
    assert watcher.poll() == []  # nothing new: nothing announced


def test_a_file_still_growing_waits(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    path = drop(local_deps, "sepsis.md", GUIDE[:20])
    watcher.poll()
    path.write_bytes(GUIDE)  # the copy went on between the two polls
    assert watcher.poll() == []
    assert [reply["status"] for reply in watcher.poll()] == ["started"]
    settle(local_deps)
    assert local_deps.documents.list(limit=10)[0].content_hash == content_hash(GUIDE)  # the whole file, once
    assert len(local_deps.jobs.list(limit=10)) == 1


def test_a_changed_file_becomes_version_2_and_a_restart_ingests_nothing_again(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    path = drop(local_deps, "sepsis.md", GUIDE)
    watcher.poll(), watcher.poll()
    settle(local_deps)
    path.write_bytes(GUIDE + b"\nReassess volume status after the initial fluid bolus.\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    watcher.poll()
    assert [reply["status"] for reply in watcher.poll()] == ["started"]
    settle(local_deps)
    assert active_documents(local_deps) == [("sepsis", 2)]

    restarted = IncomingFolderWatcher(local_deps.settings.blob_dir)  # `make run` again: every file re-announced
    restarted.poll()
    assert [reply["status"] for reply in restarted.poll()] == ["duplicate"]
    settle(local_deps)
    assert len(local_deps.jobs.list(limit=10)) == 2
    live = [d for d in local_deps.documents.list(limit=10) if d.status is DocumentStatus.ACTIVE]
    assert local_deps.index.count("sepsis") == live[0].chunk_count > 0  # version 2's chunks only


def test_sidecars_hidden_and_temporary_files_are_not_announced(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    drop(local_deps, "sepsis.md.meta.json", b'{"doc_key": "sepsis-bundle", "source_type": "guideline",'
                                            b' "specialty": "critical care"}')
    drop(local_deps, ".tmp-abc123", b"half a file")
    drop(local_deps, ".drafts/notes.md", b"# Notes")
    drop(local_deps, "sepsis.md", GUIDE)
    watcher.poll()
    replies = watcher.poll()
    assert [(reply["status"], reply["key"]) for reply in replies] == [("started", "incoming/sepsis.md")]
    settle(local_deps)
    document = local_deps.documents.list(limit=10)[0]
    assert (document.doc_key, document.metadata.source_type.value) == ("sepsis-bundle", "guideline")
    assert document.metadata.specialty == "critical care"
    assert local_deps.index.count("sepsis-bundle") > 0


def test_a_bad_sidecar_fails_that_file_with_the_reason_and_the_watcher_goes_on(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    drop(local_deps, "broken.md.meta.json", b"{not json")
    drop(local_deps, "broken.md", GUIDE)
    drop(local_deps, "fine.md", GUIDE)
    watcher.poll()
    replies = {reply["key"]: reply for reply in watcher.poll()}
    assert replies["incoming/broken.md"]["status"] == "failed"
    # (the reason names no file: on AWS it lands in the Lambda error log before any PHI screen)
    assert "metadata sidecar (.meta.json) is not valid JSON" in replies["incoming/broken.md"]["reason"]
    assert replies["incoming/fine.md"]["status"] == "started"
    assert watcher.poll() == []  # not retried in a loop: changing or touching the file announces it again
    settle(local_deps)
    assert active_documents(local_deps) == [("fine", 1)]


def test_the_event_is_the_one_eventbridge_sends() -> None:
    event = object_created_event("docs", "incoming/Stroke guide (2026).pdf", "0cc175b9c0f1b6a831c399e269772661", 1)
    assert event["detail"]["object"]["key"] == "incoming/Stroke+guide+%282026%29.pdf"
    version = object_created(event)
    assert (version.bucket, version.key) == ("docs", "incoming/Stroke guide (2026).pdf")


def test_a_symlink_in_the_incoming_folder_is_refused_not_followed(tmp_path, caplog) -> None:  # type: ignore[no-untyped-def]
    from voiceassist_local.incoming import IncomingFolderWatcher

    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash")
    watcher = IncomingFolderWatcher(tmp_path / "blobs")
    watcher.folder.mkdir(parents=True)
    (watcher.folder / "passwd.txt").symlink_to(secret)

    assert watcher.poll() == [] and watcher.poll() == []
    assert any("not a regular file" in r.getMessage() for r in caplog.records)
