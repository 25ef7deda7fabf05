"""S3 ObjectCreated (via EventBridge) -> one ingestion execution, however often the event is delivered.

Idempotency is a compare-and-set claim on (bucket, key, ETag) in the shared KeyValueState (DynamoDB on AWS,
SQLite locally): a duplicate or replayed event finds the claim and starts nothing. A claim whose start
failed is marked failed, so EventBridge's retry of the same event may claim it again: nothing is lost.
Metadata comes from the object's user metadata (x-amz-meta-*) or a sidecar `<key>.meta.json`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, unquote_plus

from voiceassist import service
from voiceassist.errors import Conflict, InvalidInput
from voiceassist.ingestion import INCOMING_PREFIX
from voiceassist.models import DocumentMetadata

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies

SIDECAR_SUFFIX = ".meta.json"
CLAIM_TTL_SECONDS = 30 * 24 * 3600
METADATA_FIELDS = ("doc_key", "title", "source_type", "specialty", "authors", "year", "doi", "pmid", "url")


def object_created(event: dict[str, Any]) -> tuple[str, str, str]:
    """(bucket, key, etag) of an EventBridge "Object Created" event."""
    try:
        detail = event["detail"]
        return (detail["bucket"]["name"], unquote_plus(detail["object"]["key"]),
                str(detail["object"].get("etag", "")))
    except (KeyError, TypeError) as exc:
        raise InvalidInput(f"not an S3 Object Created event: missing {exc}") from exc


def metadata_for_object(deps: Dependencies, key: str) -> DocumentMetadata:
    """Sidecar JSON first, then the object's user metadata; doc_key and title default to the file name."""
    values: dict[str, Any] = {k: unquote(v) for k, v in deps.blobs.head(key).items() if k in METADATA_FIELDS}
    sidecar = key + SIDECAR_SUFFIX
    if deps.blobs.exists(sidecar):
        try:
            values.update(json.loads(deps.blobs.get(sidecar)))
        except ValueError as exc:
            raise InvalidInput(f"{sidecar} is not valid JSON: {exc}") from exc
    return service.metadata_for(PurePosixPath(key).name, values)


def handle_object_created(deps: Dependencies, event: dict[str, Any]) -> dict[str, Any]:
    bucket, key, etag = object_created(event)
    if not key.startswith(INCOMING_PREFIX) or key.endswith(SIDECAR_SUFFIX):
        return {"status": "ignored", "key": key}
    claim = "s3-object#" + hashlib.sha256(f"{bucket}\n{key}\n{etag}".encode()).hexdigest()
    current, version = deps.state.get(claim)
    if current is not None and current.get("status") != "failed":
        return {"status": "duplicate", "key": key, "execution": current.get("execution")}
    try:
        version = deps.state.put(claim, {"status": "claimed"}, expected_version=version,
                                 ttl_seconds=CLAIM_TTL_SECONDS)
    except Conflict:
        return {"status": "duplicate", "key": key}
    try:
        metadata = metadata_for_object(deps, key)
        execution = deps.pipelines.start("ingest", {"blob_key": key, "metadata": metadata.model_dump(mode="json"),
                                                    "filename": PurePosixPath(key).name},
                                         name=claim.split("#", 1)[1][:64])
    except Exception:
        deps.state.put(claim, {"status": "failed"}, expected_version=version, ttl_seconds=CLAIM_TTL_SECONDS)
        raise
    deps.state.put(claim, {"status": "started", "execution": execution}, expected_version=version,
                   ttl_seconds=CLAIM_TTL_SECONDS)
    return {"status": "started", "key": key, "execution": execution}
