"""The AWS side of a streamed spoken question behind botocore's Stubber (the real API shapes: every parameter is
checked against the service models): the chunk store's S3 calls and the Transcribe Medical job's."""

from __future__ import annotations

import io
import json
from typing import Any

import boto3
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from voiceassist.adapters.aws.s3_audio_chunks import S3AudioChunkStore
from voiceassist.adapters.aws.transcribe_medical_stt import TranscribeMedicalSpeechToText

BUCKET, KEY_ID = "voiceassist-dev-voice", "arn:aws:kms:us-east-1:111122223333:key/abcd"


def client(service: str) -> Any:
    return boto3.client(service, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")


def body(data: bytes) -> StreamingBody:
    return StreamingBody(io.BytesIO(data), len(data))


def result_file(text: str) -> bytes:
    """A Transcribe Medical result file that heard `text` (word by word, 0.3 s each)."""
    items = [{"type": "pronunciation", "start_time": f"{i * 0.3:.2f}", "end_time": f"{i * 0.3 + 0.3:.2f}",
              "alternatives": [{"content": word, "confidence": "0.95"}]} for i, word in enumerate(text.split())]
    return json.dumps({"jobName": "x", "results": {"transcripts": [{"transcript": text}], "items": items}}).encode()


class VoiceAws:
    """S3 for the chunks, S3 and Transcribe for the job, each behind its Stubber; `expect_*` queue the calls."""

    def __init__(self) -> None:
        self.chunk_s3, self.job_s3, self.transcribe = client("s3"), client("s3"), client("transcribe")
        self.stub_chunks, self.stub_job_s3 = Stubber(self.chunk_s3), Stubber(self.job_s3)
        self.stub_transcribe = Stubber(self.transcribe)
        self.clock = [0.0]
        self.chunks = S3AudioChunkStore(bucket=BUCKET, kms_key_id=KEY_ID, s3=self.chunk_s3)
        self.speech_to_text = TranscribeMedicalSpeechToText(
            bucket=BUCKET, kms_key_id=KEY_ID, transcribe=self.transcribe, s3=self.job_s3, max_wait_seconds=5,
            poll_seconds=1, sleep=self._sleep, clock=lambda: self.clock[0])

    def _sleep(self, seconds: float) -> None:
        self.clock[0] += seconds

    def __enter__(self) -> VoiceAws:
        for stub in (self.stub_chunks, self.stub_job_s3, self.stub_transcribe):
            stub.activate()
        return self

    def __exit__(self, *_: object) -> None:
        for stub in (self.stub_chunks, self.stub_job_s3, self.stub_transcribe):
            stub.deactivate()

    def expect_chunk_put(self, *, already_stored: bool = False) -> None:
        expected = {"Bucket": BUCKET, "Key": ANY, "Body": ANY, "ServerSideEncryption": "aws:kms",
                    "SSEKMSKeyId": KEY_ID, "IfNoneMatch": "*"}
        if already_stored:
            self.stub_chunks.add_client_error("put_object", "PreconditionFailed", "At least one of the "
                                              "pre-conditions you specified did not hold", 412,
                                              expected_params=expected)
        else:
            self.stub_chunks.add_response("put_object", {}, expected)

    def expect_chunk_gets(self, pieces: list[bytes]) -> None:
        for piece in pieces:
            self.stub_chunks.add_response("get_object", {"Body": body(piece)}, {"Bucket": BUCKET, "Key": ANY})

    def expect_chunk_delete(self, count: int) -> None:
        self.stub_chunks.add_response("delete_objects", {}, {"Bucket": BUCKET, "Delete": {
            "Objects": [{"Key": ANY}] * count, "Quiet": True}})

    def expect_job(self, *, statuses: tuple[str, ...] = ("COMPLETED",), heard: str | None = None) -> None:
        self.stub_job_s3.add_response("put_object", {}, {"Bucket": BUCKET, "Key": ANY, "Body": ANY,
                                                         "ServerSideEncryption": "aws:kms", "SSEKMSKeyId": KEY_ID})
        self.stub_transcribe.add_response("start_medical_transcription_job", {}, {
            "MedicalTranscriptionJobName": ANY, "LanguageCode": "en-US", "MediaFormat": "wav",
            "Media": {"MediaFileUri": ANY}, "OutputBucketName": BUCKET, "OutputKey": ANY,
            "OutputEncryptionKMSKeyId": KEY_ID, "Specialty": "PRIMARYCARE", "Type": "DICTATION"})
        for status in statuses:
            self.stub_transcribe.add_response("get_medical_transcription_job", {"MedicalTranscriptionJob": {
                "TranscriptionJobStatus": status}}, {"MedicalTranscriptionJobName": ANY})
        if heard is not None:
            self.stub_job_s3.add_response("get_object", {"Body": body(result_file(heard))},
                                          {"Bucket": BUCKET, "Key": ANY})
        for _ in range(2):  # the joined recording and the transcript, whatever happened
            self.stub_job_s3.add_response("delete_object", {}, {"Bucket": BUCKET, "Key": ANY})
        self.stub_transcribe.add_response("delete_medical_transcription_job", {}, {"MedicalTranscriptionJobName": ANY})

    def done(self) -> None:
        for stub in (self.stub_chunks, self.stub_job_s3, self.stub_transcribe):
            stub.assert_no_pending_responses()
