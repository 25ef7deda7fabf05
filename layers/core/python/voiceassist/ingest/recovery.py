"""Crash recovery of ingestion jobs: leases, heartbeats and reconciliation.

A PENDING or RUNNING job names the worker that last moved it (`worker`: host/pid/token) and when
(`updated_at`: every stage transition and progress update is a heartbeat). A job is stuck when:

- its worker is this process and this process's pipeline runner has no execution for it (the execution
  ended without moving the job, or was lost);
- its worker is another process on this host that no longer exists (killed: its executions died with it);
- otherwise, when it has been silent for longer than the lease (a worker elsewhere, or a hung one).

A stuck job is FAILED with a reason and re-driven (retried) while it has attempts left. A job stuck while PENDING
never ran (its execution had not reached Register Document, which moves it to RUNNING): it is put back without
spending an attempt (a requeue), so that a server killed three times during a long drop does not fail the
documents still waiting in its queue. A RUNNING one spends an attempt: it may be what stopped the worker (a
document that exhausts memory), and three such interruptions fail it with the reason. The local server
reconciles at start-up and periodically; `retry` accepts a stuck job as it accepts a FAILED one.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from voiceassist.errors import Conflict, InvalidTransition, NotFound
from voiceassist.models import MAX_JOB_ATTEMPTS, MAX_JOB_REQUEUES, IndexingJob, JobState, utc_now
from voiceassist.observability import logger

HOST = socket.gethostname()
WORKER = f"{HOST}/{os.getpid()}/{uuid.uuid4().hex[:12]}"  # this process; the token tells a reused pid apart
IN_FLIGHT = (JobState.PENDING, JobState.RUNNING)

# True: the caller knows an execution for this job is alive here; False: known dead; None: cannot tell.
Liveness = Callable[[IndexingJob], bool | None]


@dataclass(frozen=True)
class Recovery:
    job_id: str
    doc_id: str
    action: str  # "redriven", "requeued" (it never ran: no attempt spent) or "failed"
    reason: str


def stamp(job: IndexingJob) -> IndexingJob:
    """The job as this worker writes it: the heartbeat of a lease."""
    return job.model_copy(update={"worker": WORKER, "updated_at": utc_now()})


def worker_process_alive(worker: str | None) -> bool | None:
    """False when `worker` is a process of this host that has exited; None when it cannot be told here."""
    if not worker or worker.count("/") != 2:
        return None
    host, pid, _ = worker.split("/")
    if host != HOST or worker == WORKER or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return None
    return None  # some process has that pid: it may be the worker, or a reuse; the lease decides


def is_stuck(job: IndexingJob, *, lease_seconds: float, liveness: Liveness | None = None,
             now: datetime | None = None, any_worker: bool = False) -> bool:
    """`any_worker`: the liveness speaks for every job (Step Functions' DescribeExecution), not only this
    process's (the local runner knows only its own executions)."""
    if job.state not in IN_FLIGHT or job.unchanged:
        return False
    if (any_worker or job.worker == WORKER) and liveness is not None:
        alive = liveness(job)
        if alive is not None:
            return not alive
    if worker_process_alive(job.worker) is False:
        return True
    return (now or utc_now()) - job.updated_at > timedelta(seconds=lease_seconds)


def interrupted(job: IndexingJob) -> str:
    return (f"interrupted: the worker stopped while the job was {job.state.value} (no heartbeat since "
            f"{job.updated_at.isoformat(timespec='seconds')})")


def reconcile(jobs: Iterable[IndexingJob], *, lease_seconds: float, liveness: Liveness | None,
              fail: Callable[[IndexingJob, str], None], redrive: Callable[[IndexingJob, bool], None],
              registered: Callable[[IndexingJob], bool] = lambda job: True,
              any_worker: bool = False) -> list[Recovery]:
    """Fail every stuck job with a reason, then re-drive it while it has attempts left: `redrive(job, counted)`,
    counted False for a job that never ran (a requeue, which spends no attempt). A stuck job whose document was
    never written (`registered` False: a trigger killed between the two writes, since registration writes the job
    first) is left to that trigger's retry, which writes the document and takes the job over: a re-drive has no
    upload to read."""
    recovered: list[Recovery] = []
    now = utc_now()
    for job in jobs:
        if not is_stuck(job, lease_seconds=lease_seconds, liveness=liveness, now=now, any_worker=any_worker):
            continue
        if not registered(job):
            continue
        reason = interrupted(job)
        try:
            fail(job, reason)
            counted = job.state is JobState.RUNNING
            if job.attempts < MAX_JOB_ATTEMPTS if counted else job.requeues < MAX_JOB_REQUEUES:
                redrive(job, counted)
                recovered.append(Recovery(job.job_id, job.doc_id, "redriven" if counted else "requeued", reason))
            else:
                left = (f"no attempts left ({MAX_JOB_ATTEMPTS})" if counted
                        else f"put back {job.requeues} times without running ({MAX_JOB_REQUEUES})")
                recovered.append(Recovery(job.job_id, job.doc_id, "failed", f"{reason}; {left}"))
        except (Conflict, InvalidTransition, NotFound) as exc:  # another worker moved it first: theirs
            logger.info("job recovery skipped", extra={"job_id": job.job_id, "why": type(exc).__name__})
            continue
        logger.warning("ingest job recovered", extra={"job_id": job.job_id, "action": recovered[-1].action})
    return recovered
