"""One S3 bucket as an adapter sees it: the client built on first use (importing an adapter stays cheap and
offline) and the environment key's encryption on every object it writes."""

from __future__ import annotations

import threading
from typing import Any


class S3Bucket:
    def __init__(self, bucket: str, *, client: Any = None, region_name: str | None = None,
                 kms_key_id: str | None = None) -> None:
        self.bucket = bucket
        self._client = client
        self._region_name = region_name
        self._kms_key_id = kms_key_id
        self._lock = threading.Lock()

    def _encryption(self) -> dict[str, str]:
        """put_object's encryption arguments: the environment key where one is configured."""
        return {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": self._kms_key_id} if self._kms_key_id else {}

    def _s3(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3  # deferred: importing an adapter must stay cheap and offline

                self._client = boto3.client("s3", region_name=self._region_name)
            return self._client
