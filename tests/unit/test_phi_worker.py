"""WorkerPhiDetector: Presidio's detection in a worker process of its own, run for real (the worker is spawned
once for the module and shared, as in a server). Every way the worker can fail fails the detection closed."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool

import pytest

from voiceassist.adapters.presidio.detector import PresidioPhiDetector
from voiceassist.adapters.presidio.worker import WorkerPhiDetector, worker_pids
from voiceassist.phi import FailClosedDetector
from voiceassist.phi.detection import WITHHELD
from voiceassist.settings import PhiMode

PHI_QUESTION = "Patient John Smith, MRN 4417823, DOB 03/04/1961: what is the maximum daily dose of metformin?"
PHI_FREE = "What is the maximum daily dose of metformin in adults with normal renal function?"
# Generous: the worker (a Python interpreter, Presidio, the spaCy model) starts in seconds, more on a busy CI machine.
SLOW_MACHINE_S = 60.0


@pytest.fixture(scope="module")
def worker_detector() -> Iterator[WorkerPhiDetector]:
    detector = WorkerPhiDetector(timeout_s=SLOW_MACHINE_S)
    detector.load()
    yield detector
    detector.close()


@pytest.mark.parametrize("mode", [PhiMode.STRICT, PhiMode.LENIENT])
@pytest.mark.parametrize("text", [PHI_QUESTION, PHI_FREE, "Mrs. Garcia, born 02/11/1950, has hypertension."])
def test_phi_worker_finds_what_the_detector_in_this_process_finds(worker_detector: WorkerPhiDetector,
                                                                  mode: PhiMode, text: str) -> None:
    in_worker = WorkerPhiDetector(mode=mode, timeout_s=SLOW_MACHINE_S).detect(text)

    assert in_worker == PresidioPhiDetector(mode=mode).detect(text)
    assert worker_pids() and os.getpid() not in worker_pids()


def test_phi_worker_detect_collects_the_detection_begun_ahead(worker_detector: WorkerPhiDetector,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    worker_detector.begin(PHI_QUESTION)
    asked: list[str] = []
    submit = worker_detector.worker.submit
    monkeypatch.setattr(worker_detector.worker, "submit", lambda mode, text: asked.append(text) or submit(mode, text))

    first = worker_detector.detect(PHI_QUESTION)
    second = worker_detector.detect(PHI_QUESTION)  # nothing begun for it any more: asked again

    assert first.contains_phi and "<PERSON>" in first.redacted_text and "4417823" not in first.redacted_text
    assert second == first
    assert asked == [PHI_QUESTION]


def test_phi_worker_dying_during_a_detection_fails_it_closed_and_is_replaced(
        worker_detector: WorkerPhiDetector) -> None:
    # Given a detection begun ahead, queued behind a task that ends the worker process
    dead_pid = worker_pids()[0]
    dying = worker_detector.worker.pool().submit(os._exit, 1)
    worker_detector.begin(PHI_QUESTION)
    with pytest.raises(BrokenProcessPool):
        dying.result(timeout=SLOW_MACHINE_S)

    # When Detect PHI collects it
    result = FailClosedDetector(worker_detector, timeout_s=SLOW_MACHINE_S).detect(PHI_QUESTION)

    # Then it counts as PHI and hides the whole text; a new worker starts, and detects
    assert (result.contains_phi, result.redacted_text) == (True, WITHHELD)
    assert result.error == "PHI detector failed (BrokenProcessPool)"
    replacement = _replacement_of(dead_pid)
    assert worker_detector.detect(PHI_FREE).contains_phi is False
    assert worker_pids() == [replacement]


def test_phi_worker_being_replaced_fails_detections_closed_at_once(worker_detector: WorkerPhiDetector) -> None:
    # Given a worker that has just ended (its replacement starts on a thread, in seconds), under a wrapper already
    # loaded, as the deployment's is after its first detection
    wrapped = FailClosedDetector(worker_detector, timeout_s=SLOW_MACHINE_S)
    wrapped.load()
    dead_pid = worker_pids()[0]
    dying = worker_detector.worker.pool().submit(os._exit, 1)
    with pytest.raises(BrokenProcessPool):
        dying.result(timeout=SLOW_MACHINE_S)
    worker_detector.worker.replace(dying_pool := worker_detector.worker.current())  # type: ignore[arg-type]
    assert dying_pool is not None

    # When a detection is asked meanwhile, Then it fails closed without waiting for the start (or, on a machine
    # that started the replacement already, is detected there)
    result = wrapped.detect(PHI_QUESTION)

    assert result.contains_phi and "4417823" not in result.redacted_text
    _replacement_of(dead_pid)


def test_phi_worker_past_its_time_limit_fails_closed_and_its_worker_is_killed(
        worker_detector: WorkerPhiDetector) -> None:
    # Given a worker busy far longer than the detection's limit
    worker_detector.worker.pool().submit(time.sleep, 10 * SLOW_MACHINE_S)
    stuck_pid = worker_pids()[0]
    hurried = WorkerPhiDetector(timeout_s=0.5)

    # When a detection waits for it
    result = FailClosedDetector(hurried, timeout_s=0.5).detect(PHI_QUESTION)

    # Then it fails closed, the stuck worker is gone, and the next detection runs in a new one
    assert (result.contains_phi, result.redacted_text) == (True, WITHHELD)
    # (the wrapper's limit or the worker detector's own, whichever the scheduler lets fire first)
    assert result.error in ("PHI detector timed out after 0.5 s", "PHI detector failed (DependencyTimeout)")
    deadline = time.monotonic() + SLOW_MACHINE_S
    while _alive(stuck_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(stuck_pid)
    _replacement_of(stuck_pid)
    assert worker_detector.detect(PHI_FREE).contains_phi is False


def test_phi_worker_that_cannot_build_its_engine_fails_every_detection_closed() -> None:
    detector = FailClosedDetector(WorkerPhiDetector(model_name="no_such_spacy_model", timeout_s=SLOW_MACHINE_S),
                                  timeout_s=SLOW_MACHINE_S)

    result = detector.detect(PHI_FREE)

    assert (result.contains_phi, result.redacted_text) == (True, WITHHELD)
    assert result.error == "PHI detector could not load (DependencyError)"


def _replacement_of(pid: int) -> int:
    """The worker started in place of `pid`, once it is up (its start is not timed: it takes what it takes)."""
    deadline = time.monotonic() + SLOW_MACHINE_S
    while worker_pids() in ([], [pid]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert worker_pids() not in ([], [pid])
    return worker_pids()[0]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a killed child not yet reaped is a zombie: gone for our purpose
        return stat.read().split(") ")[1][0] != "Z"
