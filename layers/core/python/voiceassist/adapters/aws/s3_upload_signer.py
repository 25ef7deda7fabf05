"""UploadSigner on S3: a presigned POST policy whose conditions S3 enforces (key, size, metadata fields)."""

from __future__ import annotations

from typing import Any


class S3UploadSigner:
    def __init__(self, bucket: str, *, client: Any = None, region_name: str | None = None) -> None:
        self.bucket = bucket
        self._client = client
        self._region_name = region_name

    def presign_post(self, key: str, *, fields: dict[str, str], max_bytes: int,
                     expires_in: int) -> dict[str, Any]:
        conditions: list[Any] = [["content-length-range", 1, max_bytes]]
        conditions += [{name: value} for name, value in fields.items()]
        signed: dict[str, Any] = self._s3().generate_presigned_post(
            Bucket=self.bucket, Key=key, Fields=dict(fields), Conditions=conditions, ExpiresIn=expires_in)
        return signed

    def _s3(self) -> Any:
        if self._client is None:
            import boto3
            from botocore.config import Config

            # SigV4 and the regional endpoint: the bucket is KMS-encrypted, which SigV2 policies cannot write.
            self._client = boto3.client("s3", region_name=self._region_name,
                                        config=Config(signature_version="s3v4", s3={"addressing_style": "virtual"}))
        return self._client
