"""BlobStore on S3, encrypted with a customer KMS key when one is given."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError

from voiceassist.adapters.aws.s3_bucket import S3Bucket
from voiceassist.adapters.local.folder_blobs import normalise_metadata, validate_blob_key
from voiceassist.errors import NotFound
from voiceassist.ports import StoredUpload

_MISSING = {"404", "NoSuchKey", "NotFound"}


class S3BlobStore(S3Bucket):
    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream",
            metadata: dict[str, str] | None = None) -> None:
        arguments: dict[str, Any] = {
            "Bucket": self.bucket,
            "Key": validate_blob_key(key),
            "Body": data,
            "ContentType": content_type,
            "Metadata": normalise_metadata(metadata),
        }
        arguments.update(self._encryption())
        self._s3().put_object(**arguments)

    def get(self, key: str) -> bytes:
        try:
            response = self._s3().get_object(Bucket=self.bucket, Key=validate_blob_key(key))
        except ClientError as exc:
            if _is_missing(exc):
                raise NotFound(f"blob {key!r} does not exist") from exc
            raise
        body: bytes = response["Body"].read()
        return body

    def head(self, key: str) -> dict[str, str]:
        try:
            response = self._s3().head_object(Bucket=self.bucket, Key=validate_blob_key(key))
        except ClientError as exc:
            if _is_missing(exc):
                raise NotFound(f"blob {key!r} does not exist") from exc
            raise
        metadata: dict[str, str] = response.get("Metadata", {})
        return metadata

    def delete(self, key: str) -> None:
        self._s3().delete_object(Bucket=self.bucket, Key=validate_blob_key(key))

    def exists(self, key: str) -> bool:
        try:
            self.head(key)
        except NotFound:
            return False
        return True

    def uploads(self, prefix: str) -> Iterator[StoredUpload]:
        """Every current object under `prefix`, page by page (ListObjectsV2: 1,000 keys a page, in key order).
        S3 lists an ETag in quotes; its events carry it without (the trigger's idempotency key)."""
        pages = self._s3().get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
        for page in pages:
            for item in page.get("Contents", []):
                yield StoredUpload(key=item["Key"], etag=str(item.get("ETag", "")).strip('"'),
                                   size=int(item.get("Size", 0)), modified=item["LastModified"])



def _is_missing(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") in _MISSING
