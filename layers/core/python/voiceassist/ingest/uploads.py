"""Direct uploads: a presigned S3 form that puts a document under incoming/ with its metadata.

The object lands as `incoming/<upload id>/document.<ext>` carrying its file name and metadata as x-amz-meta-*
fields; the upload trigger ingests it like any other object under incoming/ (triggers.metadata_for_object reads
them).
S3 enforces the size in the policy, so documents up to the ingestion limit (50 MiB) never pass through API
Gateway (10 MB) or Lambda (6 MB).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from voiceassist.constants.environment import INCOMING_PREFIX
from voiceassist.errors import InvalidInput
from voiceassist.ingest.triggers import FILENAME_FIELD, METADATA_FIELDS  # what the trigger reads back
from voiceassist.ports import UploadSigner

UPLOAD_ROUTE = "POST /v1/documents/uploads"
EXPIRES_IN_SECONDS = 15 * 60
_FILENAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,199}$")
# What API Gateway (10 MB) and Lambda (6 MB, base64 or JSON-escaped) let through the direct upload route.
DIRECT_UPLOAD_LIMIT_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class PresignedUpload:
    url: str
    fields: dict[str, str]
    key: str
    max_bytes: int
    expires_in: int


def presign_upload(signer: UploadSigner, *, filename: str, content_type: str | None,
                   metadata: dict[str, Any], max_bytes: int, user_id: str) -> PresignedUpload:
    if not _FILENAME.match(filename):
        raise InvalidInput("filename: 1-200 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit")
    unknown = sorted(set(metadata) - set(METADATA_FIELDS))
    if unknown:
        raise InvalidInput(f"unknown metadata {unknown}; allowed: {', '.join(METADATA_FIELDS)}")
    # The key names no file (it shows in S3 listings, CloudTrail and the audit record): the file name, which
    # may hold PHI, travels as user metadata and is screened with the rest (ingest/screening.py).
    suffix = "".join(c for c in PurePosixPath(filename).suffix.lower() if c.isalnum() or c == ".")[:10]
    key = f"{INCOMING_PREFIX}{uuid.uuid4().hex}/document{suffix}"
    fields = {f"x-amz-meta-{name}": _ascii(name, value) for name, value in metadata.items() if value is not None}
    fields[f"x-amz-meta-{FILENAME_FIELD}"] = filename
    fields["x-amz-meta-uploaded-by"] = user_id
    if content_type:
        fields["Content-Type"] = content_type
    signed = signer.presign_post(key, fields=fields, max_bytes=max_bytes, expires_in=EXPIRES_IN_SECONDS)
    return PresignedUpload(url=str(signed["url"]), fields={k: str(v) for k, v in signed["fields"].items()},
                           key=key, max_bytes=max_bytes, expires_in=EXPIRES_IN_SECONDS)


def _ascii(name: str, value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    if not text.isascii() or not text.isprintable():
        raise InvalidInput(f"metadata {name} must be printable ASCII (S3 user metadata)")
    return text
