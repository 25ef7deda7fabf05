"""The local stand-in for S3 -> EventBridge: files dropped into the blob folder's incoming/ start ingestion.

On AWS an object written under incoming/ emits one "Object Created" event, which the ingest_trigger Lambda
turns into one execution per object version. Locally `voiceassist serve` runs this watcher over
`<data>/blobs/incoming/` (created at start-up). A file is taken once its size and modification time held
still from one poll to the next (S3 announces an object only once it is complete; a folder has no such moment):

1. it is read once, from the descriptor that passed the checks (checked_read.py: no symlink anywhere on its
   path, a regular file with one link, not empty, within the upload limit);
2. its bytes are stored as `incoming/.accepted/<id>/document<ext>`, the shape of a presigned upload: the key
   names no file (a file name may hold PHI), the name travels as the object's `filename` metadata and an
   operator's sidecar `<file>.meta.json` beside it; `<id>` is a hash of the name and the content, so taking
   the same file again (after a crash) gives the same object, execution name and job;
3. the real ingest_trigger handler is called with the event EventBridge would send for that object: it
   registers the object (its job) and starts the execution with the job's ids (ingest/triggers.py);
4. the file counts as done only once its job exists in the job store. Then the source file is removed from
   incoming/ (only if it is still the file that was read); Screen Metadata moves the stored copy to a key
   without its name, as it does any upload on AWS (ingest/settling.py), and a copy stored again after a
   restart, of a file whose document has moved already, is deleted. Until then the source stays, and is taken
   again after a restart.

So `kill -9` at any moment loses nothing and ingests nothing twice: a file whose trigger replied with no job
behind it (the idempotency record says "duplicate", no job exists, no execution of it runs here) is registered
and started again under the same execution name; a job left PENDING or RUNNING (its execution died with the
process, or never started) is re-driven by the job reconciler (recovery.py). A file that fails (a broken
sidecar, an empty file registration refuses) stays where it is, logged by a hash of its name, and is tried
again when it changes or at the next start. A file whose trigger failed for a passing reason (a store busy or
unavailable, a full backlog, an unexpected error) is tried again on its own, after a back-off that doubles
from two polls up to five minutes, as EventBridge retries a delivery; nothing but a change or a restart
would otherwise take it again, and a long-running server would leave it in the folder for good.
"""

from __future__ import annotations

import hashlib
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyAlreadyInProgressError

from voiceassist.adapters.local.folder_blobs import FolderBlobStore
from voiceassist.constants.functions import FUNCTIONS_BY_NAME
from voiceassist.errors import ExtractionError, Forbidden, InvalidInput, NotFound, PhiBoundaryViolation
from voiceassist.ingest.registration import registration_job_id
from voiceassist.ingest.stages import INCOMING_PREFIX
from voiceassist.ingest.triggers import (
    FILENAME_FIELD,
    SIDECAR_SUFFIX,
    ObjectVersion,
    object_created_event,
    start_ingestion,
)
from voiceassist.observability import logger
from voiceassist_local.asl_runner import execution_arn
from voiceassist_local.checked_read import CheckedFile, Refused, read_checked
from voiceassist_local.handlers import invoke

POLL_SECONDS = 2.0
LOCAL_BUCKET = "local-documents"
TRIGGER_FUNCTION = "ingest_trigger"
# The trigger's context reports its catalogue time-out, as Lambda's does: Powertools keeps a killed trigger's
# in-progress record that long, so a file taken by a server killed mid-trigger waits a minute after the restart
# (with Lambda's 900 s maximum it waited 15 minutes)
TRIGGER_TIMEOUT_S = float(FUNCTIONS_BY_NAME[TRIGGER_FUNCTION].timeout_seconds or 60)
ACCEPTED_FOLDER = ".accepted"  # hidden: the scan skips it, and it is under incoming/ as the trigger requires
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
MAX_BACKOFF_SECONDS = 300.0
# what the same bytes would meet again: a file failed with one of these waits for a change (or a restart)
LASTING_FAILURES = (InvalidInput, Forbidden, PhiBoundaryViolation, ExtractionError)

Stamp = tuple[int, int]  # (size, mtime_ns): a file that keeps its stamp between two polls is complete


def key_hash(key: str) -> str:
    """What the logs carry instead of a file's key: the file name is screened for PHI only after registration."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def accepted_key(relative: str, etag: str) -> str:
    """Where a dropped file's bytes are stored: hashes and the extension only."""
    digest = hashlib.sha256(f"{relative}\n{etag}".encode()).hexdigest()[:32]
    suffix = "".join(c for c in PurePosixPath(relative).suffix.lower() if c.isalnum() or c == ".")[:10]
    return f"{INCOMING_PREFIX}{ACCEPTED_FOLDER}/{digest}/document{suffix}"


