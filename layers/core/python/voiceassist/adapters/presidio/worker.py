"""PhiDetector on Presidio in a worker process of its own: the detection runs beside the rest of a question.

Nothing heavy in a detection (spaCy, the recognizers' Python) releases the GIL, so on a thread it only takes turns
with the question's other steps. In a process of its own it runs on the other core: the local runtime starts it
when a question arrives (`begin`, query/read_ahead.py), and Detect PHI's `detect` of the same text collects it.

One worker process per parent process, started with "spawn" (a fork of a process running threads may inherit a
held lock) and reused; it builds the engine once (adapters/presidio/detector.py). The boundary is unchanged: the
text goes to a child process on the same machine, over a pipe, and only the verdict comes back. What can go
wrong fails closed in the wrapper (phi/detection.FailClosedDetector): a worker that dies fails the detections
waiting for it and is replaced on the next; a detection that outlives `timeout_s` fails, and its worker is killed
(unlike a thread, a process can be), so a hang does not hold up later questions.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool

from voiceassist.errors import DependencyError, DependencyTimeout, InvalidInput
from voiceassist.models import PhiResult
from voiceassist.observability import log_failure, stage_span
from voiceassist.settings import PhiMode

# A worker's start: a Python interpreter, Presidio's imports and the spaCy model (seconds; more on a busy machine).
START_TIMEOUT_S = 120.0
# Detections started ahead and never collected (a run that failed before Detect PHI) are dropped past this many.
MAX_PENDING = 32


def _engine_ready(model_name: str) -> int:
    from voiceassist.adapters.presidio.detector import build_analyzer

    build_analyzer(model_name)
    return os.getpid()


def _detect_in_worker(mode: str, model_name: str, text: str) -> PhiResult:
    from voiceassist.adapters.presidio.detector import PresidioPhiDetector

    return PresidioPhiDetector(mode=PhiMode(mode), model_name=model_name).detect(text)


class _Worker:
    """The one worker process of a model: started on first use (blocking: seconds), replaced in the background when
    it died or was killed; while a replacement starts, detections fail closed at once instead of waiting for it."""

    def __init__(self, model_name: str) -> None:
        self.model_name = model_name
        self._lock = threading.Lock()
        self._start_lock = threading.Lock()  # one start at a time
        self._pool: ProcessPoolExecutor | None = None
        self._restarting = False
        self.pid: int | None = None

    def pool(self) -> ProcessPoolExecutor:
        """The worker's pool, started now if there is none."""
        with self._start_lock:
            with self._lock:
                if self._pool is not None:
                    return self._pool
            pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            try:
                pid = pool.submit(_engine_ready, self.model_name).result(timeout=START_TIMEOUT_S)
            except BaseException:
                _stop(pool)
                raise
            with self._lock:
                self._pool, self.pid = pool, pid
            return pool

    def submit(self, mode: PhiMode, text: str) -> tuple[ProcessPoolExecutor, Future[PhiResult]]:
        with self._lock:
            pool, restarting = self._pool, self._restarting
        if pool is None:
            if restarting:
                raise DependencyError("the PHI worker process is being replaced")
            pool = self.pool()
        try:
            return pool, pool.submit(_detect_in_worker, mode.value, self.model_name, text)
        except RuntimeError:  # the pool broke (its process died) since it was started
            self.replace(pool)
            raise DependencyError("the PHI worker process had ended; a new one is starting") from None

    def replace(self, pool: ProcessPoolExecutor, *, kill: bool = False) -> None:
        """Drop `pool` if it is still the current one (killing its process first when asked) and start another
        on a thread of its own."""
        with self._lock:
            if self._pool is not pool:
                return
            if kill and self.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
            self._pool, self.pid, self._restarting = None, None, True
        _stop(pool)
        threading.Thread(target=self._restart, name="phi-worker-start", daemon=True).start()

    def _restart(self) -> None:
        try:
            self.pool()
        except Exception as exc:  # noqa: BLE001 - the next detection starts one itself, or fails closed
            log_failure("the PHI worker process could not be replaced", exc)
        finally:
            with self._lock:
                self._restarting = False

    def current(self) -> ProcessPoolExecutor | None:
        return self._pool

    def close(self) -> None:
        with self._lock:
            pool, self._pool, self.pid = self._pool, None, None
        if pool is not None:
            _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    pool.shutdown(wait=False, cancel_futures=True)


_workers: dict[str, _Worker] = {}
_workers_lock = threading.Lock()


def worker_for(model_name: str) -> _Worker:
    with _workers_lock:
        return _workers.setdefault(model_name, _Worker(model_name))


def worker_pids() -> list[int]:
    """The worker processes running now (bench/query.py adds their CPU to a question's)."""
    with _workers_lock:
        return [worker.pid for worker in _workers.values() if worker.pid is not None]


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()  # the pending map holds no question


class WorkerPhiDetector:
    """Presidio's detection (PresidioPhiDetector's, in `mode`) in the worker process; wrap it in FailClosedDetector."""

    def __init__(self, *, mode: PhiMode = PhiMode.STRICT, model_name: str | None = None,
                 timeout_s: float = 2.0) -> None:
        from voiceassist.adapters.presidio.detector import DEFAULT_SPACY_MODEL, SCORE_THRESHOLDS

        if mode not in SCORE_THRESHOLDS:
            raise InvalidInput(f"WorkerPhiDetector needs mode strict or lenient, not {mode}")
        if timeout_s <= 0:
            raise InvalidInput(f"timeout_s must be positive, got {timeout_s}")
        self.mode = mode
        self.timeout_s = timeout_s
        self.worker = worker_for(model_name or DEFAULT_SPACY_MODEL)
        # per text (by hash): the detections begun ahead, each with its pool, its future and when it began
        self._pending: OrderedDict[bytes, list[tuple[ProcessPoolExecutor, Future[PhiResult], float]]] = OrderedDict()
        self._lock = threading.Lock()

    def load(self) -> None:
        """Start the worker and build its engine now (seconds); errors propagate (the wrapper fails them closed)."""
        self.worker.pool()

    def begin(self, text: str) -> None:
        """Start detecting `text` now; the next detect(text) collects the verdict instead of asking again."""
        begun = time.perf_counter()
        pool, future = self.worker.submit(self.mode, text)
        with self._lock:
            self._pending.setdefault(_key(text), []).append((pool, future, begun))
            while len(self._pending) > MAX_PENDING:
                self._pending.popitem(last=False)

    def detect(self, text: str) -> PhiResult:
        key = _key(text)
        with self._lock:
            started = self._pending.get(key)
            begun_ahead = started.pop(0) if started else None
            if started is not None and not started:
                del self._pending[key]
        if begun_ahead is None:
            pool, future = self.worker.submit(self.mode, text)
        else:
            pool, future, begun = begun_ahead
        try:
            result = future.result(timeout=self.timeout_s)
            if begun_ahead is not None:  # its wall as the caller saw it: from begin to the verdict in hand
                stage_span("detect_phi_ahead", begun, time.perf_counter())
            return result
        except FutureTimeout:
            # the worker is stuck in this detection or behind another: killed, so the next question gets a new one
            self.worker.replace(pool, kill=True)
            raise DependencyTimeout(f"PHI detection in the worker process took over {self.timeout_s:g} s") from None
        except BrokenProcessPool:
            self.worker.replace(pool)
            raise

    def close(self) -> None:
        self.worker.close()
