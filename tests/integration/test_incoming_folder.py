"""`voiceassist serve`'s incoming/ watcher: files dropped into the blob folder go through the real
ingest_trigger handler and the ingestion state machine, once per version, as S3 uploads do on AWS."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.incoming import TRIGGER_TIMEOUT_S, IncomingFolderWatcher
from voiceassist_local.recovery import reconcile_once

from voiceassist.composition import Dependencies
from voiceassist.errors import Overloaded, StoreUnavailable
from voiceassist.ingest.stages import content_hash
from voiceassist.ingest.triggers import object_created, object_created_event
from voiceassist.models import DocumentStatus, JobState

GUIDE = b"# Sepsis bundle\n\nGive 30 mL/kg of crystalloid within 3 hours for hypotension or lactate >= 4 mmol/L.\n"


def drop(deps: Dependencies, name: str, data: bytes) -> Path:
    path = deps.settings.blob_dir / "incoming" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def settle(deps: Dependencies, watcher: IncomingFolderWatcher) -> None:
    """Run the queued executions, then let the watcher finish the files whose job exists."""
    deps.pipelines.join()  # type: ignore[attr-defined]  # the local runner
    watcher.poll()


def active_documents(deps: Dependencies) -> list[tuple[str, int]]:
    return sorted((d.doc_key, d.version) for d in deps.documents.list(limit=100)
                  if d.status is DocumentStatus.ACTIVE)


def test_a_dropped_file_is_ingested_once_it_holds_still(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    drop(local_deps, "sepsis.md", GUIDE)
    assert watcher.poll() == []  # first sighting: it may still be being written
    replies = watcher.poll()
    assert [reply["status"] for reply in replies] == ["started"]
    settle(local_deps, watcher)
    assert active_documents(local_deps) == [("sepsis", 1)]
    jobs = local_deps.jobs.list(limit=10)
    assert [job.state for job in jobs] == [JobState.COMPLETED]
    assert local_deps.index.count("sepsis") == jobs[0].chunks_total > 0
    assert not (watcher.folder / "sepsis.md").exists()  # done: removed from incoming/
    assert watcher.poll() == []  # nothing new: nothing announced


def test_a_file_still_growing_waits(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    path = drop(local_deps, "sepsis.md", GUIDE[:20])
    watcher.poll()
    path.write_bytes(GUIDE)  # the copy went on between the two polls
    assert watcher.poll() == []
    assert [reply["status"] for reply in watcher.poll()] == ["started"]
    settle(local_deps, watcher)
    assert local_deps.documents.list(limit=10)[0].content_hash == content_hash(GUIDE)  # the whole file, once
    assert len(local_deps.jobs.list(limit=10)) == 1


def test_a_changed_file_dropped_again_becomes_version_2(local_deps: Dependencies) -> None:
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    drop(local_deps, "sepsis.md", GUIDE)
    watcher.poll(), watcher.poll()
    settle(local_deps, watcher)
    drop(local_deps, "sepsis.md", GUIDE + b"\nReassess volume status after the initial fluid bolus.\n")
    watcher.poll()
    assert [reply["status"] for reply in watcher.poll()] == ["started"]
    settle(local_deps, watcher)
    assert active_documents(local_deps) == [("sepsis", 2)]
    live = [d for d in local_deps.documents.list(limit=10) if d.status is DocumentStatus.ACTIVE]
    assert local_deps.index.count("sepsis") == live[0].chunk_count > 0  # version 2's chunks only


def test_a_restart_before_the_source_was_removed_ingests_nothing_again(
        local_deps: Dependencies, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    # killed before this watcher finished the file: without this, the poll that starts the ingestion may already
    # see its job (Register runs on the runner's thread) and remove the source, depending on the thread timing
    monkeypatch.setattr(watcher, "_finish_taken", lambda: None)
    path = drop(local_deps, "sepsis.md", GUIDE)
    watcher.poll(), watcher.poll()
    local_deps.pipelines.join()  # type: ignore[attr-defined]  # ingested; killed before the next poll
    assert path.exists()

    restarted = IncomingFolderWatcher(local_deps.settings.blob_dir)  # `make run` again
    restarted.poll()
    assert [reply["status"] for reply in restarted.poll()] == ["duplicate"]
    settle(local_deps, restarted)
    assert len(local_deps.jobs.list(limit=10)) == 1
    assert active_documents(local_deps) == [("sepsis", 1)]
    assert not path.exists()


def test_a_file_whose_queued_ingestion_died_with_the_server_is_ingested_after_a_restart(
        local_deps: Dependencies, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The trigger registered the job and replied "started", but the execution was only queued in memory when
    the server was killed: the job waits PENDING in the job store, and the restarted server's reconciliation
    re-drives it (the source file went once its job existed)."""
    runner = local_deps.pipelines
    with monkeypatch.context() as killed:
        killed.setattr(runner, "start", lambda pipeline, payload, name=None: f"queued:{name}")
        watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
        path = drop(local_deps, "sepsis.md", GUIDE)
        watcher.poll()
        assert [reply["status"] for reply in watcher.poll()] == ["started"]
    assert [job.state for job in local_deps.jobs.list(limit=10)] == [JobState.PENDING] and not path.exists()

    assert reconcile_once(local_deps) == 1  # the restarted server's start-up reconciliation
    restarted = IncomingFolderWatcher(local_deps.settings.blob_dir)
    settle(local_deps, restarted)
    assert active_documents(local_deps) == [("sepsis", 1)]
    assert [job.state for job in local_deps.jobs.list(limit=10)] == [JobState.COMPLETED]