@dataclass(frozen=True)
class Taken:
    """A file read and announced, not yet done (its job does not exist yet)."""

    relative: str
    checked: CheckedFile
    key: str  # the stored copy's blob key
    execution_id: str

    @property
    def job_id(self) -> str:
        return registration_job_id(self.execution_id)


class IncomingFolderWatcher:
    """Takes the files under `blob_root/incoming/` (see the module's docstring); `poll()` is one pass."""

    def __init__(self, blob_root: Path, *, bucket: str = LOCAL_BUCKET, interval: float = POLL_SECONDS,
                 max_bytes: int | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.blob_root = blob_root
        self._clock = clock  # for the back-off of passing failures
        self.folder = blob_root / INCOMING_PREFIX
        self.folder.mkdir(parents=True, exist_ok=True)  # the banner names it: `cp` into it must work at once
        self.bucket = bucket
        self.interval = interval
        self.max_bytes = max_bytes
        self._blobs = FolderBlobStore(blob_root)
        self._seen: dict[str, Stamp] = {}  # stamps at the previous poll
        self._settled: dict[str, Stamp] = {}  # taken or failed with this stamp: not taken again until it changes
        self._taken: dict[str, Taken] = {}
        self._refused: set[str] = set()
        self._failures: dict[str, tuple[int, float]] = {}  # passing failures: (how many, monotonic retry time)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poll(self) -> list[dict[str, Any]]:
        """Take every file that is complete and not yet taken with its current stamp, then finish the taken
        files whose job exists; returns the trigger's replies (started, duplicate, failed or refused)."""
        current = dict(self._incoming_files())
        replies = []
        now = self._clock()
        for key, stamp in sorted(current.items()):
            if self._seen.get(key) == stamp and self._settled.get(key) != stamp and self._due(key, now):
                reply = self._take(key, stamp)
                if reply is not None:
                    replies.append(reply)
        self._seen = current
        for key in set(self._settled) - set(current):  # gone: a file put back later is new again
            del self._settled[key]
        for key in set(self._failures) - set(current):
            del self._failures[key]
        self._finish_taken()
        return replies

    @property
    def pending(self) -> int:
        """Files taken whose job does not exist yet."""
        return len(self._taken)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="incoming-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.poll()
            except Exception:  # a folder that vanished or cannot be read: keep watching, say why
                logger.exception("incoming folder scan failed", extra={"folder": str(self.folder)})

    def _incoming_files(self) -> list[tuple[str, Stamp]]:
        if not self.folder.is_dir():
            return []
        files = []
        for path in self.folder.rglob("*"):
            relative = path.relative_to(self.folder)
            if any(part.startswith(".") for part in relative.parts) or path.name.endswith(SIDECAR_SUFFIX):
                continue  # stored copies, temporary files of an atomic write, hidden files, and metadata sidecars
            try:
                status = path.lstat()  # a first look; the read itself checks what it opened (checked_read.py)
            except FileNotFoundError:  # removed since the listing
                continue
            if stat.S_ISREG(status.st_mode):
                files.append((relative.as_posix(), (status.st_size, status.st_mtime_ns)))
            elif not stat.S_ISDIR(status.st_mode) and relative.as_posix() not in self._refused:
                self._refused.add(relative.as_posix())
                logger.warning("incoming entry refused: not a regular file (symlinks and devices are never "
                               "ingested)", extra={"key_sha256": key_hash(relative.as_posix())})
        return files

    # ---- taking one file -----------------------------------------------------------------------------------
    def _take(self, relative: str, stamp: Stamp) -> dict[str, Any] | None:
        key = INCOMING_PREFIX + relative
        try:
            checked = read_checked(self.folder, relative, max_bytes=self._max_bytes())
            sidecar = self._sidecar(relative)
        except Refused as refused:
            self._settled[relative] = stamp
            logger.warning("incoming file refused", extra={"key_sha256": key_hash(key), "reason": str(refused)})
            return {"status": "refused", "key": key, "reason": str(refused)}
        etag = hashlib.md5(checked.data, usedforsecurity=False).hexdigest()
        stored = accepted_key(relative, etag)
        self._blobs.put(stored, checked.data,
                        metadata={FILENAME_FIELD: quote(PurePosixPath(relative).name, safe="")})
        if sidecar is not None:
            self._blobs.put(stored + SIDECAR_SUFFIX, sidecar.data, content_type="application/json")
        version = ObjectVersion(bucket=self.bucket, key=stored, etag=etag)
        taken = Taken(relative, checked, stored, execution_arn("ingest", version.execution_name))
        try:
            reply: dict[str, Any] = invoke(TRIGGER_FUNCTION,
                                           object_created_event(self.bucket, stored, etag, checked.size),
                                           timeout_s=TRIGGER_TIMEOUT_S)
        except IdempotencyAlreadyInProgressError:  # a trigger of a killed server, in progress for a minute more
            return None  # taken again at a later poll
        except LASTING_FAILURES as exc:  # on AWS the event would go to the dead-letter queue after its retries
            self._settled[relative] = stamp
            # logged by type and key hash: a file name (and a message quoting it) may hold PHI
            logger.warning("incoming file not ingested: change or touch it to try again",
                           extra={"key_sha256": key_hash(key), "error_type": type(exc).__name__})
            return {"status": "failed", "key": key, "reason": f"{type(exc).__name__}: {exc}"}
        except Exception as exc:  # a passing failure: tried again after a back-off, as EventBridge retries
            delay = self._back_off(relative)
            logger.warning("incoming file not ingested yet: tried again after a back-off",
                           extra={"key_sha256": key_hash(key), "error_type": type(exc).__name__,
                                  "retry_in_s": round(delay, 1)})
            return {"status": "failed", "key": key, "reason": f"{type(exc).__name__}: {exc}", "retry_in_s": delay}
        self._settled[relative] = stamp
        self._failures.pop(relative, None)
        if reply.get("status") == "duplicate" and not self._job_exists(taken) and self._lost(taken):
            reply = start_ingestion(self._deps(), uploaded=version)  # lost with an earlier server
            logger.warning("incoming file recovered: its ingestion was lost with a stopped server",
                           extra={"key_sha256": key_hash(key)})
        if reply.get("status") == "refused":  # registration refused it (an empty file): it stays, as refused
            logger.warning("incoming file refused", extra={"key_sha256": key_hash(key), "reason": reply["reason"]})
            return {**reply, "key": key}
        self._taken[relative] = taken
        logger.info("incoming file announced", extra={"key_sha256": key_hash(key), "status": reply.get("status")})
        return {**reply, "key": key}

    def _due(self, relative: str, now: float) -> bool:
        failed = self._failures.get(relative)
        return failed is None or now >= failed[1]

    def _back_off(self, relative: str) -> float:
        """Record one more passing failure of a file; the seconds until it is tried again (doubling from two
        polls, at most MAX_BACKOFF_SECONDS)."""
        count = self._failures.get(relative, (0, 0.0))[0] + 1
        delay = min(MAX_BACKOFF_SECONDS, 2 * self.interval * 2 ** (count - 1))
        self._failures[relative] = (count, self._clock() + delay)
        return delay

    def _sidecar(self, relative: str) -> CheckedFile | None:
        if not (self.folder / (relative + SIDECAR_SUFFIX)).exists():
            return None
        return read_checked(self.folder, relative + SIDECAR_SUFFIX, max_bytes=64 * 1024)

    def _finish_taken(self) -> None:
        """A taken file whose job exists is done: its stored copy loses the file name, the source goes."""
        for relative, taken in list(self._taken.items()):
            if not self._job_exists(taken):
                if self._ended(taken) and not self._job_exists(taken):  # registration refused it: it stays
                    del self._taken[relative]
                    logger.warning("incoming file not ingested: its registration failed (see the job log)",
                                   extra={"key_sha256": key_hash(INCOMING_PREFIX + relative)})
                continue
            self._discard_stale_copy(taken)
            for name in (relative, relative + SIDECAR_SUFFIX):
                self._remove_if_unchanged(name, taken.checked if name == relative else None)
            del self._taken[relative]

    def _discard_stale_copy(self, taken: Taken) -> None:
        """The stored copy of a file taken again after a restart, when its document was moved out of incoming/
        already (its screen ran): nothing reads it, and it carries the file name."""
        deps = self._deps()
        try:
            document = deps.documents.get(deps.jobs.get(taken.job_id).doc_id)
        except NotFound:
            return
        if document.blob_key != taken.key:
            self._blobs.delete(taken.key + SIDECAR_SUFFIX)
            self._blobs.delete(taken.key)

    def _remove_if_unchanged(self, relative: str, checked: CheckedFile | None) -> None:
        path = self.folder / relative
        try:
            status = path.lstat()
        except FileNotFoundError:
            return
        if checked is None or checked.is_same_file(status):  # a file replaced meanwhile is a new drop: kept
            path.unlink(missing_ok=True)

    # ---- the job store and the runner ------------------------------------------------------------------------
    def _deps(self) -> Any:
        from voiceassist.composition import dependencies

        return dependencies()

    def _max_bytes(self) -> int:
        return self.max_bytes or int(self._deps().settings.max_upload_bytes)

    def _job_exists(self, taken: Taken) -> bool:
        try:
            self._deps().jobs.get(taken.job_id)
        except NotFound:
            return False
        return True

    def _lost(self, taken: Taken) -> bool:
        """No execution of this name in this process: the one the trigger started died with a killed server."""
        return self._execution_status(taken) is None

    def _ended(self, taken: Taken) -> bool:
        return self._execution_status(taken) != "RUNNING"

    def _execution_status(self, taken: Taken) -> str | None:
        """The status of the execution the trigger started, or None when this process has none of that name."""
        try:
            return str(self._deps().pipelines.describe(taken.execution_id).status)
        except NotFound:
            return None
