"""The local stand-in for S3 -> EventBridge: files dropped into the blob folder's incoming/ start ingestion.

On AWS an object written under incoming/ emits one "Object Created" event, which the ingest_trigger Lambda
turns into one execution per object version. Locally `voiceassist serve` runs this watcher: it polls
`<data>/blobs/incoming/` and, for each file that is new or changed, calls the same ingest_trigger handler
with the event EventBridge would send. The idempotency records (SQLite) and the content-hash registration
make it as safe as on AWS: a restart re-announces every file, and each is answered as a duplicate or as
unchanged, so nothing is ingested twice.

S3 announces an object only once it is complete; a folder has no such moment, so a file is announced once
its size and modification time held still from one poll to the next (a copy in progress waits). Its ETag is
the MD5 of its bytes, as S3 gives a single-part upload. As on S3, a sidecar `<file>.meta.json` must be in
place before its file is; changing a file (or touching it) announces it again.
"""

from __future__ import annotations

import hashlib
import stat
import threading
from pathlib import Path
from typing import Any

from voiceassist.ingest.stages import INCOMING_PREFIX
from voiceassist.ingest.triggers import SIDECAR_SUFFIX, object_created_event
from voiceassist.observability import logger
from voiceassist_local.handlers import invoke

POLL_SECONDS = 2.0
LOCAL_BUCKET = "local-documents"
TRIGGER_FUNCTION = "ingest_trigger"

Stamp = tuple[int, int]  # (size, mtime_ns): a file that keeps its stamp between two polls is complete


def key_hash(key: str) -> str:
    """What the logs carry instead of a file's key: the file name is screened for PHI only after registration."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


class IncomingFolderWatcher:
    """Announces the files under `blob_root/incoming/` to ingest_trigger; `poll()` is one pass."""

    def __init__(self, blob_root: Path, *, bucket: str = LOCAL_BUCKET, interval: float = POLL_SECONDS) -> None:
        self.blob_root = blob_root
        self.folder = blob_root / INCOMING_PREFIX
        self.bucket = bucket
        self.interval = interval
        self._seen: dict[str, Stamp] = {}  # stamps at the previous poll
        self._announced: dict[str, Stamp] = {}
        self._refused: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poll(self) -> list[dict[str, Any]]:
        """Announce every file that is complete and not yet announced with its current stamp; returns the
        trigger's replies (started, duplicate, or failed with the reason)."""
        current = dict(self._incoming_files())
        replies = []
        for key, stamp in sorted(current.items()):
            if self._seen.get(key) == stamp and self._announced.get(key) != stamp:
                self._announced[key] = stamp
                replies.append(self._announce(key, stamp))
        self._seen = current
        for key in set(self._announced) - set(current):  # deleted: a file put back later is new again
            del self._announced[key]
        return replies

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
            relative = path.relative_to(self.blob_root)
            if any(part.startswith(".") for part in relative.parts) or path.name.endswith(SIDECAR_SUFFIX):
                continue  # temporary files of an atomic write, hidden files, and metadata sidecars
            try:
                status = path.lstat()  # a symlink is refused, never followed (a link to /etc/passwd is not a document)
            except FileNotFoundError:  # removed since the listing
                continue
            if stat.S_ISREG(status.st_mode):
                files.append((relative.as_posix(), (status.st_size, status.st_mtime_ns)))
            elif not stat.S_ISDIR(status.st_mode) and relative.as_posix() not in self._refused:
                self._refused.add(relative.as_posix())
                logger.warning("incoming entry refused: not a regular file (symlinks and devices are never "
                               "ingested)", extra={"key_sha256": key_hash(relative.as_posix())})
        return files

    def _announce(self, key: str, stamp: Stamp) -> dict[str, Any]:
        try:
            etag = hashlib.md5((self.blob_root / key).read_bytes(), usedforsecurity=False).hexdigest()
            reply: dict[str, Any] = invoke(TRIGGER_FUNCTION, object_created_event(self.bucket, key, etag, stamp[0]))
        except Exception as exc:  # on AWS the event would go to the dead-letter queue after its retries
            reason = f"{type(exc).__name__}: {exc}"
            # logged by type and key hash: a file name (and a message quoting it) may hold PHI
            logger.warning("incoming file not ingested: change or touch it to try again",
                           extra={"key_sha256": key_hash(key), "error_type": type(exc).__name__})
            return {"status": "failed", "key": key, "reason": reason}
        logger.info("incoming file announced", extra={"key_sha256": key_hash(key), "status": reply.get("status")})
        return reply
