"""The local server's job reconciliation: once at start-up (a killed server left PENDING or RUNNING jobs that no
execution will ever move), then periodically (a `voiceassist ingest` killed beside the server)."""

from __future__ import annotations

import threading

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.observability import log_failure, logger


def reconcile_once(deps: Dependencies) -> int:
    recovered = service.reconcile_jobs(deps)
    for item in recovered:
        print(f"recovered job {item.job_id} ({item.action}): {item.reason}", flush=True)
    return len(recovered)


class JobReconciler:
    """Reconciles every `interval_s` seconds in a daemon thread until stop()."""

    def __init__(self, deps: Dependencies, *, interval_s: float | None = None) -> None:
        self._deps = deps
        self._interval = interval_s or max(5.0, min(60.0, deps.settings.job_lease_seconds / 2))
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="job-reconciler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stopping.wait(self._interval):
            try:
                reconcile_once(self._deps)
            except Exception as exc:  # a store outage must not end reconciliation for good
                log_failure("job reconciliation failed", exc)
        logger.debug("job reconciler stopped")