def test_the_incoming_folder_exists_once_the_watcher_does(tmp_path: Path) -> None:
    watcher = IncomingFolderWatcher(tmp_path / "blobs")
    assert watcher.folder.is_dir() and watcher.folder == tmp_path / "blobs" / "incoming"


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
    settle(local_deps, watcher)
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
    settle(local_deps, watcher)
    assert active_documents(local_deps) == [("fine", 1)]


def test_a_passing_trigger_failure_is_tried_again_after_a_back_off(local_deps: Dependencies,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A store that was busy once (or a full backlog) must not leave the file in the folder for the server's
    life: it is taken again on its own, later, and ingested once."""
    import voiceassist_local.incoming as incoming

    real = incoming.invoke
    outages = iter([StoreUnavailable("the job store is busy"), Overloaded("the ingestion backlog is full")])

    def flaky(name: str, event: dict[str, Any], **options: Any) -> Any:
        outage = next(outages, None)
        if outage is not None:
            raise outage
        return real(name, event, **options)

    clock = [1000.0]  # the watcher's monotonic clock, moved by the test (no sleeping, no race)
    monkeypatch.setattr(incoming, "invoke", flaky)
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir, interval=2.0, clock=lambda: clock[0])
    drop(local_deps, "sepsis.md", GUIDE)
    watcher.poll()
    first = watcher.poll()
    assert [(r["status"], r["retry_in_s"]) for r in first] == [("failed", 4.0)]  # two polls
    clock[0] += 3.9
    assert watcher.poll() == []  # not before its back-off: no retry loop
    clock[0] += 0.1
    assert [(r["status"], r["retry_in_s"]) for r in watcher.poll()] == [("failed", 8.0)]  # doubled
    clock[0] += 8.0
    assert [r["status"] for r in watcher.poll()] == ["started"]
    settle(local_deps, watcher)
    assert active_documents(local_deps) == [("sepsis", 1)]
    assert not (watcher.folder / "sepsis.md").exists()


def test_a_trigger_killed_mid_way_holds_its_file_for_the_triggers_time_out_not_lambdas_maximum(
        local_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server killed inside the trigger leaves its idempotency record in progress; the restarted watcher's
    take waits until it expires, which must be the trigger's catalogue time-out (a minute), as on AWS, not the
    900 s the local runner gives a pipeline state (a 200-file drop killed mid-trigger stalled 15 minutes)."""
    import voiceassist.ingest.triggers as triggers

    def killed(*_: Any, **__: Any) -> Any:
        raise SystemExit("kill -9")  # not an Exception: Powertools keeps the record in progress, as a kill does

    monkeypatch.setattr(triggers, "start_ingestion", killed)
    watcher = IncomingFolderWatcher(local_deps.settings.blob_dir)
    drop(local_deps, "sepsis.md", GUIDE)
    watcher.poll()
    before = time.time()
    with pytest.raises(SystemExit):
        watcher.poll()
    with sqlite3.connect(local_deps.settings.db_path) as database:
        [(status, expires_ms)] = database.execute("SELECT status, in_progress_expiration FROM idempotency_records")
    assert status == "INPROGRESS" and TRIGGER_TIMEOUT_S == 60
    assert before + 50 <= expires_ms / 1000 <= time.time() + 60


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
    (watcher.folder / "passwd.txt").symlink_to(secret)

    assert watcher.poll() == [] and watcher.poll() == []
    assert any("not a regular file" in r.getMessage() for r in caplog.records)
