"""The bucket is the trigger's durable queue: a scheduled sweep of incoming/ starts every upload whose event
was lost, so the trigger needs no dead-letter queue holding raw keys (decision 0028).

An upload's "Object Created" event reaches the trigger through EventBridge (4 retries, up to 6 hours) and
Lambda's asynchronous invocation (2 retries). An event that fails all of them used to wait in the trigger's
dead-letter queue for 14 days with its key, which may be a patient's file name; a queue of hashes could not be
redriven (the key is what a redrive needs). Instead, the job reconciler (functions/ingest_reconcile, every five
minutes) lists incoming/ and hands every upload that has waited `SETTLE` (and is younger than `MAX_AGE`) to the
trigger's own idempotent start (`triggers.handle_object_created`, with the event S3 would have sent):

- an upload the trigger handled already finds its idempotency record and is a `duplicate` (nothing started);
- one whose event was lost, or whose every delivery failed, is registered and started, once: a delivery of the
  trigger running at the same moment meets the sweep's in-progress record (or the sweep meets its), and the
  execution name, derived from the same object version, refuses a second execution for 90 days;
- an upload that fails is logged by a hash of its key and tried again at the next sweep, as a retry would.

`MAX_AGE` is under the idempotency record's 30 days, so an upload left in incoming/ (a failed job's, which the
job reconciler owns) is never started again once its record has expired. A sweep starts at most `MAX_STARTS`
uploads and stops while its function still has the trigger's time-out left, so one run stays bounded; the rest
wait for the next. Logs and replies name uploads by the SHA-256 of their key only.

Locally the incoming folder's watcher (local/voiceassist_local/incoming.py) rescans the folder at every poll
and after a restart, which is the same rule: the folder is the queue, and no event can be lost.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyAlreadyInProgressError

from voiceassist.ingest.settling import SIDECAR_SUFFIX
from voiceassist.ingest.stages import INCOMING_PREFIX
from voiceassist.ingest.triggers import (
    IDEMPOTENCY_TTL_SECONDS,
    TriggerDependencies,
    handle_object_created,
    object_created_event,
)
from voiceassist.observability import logger

if TYPE_CHECKING:
    from voiceassist.ports import StoredUpload, UploadListing

# An event reaches the trigger within seconds, and EventBridge's first retries within minutes: an upload that
# old with no idempotency record had its event lost (or is being retried: the record settles the race).
SETTLE = timedelta(minutes=10)
# Under the trigger's idempotency record (30 days) by a day: an older upload's record may be gone.
MAX_AGE = timedelta(seconds=IDEMPOTENCY_TTL_SECONDS) - timedelta(days=1)
MAX_STARTS = 25  # uploads registered and started per sweep; the rest wait five minutes for the next
TRIGGER_SECONDS = 60.0  # the trigger's catalogue time-out: one upload's registration reads it whole


@dataclass(frozen=True)
class Swept:
    """What the sweep did with one upload, named by the SHA-256 of its key."""

    key_sha256: str
    status: str  # the trigger's (started, duplicate, unchanged, refused, ignored), "in progress" or "failed"
    job_id: str | None = None
    reason: str | None = None


def due(upload: StoredUpload, now: datetime, settle: timedelta = SETTLE, max_age: timedelta = MAX_AGE) -> bool:
    """An upload the sweep takes: a document under incoming/ (no sidecar, no folder marker) that has waited
    `settle` and is younger than `max_age`."""
    age = now - upload.modified
    return (upload.key.startswith(INCOMING_PREFIX) and not upload.key.endswith(("/", SIDECAR_SUFFIX))
            and settle <= age <= max_age)


def sweep_uploads(deps: TriggerDependencies, listing: UploadListing, *, now: datetime,
                  seconds_left: Callable[[], float] | None = None, lambda_context: Any = None,
                  max_starts: int = MAX_STARTS) -> list[Swept]:
    """Hand every due upload under incoming/ to the trigger's idempotent start (see the module)."""
    swept: list[Swept] = []
    started = 0
    for upload in listing.uploads(INCOMING_PREFIX):
        if not due(upload, now):
            continue
        if started >= max_starts or (seconds_left is not None and seconds_left() < TRIGGER_SECONDS):
            logger.warning("upload sweep stopped: the rest wait for the next run",
                           extra={"started": started, "examined": len(swept)})
            break
        outcome = _start(deps, listing.bucket, upload, lambda_context)
        started += outcome.status == "started"
        swept.append(outcome)
    if any(s.status not in ("duplicate", "ignored") for s in swept):
        logger.info("upload sweep", extra={"uploads": [s.__dict__ for s in swept if s.status != "duplicate"]})
    return swept


def _start(deps: TriggerDependencies, bucket: str, upload: StoredUpload, lambda_context: Any) -> Swept:
    key_sha256 = hashlib.sha256(upload.key.encode("utf-8")).hexdigest()
    event = object_created_event(bucket, upload.key, upload.etag, upload.size)
    try:
        reply = handle_object_created(deps, event, lambda_context=lambda_context)
    except IdempotencyAlreadyInProgressError:  # a delivery of the trigger (or another sweep) holds it now
        return Swept(key_sha256, "in progress")
    except Exception as exc:  # noqa: BLE001 - one upload's failure must not stop the sweep; retried next run
        logger.warning("upload sweep: the upload failed", extra={"key_sha256": key_sha256,
                                                                  "error": type(exc).__name__})
        return Swept(key_sha256, "failed", reason=type(exc).__name__)
    return Swept(key_sha256, str(reply.get("status")), job_id=reply.get("job_id"), reason=reply.get("reason"))
