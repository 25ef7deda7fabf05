"""One contract for both sides of the AudioChunkStore port (speech/chunked.py): in memory locally, S3 on AWS
(botocore's Stubber: the real API shapes). A piece is stored once (a repeated sequence number keeps the first),
read back, deleted; then what only S3 does: SSE-KMS with the environment key, a conditional write, and failures
named by their AWS error code, never by what the request carried."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.stub import ANY

from tests.stubs.voice_aws import BUCKET, VoiceAws
from voiceassist.adapters.aws.s3_audio_chunks import S3AudioChunkStore, chunk_key
from voiceassist.adapters.local.memory_audio_chunks import MemoryAudioChunkStore
from voiceassist.errors import Conflict, DependencyError, NotFound
from voiceassist.speech.chunked import AudioChunkStore

STREAM = "0f3a9c"
PIECE = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x01\x02" * 50


class MemorySide:
    def __init__(self) -> None:
        self.store = MemoryAudioChunkStore()

    def expect_put(self, *, already_stored: bool = False) -> None:
        pass

    def expect_get(self, piece: bytes | None) -> None:
        pass

    def expect_delete(self, count: int) -> None:
        pass

    def done(self) -> None:
        pass


class S3Side:
    def __init__(self) -> None:
        self.aws = VoiceAws()
        self.store = self.aws.chunks

    def expect_put(self, *, already_stored: bool = False) -> None:
        self.aws.expect_chunk_put(already_stored=already_stored)

    def expect_get(self, piece: bytes | None) -> None:
        if piece is None:
            self.aws.stub_chunks.add_client_error("get_object", "NoSuchKey", "The specified key does not exist.",
                                                  404, expected_params={"Bucket": BUCKET, "Key": ANY})
        else:
            self.aws.expect_chunk_gets([piece])

    def expect_delete(self, count: int) -> None:
        self.aws.expect_chunk_delete(count)

    def done(self) -> None:
        self.aws.done()


@pytest.fixture(params=["memory", "s3"])
def side(request: pytest.FixtureRequest) -> Iterator[Any]:
    chosen: Any = MemorySide() if request.param == "memory" else S3Side()
    if isinstance(chosen, S3Side):
        with chosen.aws:
            yield chosen
    else:
        yield chosen


def test_audio_chunk_store_keeps_a_piece_once_and_reads_it_back(side: Any) -> None:
    assert isinstance(side.store, AudioChunkStore)
    side.expect_put()
    side.store.put(STREAM, 0, PIECE)
    side.expect_put(already_stored=True)
    with pytest.raises(Conflict, match="chunk 0"):
        side.store.put(STREAM, 0, b"OggS another piece")
    side.expect_get(PIECE)
    assert side.store.get(STREAM, 0) == PIECE  # the first copy
    side.done()


def test_audio_chunk_store_deletes_pieces_and_a_deleted_piece_is_not_found(side: Any) -> None:
    for seq in (0, 1):
        side.expect_put()
        side.store.put(STREAM, seq, PIECE)
    side.expect_delete(3)
    side.store.delete(STREAM, [0, 1, 2])  # 2 was never stored: not an error
    side.expect_get(None)
    with pytest.raises(NotFound, match="chunk 1"):
        side.store.get(STREAM, 1)
    side.done()


def test_s3_chunks_are_written_with_the_environment_key_only_if_absent_under_the_voice_prefix() -> None:
    aws = VoiceAws()
    with aws:
        aws.stub_chunks.add_response("put_object", {}, {
            "Bucket": BUCKET, "Key": "voice/stream/0f3a9c/00007", "Body": PIECE, "ServerSideEncryption": "aws:kms",
            "SSEKMSKeyId": aws.chunks._kms_key_id, "IfNoneMatch": "*"})
        aws.chunks.put(STREAM, 7, PIECE)
        aws.done()
    with pytest.raises(ValueError):
        chunk_key("../documents", 0)  # a stream id is ours (random hex), never a path


def test_s3_chunk_store_failures_name_the_error_code_never_the_request() -> None:
    aws = VoiceAws()
    with aws:
        aws.stub_chunks.add_client_error("put_object", "AccessDenied", "denied for body John Smith", 403)
        with pytest.raises(DependencyError) as refused:
            aws.chunks.put(STREAM, 0, b"John Smith")
        aws.stub_chunks.add_client_error("get_object", "KMS.DisabledException", "key disabled", 400)
        with pytest.raises(DependencyError, match="KMS.DisabledException"):
            aws.chunks.get(STREAM, 0)
        aws.stub_chunks.add_response("delete_objects", {"Errors": [
            {"Key": "voice/stream/0f3a9c/00000", "Code": "AccessDenied", "Message": "Access Denied"}]}, None)
        with pytest.raises(DependencyError, match="kept 1 chunks"):
            aws.chunks.delete(STREAM, [0])
        aws.done()
    assert "AccessDenied" in str(refused.value) and "Smith" not in str(refused.value)
    assert refused.value.__cause__ is None


def test_s3_chunk_store_deletes_in_batches_of_a_thousand() -> None:
    store = S3AudioChunkStore(bucket=BUCKET, kms_key_id=None, s3=None)
    aws = VoiceAws()
    store._s3 = aws.chunk_s3
    with aws:
        aws.expect_chunk_delete(1000)
        aws.expect_chunk_delete(5)
        store.delete(STREAM, list(range(1005)))
        aws.done()


def test_s3_chunk_store_retries_a_conditional_write_conflict_and_reports_a_duplicate_only_on_412() -> None:
    """S3's conditional write: 412 PreconditionFailed means the key exists (a repeated seq); 409
    ConditionalRequestConflict means another operation on the key ran at the same time, and AWS says to retry
    (botocore's PutObject documentation; S3 User Guide, "Conditional writes"). A 409 is not a duplicate: the other
    write may fail and leave nothing stored."""
    from tests.stubs.voice_aws import KEY_ID
    from voiceassist.adapters.aws.s3_audio_chunks import CONFLICT_ATTEMPTS

    aws = VoiceAws()
    pauses: list[float] = []
    store = S3AudioChunkStore(bucket=BUCKET, kms_key_id=KEY_ID, s3=aws.chunk_s3, sleep=pauses.append)

    def conflict() -> None:
        aws.stub_chunks.add_client_error("put_object", "ConditionalRequestConflict", "A conflicting operation "
                                         "is in progress against this resource", 409)

    with aws:
        conflict()
        aws.expect_chunk_put()
        store.put(STREAM, 0, PIECE)  # the retry stored it
        conflict()
        aws.expect_chunk_put(already_stored=True)
        with pytest.raises(Conflict, match="chunk 1 is already stored"):
            store.put(STREAM, 1, PIECE)
        for _ in range(CONFLICT_ATTEMPTS):
            conflict()
        with pytest.raises(DependencyError, match="ConditionalRequestConflict"):
            store.put(STREAM, 2, PIECE)
        aws.done()
    assert len(pauses) == 1 + 1 + (CONFLICT_ATTEMPTS - 1)
