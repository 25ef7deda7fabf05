"""S3 ObjectCreated (via EventBridge) -> one ingestion execution, however often the event is delivered.

Powertools idempotency, keyed on the object version (bucket, key and ETag), guards the start: the first
delivery records the key as in progress, starts the workflow and stores its reply; a duplicate or replayed
delivery gets that reply back as a "duplicate" and starts nothing. A delivery that arrives while the first
one is still in progress fails (IdempotencyAlreadyInProgressError), and its retry finds the finished record.
If the start fails, Powertools deletes the record, so the retry of the same event can succeed: nothing is
lost. The records live in the idempotency table on AWS and in the SQLite file locally (composition).

The execution name is derived from the same key, so should the record be gone (expired, or deleted after
a start whose reply was lost) Step Functions itself refuses a second execution of that object version,
which is answered as a duplicate too. Metadata comes from the object's user metadata (x-amz-meta-*) or a
sidecar `<key>.meta.json`.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import quote_plus, unquote, unquote_plus

from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function

from voiceassist.errors import Conflict, InvalidInput
from voiceassist.ingest.document_metadata import MARKDOWN_SUFFIXES, metadata_for
from voiceassist.ingest.settling import SIDECAR_SUFFIX
from voiceassist.ingest.stages import INCOMING_PREFIX
from voiceassist.models import DocumentMetadata

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
    from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from voiceassist.ports import BlobStore, PipelineRunner



class TriggerDependencies(Protocol):
    """What the trigger uses, passed in by its handler (never the composition root imported here)."""

    @property
    def blobs(self) -> BlobStore: ...
    @property
    def pipelines(self) -> PipelineRunner: ...
    @property
    def idempotency(self) -> BasePersistenceLayer: ...


METADATA_FIELDS = ("doc_key", "title", "source_type", "specialty", "authors", "year", "doi", "pmid", "url")
FILENAME_FIELD = "filename"  # a presigned upload's file name, kept out of its object key (ingest/uploads.py)
IDEMPOTENCY_KEY_PREFIX = "voiceassist.ingest_trigger"
# Longer than EventBridge retries an event (24 h) and a Lambda async retry (6 h), with room for replays
# from an archive; after it, the execution name still refuses a second execution for 90 days.
IDEMPOTENCY_TTL_SECONDS = 30 * 24 * 3600
# Without a Lambda context (local runs) an in-progress record is abandoned after this long, like a trigger
# that timed out on AWS (its catalogue time-out).
LOCAL_INVOCATION_SECONDS = 30


@dataclass(frozen=True)
class ObjectVersion:
    """What an upload event is about: one version of one object (the idempotency key)."""

    bucket: str
    key: str
    etag: str

    @property
    def execution_name(self) -> str:
        return hashlib.sha256(f"{self.bucket}\n{self.key}\n{self.etag}".encode()).hexdigest()[:64]


def object_created(event: dict[str, Any]) -> ObjectVersion:
    """The object version of an EventBridge "Object Created" event (its key arrives URL-encoded)."""
    try:
        detail = event["detail"]
        return ObjectVersion(bucket=detail["bucket"]["name"], key=unquote_plus(detail["object"]["key"]),
                             etag=str(detail["object"].get("etag", "")))
    except (KeyError, TypeError) as exc:
        raise InvalidInput(f"not an S3 Object Created event: missing {exc}") from exc


def object_created_event(bucket: str, key: str, etag: str, size: int = 0) -> dict[str, Any]:
    """The EventBridge "Object Created" event S3 sends for a completed upload (its key URL-encoded)."""
    return {"version": "0", "source": "aws.s3", "detail-type": "Object Created",
            "detail": {"version": "0", "bucket": {"name": bucket}, "reason": "PutObject",
                       "object": {"key": quote_plus(key, safe="/"), "size": size, "etag": etag}}}


def metadata_for_object(deps: TriggerDependencies, key: str) -> DocumentMetadata:
    """Sidecar JSON first, then the object's user metadata; doc_key and title default to the file name."""
    return _described(deps, key)[1]


def _described(deps: TriggerDependencies, key: str) -> tuple[str, DocumentMetadata]:
    """The object's file name (a presigned upload's `filename` user metadata, else the key's last part) and
    its metadata. Errors name no key: keys and file names are screened for PHI only after registration."""
    head = deps.blobs.head(key)
    values: dict[str, Any] = {k: unquote(v) for k, v in head.items() if k in METADATA_FIELDS}
    sidecar = key + SIDECAR_SUFFIX
    if deps.blobs.exists(sidecar):
        try:
            values.update(json.loads(deps.blobs.get(sidecar)))
        except ValueError as exc:
            raise InvalidInput(f"its metadata sidecar ({SIDECAR_SUFFIX}) is not valid JSON: {exc}") from exc
    name = unquote(head.get(FILENAME_FIELD, "")) or PurePosixPath(key).name
    needs_heading = not values.get("title") and PurePosixPath(name).suffix.lower() in MARKDOWN_SUFFIXES
    return name, metadata_for(name, values, deps.blobs.get(key) if needs_heading else None)


def handle_object_created(deps: TriggerDependencies, event: dict[str, Any], lambda_context: Any = None
                          ) -> dict[str, Any]:
    """Start ingestion for an uploaded object once per version; `lambda_context` bounds the in-progress record
    by the invocation's time-out."""
    uploaded = object_created(event)
    if not uploaded.key.startswith(INCOMING_PREFIX) or uploaded.key.endswith(SIDECAR_SUFFIX):
        return {"status": "ignored", "key": uploaded.key}
    config = IdempotencyConfig(expires_after_seconds=IDEMPOTENCY_TTL_SECONDS, hash_function="sha256",
                               raise_on_no_idempotency_key=True, response_hook=_duplicate,
                               lambda_context=cast("LambdaContext", lambda_context or _LocalInvocation()))
    start_once = idempotent_function(start_ingestion, data_keyword_argument="uploaded",
                                     persistence_store=deps.idempotency, config=config,
                                     key_prefix=IDEMPOTENCY_KEY_PREFIX)
    result: dict[str, Any] = start_once(deps, uploaded=uploaded)
    return result


def start_ingestion(deps: TriggerDependencies, *, uploaded: ObjectVersion) -> dict[str, Any]:
    """Start the ingestion workflow for an uploaded object (not idempotent by itself: see handle_object_created)."""
    filename, metadata = _described(deps, uploaded.key)
    payload = {"blob_key": uploaded.key, "metadata": metadata.model_dump(mode="json"), "filename": filename}
    # The reply is kept for 30 days as the idempotency record: it names the object by a hash, since the key
    # may hold a file name with PHI and the object is moved to a screened key (ingest/settling.py)
    key_sha256 = hashlib.sha256(uploaded.key.encode("utf-8")).hexdigest()
    try:
        execution = deps.pipelines.start("ingest", payload, name=uploaded.execution_name)
    except Conflict:  # an execution of this object version exists already
        return {"status": "duplicate", "key_sha256": key_sha256, "execution": None}
    return {"status": "started", "key_sha256": key_sha256, "execution": execution}


def _duplicate(response: Any, idempotent_data: DataRecord) -> Any:
    """A reply replayed from the idempotency record: the same execution, marked as a duplicate delivery."""
    return {**response, "status": "duplicate"} if isinstance(response, dict) else response


class _LocalInvocation:
    """The part of a Lambda context Powertools reads: the time left before the invocation would time out."""

    def __init__(self, seconds: float = LOCAL_INVOCATION_SECONDS) -> None:
        self._deadline = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))
