"""Ctrl-C (or SIGTERM) during `ingest` or `ingest-jsonl` stops cleanly: the documents under way finish, nothing
is FAILED for the interruption, what is left stays for a re-run of the same command, and the user is told."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import voiceassist_local.bulk as bulk
import voiceassist_local.cli.local as cli_local
from voiceassist_local.cli import main

from voiceassist.composition import Dependencies
from voiceassist.models import JobState


def notes(count: int, folder: Path) -> Path:
    folder.mkdir()
    for n in range(count):
        (folder / f"note{n}.md").write_text(f"# Note {n}\n\nAmoxicillin dosing note number {n} for adults.\n",
                                            encoding="utf-8")
    return folder


def test_ctrl_c_during_ingest_leaves_nothing_failed_and_a_rerun_finishes(
        local_deps: Dependencies, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(local_deps.settings.data_dir))
    monkeypatch.setattr(cli_local, "local_dependencies", lambda: local_deps)
    folder = notes(8, tmp_path / "notes")  # more than the runner's 4 at once: some are still queued

    def interrupted(*_args: Any, **_kwargs: Any) -> Any:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(cli_local, "wait_for_jobs", interrupted)
        assert main(["ingest", str(folder)]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "stopping:" in err
    [summary] = [line for line in err.splitlines() if line.startswith("interrupted: ")]
    assert "of 8 document(s) indexed" in summary and "run the same command again" in summary
    states = {job.state for job in local_deps.jobs.list(limit=20)}
    assert states <= {JobState.COMPLETED, JobState.PENDING}  # none FAILED, none left RUNNING

    local_deps.__dict__.pop("pipelines")  # the next run is a new process with its own runner
    assert main(["ingest", str(folder)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "8 completed"


def test_sigterm_during_ingest_jsonl_stops_cleanly_with_what_is_left(
        local_deps: Dependencies, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(local_deps.settings.data_dir))
    monkeypatch.setattr(cli_local, "local_dependencies", lambda: local_deps)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"d{n}", "title": f"Study {n}",
                                          "text": f"Metformin lowered HbA1c in cohort {n}."}) + "\n"
                              for n in range(30)), encoding="utf-8")
    accept = bulk.service.accept_upload
    calls = 0

    def accept_then_terminated(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 5:
            os.kill(os.getpid(), signal.SIGTERM)  # as `kill <pid>` would
        return accept(*args, **kwargs)

    monkeypatch.setattr(bulk.service, "accept_upload", accept_then_terminated)
    assert main(["ingest-jsonl", str(corpus)]) == 130
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert "interrupted:" in err and "document(s) left" in err and "run the same command again" in err
    states = [job.state for job in local_deps.jobs.list(limit=50)]
    assert JobState.RUNNING not in states and JobState.FAILED not in states
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back
