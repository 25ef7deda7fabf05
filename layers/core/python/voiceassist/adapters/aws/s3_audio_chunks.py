"""AudioChunkStore on S3: the pieces of a spoken question streamed over the WebSocket (speech/chunked.py), under
the voice bucket's `voice/stream/<stream id>/<seq>` (the prefix the bucket expires after a day), each encrypted
with the environment key (SSE-KMS) and written only if absent (`If-None-Match: *`, S3's conditional write), so a
repeated sequence number can never replace the piece first stored. S3 answers such a write with 412
PreconditionFailed when the key exists, and with 409 ConditionalRequestConflict when a conflicting operation on the
key ran at the same time ("On a 409 failure you should retry the upload": botocore's PutObject documentation; S3
User Guide, "Conditional writes"): a 409 is retried, then the 412 or the write settles it. Stream ids are random,
never derived from what was said; a failure names its AWS error code only (a message may quote the request).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from voiceassist.constants.environment import VOICE_PREFIX
from voiceassist.errors import Conflict, DependencyError, NotFound

STREAM_PREFIX = f"{VOICE_PREFIX}stream/"
_ALREADY_STORED = {"PreconditionFailed", "412"}
_CONFLICTING = {"ConditionalRequestConflict", "409"}  # another write of the key was in progress: retried
CONFLICT_ATTEMPTS = 4
CONFLICT_PAUSE_SECONDS = 0.05
_MISSING = {"NoSuchKey", "404", "NotFound"}
_DELETE_BATCH = 1000  # DeleteObjects' limit per request


def chunk_key(stream_id: str, seq: int) -> str:
    if not stream_id.isalnum():
        raise ValueError("a stream id is letters and digits")
    return f"{STREAM_PREFIX}{stream_id}/{seq:05d}"


class S3AudioChunkStore:
    def __init__(self, *, bucket: str, kms_key_id: str | None, s3: Any = None, region: str | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._bucket, self._kms_key_id = bucket, kms_key_id
        self._s3, self._region = s3, region
        self._sleep = sleep

    @property
    def s3_client(self) -> Any:
        if self._s3 is None:
            import boto3

            self._s3 = boto3.client("s3", region_name=self._region)
        return self._s3

    def put(self, stream_id: str, seq: int, data: bytes) -> None:
        encryption = {"SSEKMSKeyId": self._kms_key_id} if self._kms_key_id else {}
        for attempt in range(1, CONFLICT_ATTEMPTS + 1):
            try:
                self.s3_client.put_object(Bucket=self._bucket, Key=chunk_key(stream_id, seq), Body=data,
                                          ServerSideEncryption="aws:kms", IfNoneMatch="*", **encryption)
                return
            except ClientError as exc:
                code = _code(exc)
                if code in _ALREADY_STORED:
                    raise Conflict(f"chunk {seq} is already stored") from None
                if code not in _CONFLICTING:
                    raise DependencyError(f"voice storage refused the call ({code})") from None
                if attempt == CONFLICT_ATTEMPTS:
                    raise DependencyError(f"voice storage kept refusing chunk {seq} ({code})") from None
            except BotoCoreError as exc:
                raise DependencyError(f"voice storage unreachable ({type(exc).__name__})") from None
            self._sleep(random.uniform(0, CONFLICT_PAUSE_SECONDS * attempt))  # noqa: S311 - a pause, not a secret

    def get(self, stream_id: str, seq: int) -> bytes:
        try:
            body: bytes = self.s3_client.get_object(Bucket=self._bucket, Key=chunk_key(stream_id, seq))["Body"].read()
        except ClientError as exc:
            if _code(exc) in _MISSING:
                raise NotFound(f"chunk {seq} is not stored") from None
            raise DependencyError(f"voice storage refused the call ({_code(exc)})") from None
        except BotoCoreError as exc:
            raise DependencyError(f"voice storage unreachable ({type(exc).__name__})") from None
        return body

    def delete(self, stream_id: str, seqs: list[int]) -> None:
        """DeleteObjects in batches; a key that is gone is not an error. A refused batch raises (the prefix's
        lifecycle rule still expires the pieces within a day)."""
        keys = [{"Key": chunk_key(stream_id, seq)} for seq in seqs]
        for start in range(0, len(keys), _DELETE_BATCH):
            try:
                reply = self.s3_client.delete_objects(Bucket=self._bucket, Delete={
                    "Objects": keys[start:start + _DELETE_BATCH], "Quiet": True})
            except ClientError as exc:
                raise DependencyError(f"voice storage refused the call ({_code(exc)})") from None
            except BotoCoreError as exc:
                raise DependencyError(f"voice storage unreachable ({type(exc).__name__})") from None
            failed = [e.get("Code", "error") for e in reply.get("Errors", []) if e.get("Code") not in _MISSING]
            if failed:
                raise DependencyError(f"voice storage kept {len(failed)} chunks ({failed[0]})")


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", "error"))
