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

The trigger registers the upload itself (its document version and IndexingJob, as the API does before it
starts a workflow) and starts the execution with the job's ids only: a Standard workflow's execution history
keeps every execution's input for 90 days, and the key, file name and unscreened metadata may hold PHI
(decision 0028). The registration is keyed on the execution's id (known before the start), so a retried
delivery finds the job the first one registered; a job registered whose execution never started is re-driven
by the job reconciler, like an API upload's. An upload registration refuses (an empty file) is answered
`refused` and not retried.
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
from voiceassist.ingest import registration
from voiceassist.ingest.document_metadata import MARKDOWN_SUFFIXES, metadata_for
from voiceassist.ingest.settling import SIDECAR_SUFFIX
from voiceassist.ingest.stages import INCOMING_PREFIX, IngestionContext
from voiceassist.models import DocumentMetadata
from voiceassist.observability import logger

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
    @property
    def ingestion(self) -> IngestionContext: ...


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
    """Register an uploaded object and start its ingestion workflow with the job's ids only (not idempotent by
    itself: see handle_object_created)."""
    filename, metadata = _described(deps, uploaded.key)
    # The reply is kept for 30 days as the idempotency record: it names the object by a hash, since the key
    # may hold a file name with PHI and the object is moved to a screened key (ingest/settling.py)
    key_sha256 = hashlib.sha256(uploaded.key.encode("utf-8")).hexdigest()
    name = uploaded.execution_name
    execution_id = execution_id_for(deps.pipelines, name)
    try:
        registered = registration.register(deps.ingestion, blob_key=uploaded.key, metadata=metadata,
                                           filename=filename, execution_id=execution_id)
    except InvalidInput as exc:  # the reason names no key (registration.py); a retry would be refused again
        # a job written before the refusal (a type detected after it) is FAILED with the reason, as the
        # workflow's Catch does for a failed Register, instead of PENDING for ever
        registration.fail_registration(deps.ingestion, execution_id, {"Error": "InvalidInput", "Cause": str(exc)})
        logger.warning("ingest upload refused", extra={"key_sha256": key_sha256, "reason": str(exc)})
        return {"status": "refused", "key_sha256": key_sha256, "reason": str(exc), "execution": None}
    ids = registered.pipeline_input()
    if registered.unchanged:  # its content is live or being indexed already: no execution
        return {"status": "unchanged", "key_sha256": key_sha256, **ids, "execution": None}
    try:
        execution = deps.pipelines.start("ingest", ids, name=name)
    except Conflict:  # an execution of this object version exists already
        return {"status": "duplicate", "key_sha256": key_sha256, **ids, "execution": None}
    return {"status": "started", "key_sha256": key_sha256, **ids, "execution": execution}


def execution_id_for(pipelines: PipelineRunner, name: str) -> str:
    """The id the ingestion execution named `name` has (an ARN on AWS, known before the start), which the
    registration's job is keyed on and the job reconciler describes; a runner that cannot tell: the name."""
    id_for = getattr(pipelines, "execution_id_for", None)
    return str(id_for("ingest", name)) if id_for is not None else name


def _duplicate(response: Any, idempotent_data: DataRecord) -> Any:
    """A reply replayed from the idempotency record: the same execution, marked as a duplicate delivery."""
    return {**response, "status": "duplicate"} if isinstance(response, dict) else response


class _LocalInvocation:
    """The part of a Lambda context Powertools reads: the time left before the invocation would time out."""

    def __init__(self, seconds: float = LOCAL_INVOCATION_SECONDS) -> None:
        self._deadline = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))
