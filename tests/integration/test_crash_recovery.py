"""kill -9 of a `voiceassist serve` in the middle of ingestion, then a restart: nothing stays stuck. Jobs the
dead server left PENDING or RUNNING are re-driven at start-up and end COMPLETED, every document ends ACTIVE,
and a re-upload of the same content is then `unchanged` (it is indexed, not merely registered)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from voiceassist.composition import Dependencies
from voiceassist.models import JobState
from voiceassist.settings import Settings

# the kill comes right after the last upload's 202: all eight were still in flight when measured (24 proved no more,
# at half again the CPU: docs/benchmarks.md, "The test suite")
DOCUMENTS = 8
WORDS = ("renal", "hepatic", "dose", "adult", "infusion", "monitor", "clearance", "weekly", "plasma", "level")
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def document_text(n: int) -> str:
    sentences = [f"Zorbafen note {n} paragraph {p}: " + " ".join(WORDS[(n + p + i) % len(WORDS)] for i in range(40))
                 + "." for p in range(60)]
    return "\n\n".join(sentences)


def call(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


class Server:
    def __init__(self, data_dir: Path, *, watch: bool = False, log_level: str = "ERROR") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "VOICEASSIST_DATA_DIR": str(data_dir), "POWERTOOLS_LOG_LEVEL": log_level,
               "VOICEASSIST_LOCAL_GROUPS": "admin,clinician"}  # it uploads: an admin (a clinician by default)
        code = "import sys; from voiceassist_local.cli import main; sys.exit(main())"
        # the output goes to a file, not a pipe nobody reads while the server runs: a full pipe (64 KiB of
        # "recovered job" lines and warnings) would block the server's threads mid-ingestion
        # (appended: the server's writes land at the end whatever this side's read position)
        self.output = (data_dir.parent / f"server-{self.port}.log").open("a+")  # noqa: SIM115 - read by printed()
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--no-samples", "--port", str(self.port),
             *([] if watch else ["--no-watch"])],
            env=env, stdout=self.output, stderr=subprocess.STDOUT, text=True)

    def wait_ready(self, timeout_s: float = 180) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.printed()
            try:
                if call(f"{self.url}/v1/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.printed()

    def printed(self) -> str:
        """Everything the server printed so far (stdout and stderr)."""
        self.output.flush()
        self.output.seek(0)
        return self.output.read()


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "data"


def in_flight(data_dir: Path) -> list[str]:
    deps = Dependencies(Settings(data_dir=data_dir))
    return [j.job_id for state in (JobState.PENDING, JobState.RUNNING) for j in deps.jobs.list(state=state)]


def test_kill_9_mid_ingest_then_restart_leaves_nothing_stuck(data_dir: Path) -> None:
    first = Server(data_dir)
    try:
        first.wait_ready()
        for n in range(DOCUMENTS):
            status, accepted = call(f"{first.url}/v1/documents", "POST",
                                    {"filename": f"zorbafen-{n}.md", "text": document_text(n)})
            assert status == 202, accepted
        first.kill()
    finally:
        first.stop()
    stuck = in_flight(data_dir)
    assert stuck, "the kill came too late to leave any job in flight: the probe tested nothing"

    second = Server(data_dir)
    try:
        second.wait_ready()
        deadline = time.monotonic() + 300
        while in_flight(data_dir) and time.monotonic() < deadline:
            time.sleep(0.5)
        status, listed = call(f"{second.url}/v1/jobs?limit=500")
        assert status == 200
        jobs = {job["job_id"]: job for job in listed["jobs"]}
        assert {job["state"] for job in jobs.values()} == {"COMPLETED"}, [
            (j["job_id"], j["state"], j["reason"]) for j in jobs.values() if j["state"] != "COMPLETED"]
        # re-driven once: a RUNNING one spent an attempt, a PENDING one (it never ran) was put back
        assert all(jobs[job_id]["attempts"] + jobs[job_id]["requeues"] == 2 for job_id in stuck)
        _, documents = call(f"{second.url}/v1/documents?limit=500")
        assert len(documents["documents"]) == DOCUMENTS
        assert {d["status"] for d in documents["documents"]} == {"ACTIVE"}
        status, again = call(f"{second.url}/v1/documents", "POST", {"filename": "zorbafen-0.md",
                                                                    "text": document_text(0)})
        assert status == 200 and again["unchanged"] is True
    finally:
        output = second.stop()
    assert "recovered job" in output
