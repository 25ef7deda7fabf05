"""SpeechToText with Amazon Transcribe Medical (HIPAA eligible), reached through the VPC's `transcribe` interface
endpoint, in a batch job: boto3 has no client for the medical streaming API (an HTTP/2 event stream; the
amazon-transcribe SDK needs awscrt, too heavy for the Lambda layer), and a spoken question is short.

The recording is put under the voice bucket's `voice/<job>/` prefix encrypted with the environment key
(SSE-KMS), the job writes its transcript beside it with the same key, and all of it (both objects and the job
record) is deleted before the reply, whatever happened; a lifecycle rule expires the prefix after a day as a
backstop. A WAV recording in which Silero VAD finds no speech (speech/vad.py: the model and verdict the local
recognizer asks first) is answered with an empty transcript before anything is stored or a job started (no charge,
no recording in S3); WebM and Ogg cannot be decoded in the function (no codec library in the layer), so they go to
the job, whose transcript of silence is empty as well. Job names are random, never derived from what was said.
Nothing heard is logged: a failure is reported by its AWS error code only. Decision:
docs/decisions/0031-voice-inside-the-boundary.md.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
import uuid
import wave
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from voiceassist.constants.environment import TRANSCRIBE_JOB_PREFIX, VOICE_PREFIX
from voiceassist.errors import DependencyError, DependencyTimeout, InvalidInput, Unavailable
from voiceassist.speech import MAX_AUDIO_SECONDS, TranscribedWord, Transcript, container_of, nothing_heard, vad

MEDIA_FORMATS = {"wav": "wav", "webm": "webm", "ogg": "ogg"}
# "Amazon Transcribe Medical supports sample rates of 16,000 Hz or higher" and media of one or two channels
# (https://docs.aws.amazon.com/transcribe/latest/dg/transcribe-medical.html, .../dg/how-input.html): a WAV below
# is refused before it is stored rather than failing the job (Whisper, locally, resamples it).
MIN_SAMPLE_RATE = 16_000
MAX_CHANNELS = 2
# Transcribe's throttling answer (and the generic ones botocore's standard retry mode also treats as throttling)
THROTTLED = {"LimitExceededException", "ThrottlingException", "TooManyRequestsException"}


def wav_seconds(audio: bytes) -> float | None:
    """A WAV recording's duration from its header (None for other containers or an unreadable header)."""
    if container_of(audio) != "wav":
        return None
    try:
        with wave.open(io.BytesIO(audio)) as recording:
            return recording.getnframes() / float(recording.getframerate())
    except (wave.Error, EOFError, ZeroDivisionError):
        return None


def wav_layout(audio: bytes) -> tuple[int, int] | None:
    """A WAV recording's (sample rate, channels) from its header (None for other containers or a bad header)."""
    if container_of(audio) != "wav":
        return None
    try:
        with wave.open(io.BytesIO(audio)) as recording:
            return recording.getframerate(), recording.getnchannels()
    except (wave.Error, EOFError):
        return None


def transcript_of(result: dict[str, Any], *, duration: float, engine: str) -> Transcript:
    """A Transcribe Medical result file -> Transcript (punctuation joins the word before it)."""
    words: list[TranscribedWord] = []
    for item in result.get("results", {}).get("items", []):
        best = (item.get("alternatives") or [{}])[0]
        content = str(best.get("content", ""))
        if item.get("type") == "punctuation" and words:
            words[-1] = words[-1].model_copy(update={"word": words[-1].word + content})
        elif item.get("type") == "pronunciation" and content:
            words.append(TranscribedWord(word=content, start=round(float(item.get("start_time", 0.0)), 2),
                                         end=round(float(item.get("end_time", 0.0)), 2),
                                         confidence=min(max(float(best.get("confidence", 0.0)), 0.0), 1.0)))
    texts = [t.get("transcript", "") for t in result.get("results", {}).get("transcripts", [])]
    confidence = sum(w.confidence for w in words) / len(words) if words else 0.0
    end = max((w.end for w in words), default=0.0)
    return Transcript(text=" ".join(t.strip() for t in texts if t.strip()), language="en-US",
                      duration_seconds=round(duration or end, 2), confidence=round(confidence, 3), words=words,
                      engine=engine)


class TranscribeMedicalSpeechToText:
    name = "transcribe-medical"

    def __init__(self, *, bucket: str, kms_key_id: str | None, specialty: str = "PRIMARYCARE",
                 speech_type: str = "DICTATION", vocabulary: str | None = None, region: str | None = None,
                 transcribe: Any = None, s3: Any = None, max_wait_seconds: float = 25.0, poll_seconds: float = 0.5,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 speech_gate: bool = True) -> None:
        """`speech_gate`: no job for a WAV in which no speech is found (speech/vad.py), as the local recognizer."""
        self._speech_gate = speech_gate
        self._bucket, self._kms_key_id = bucket, kms_key_id
        self._specialty, self._type, self._vocabulary = specialty, speech_type, vocabulary
        self._region = region
        self._transcribe, self._s3 = transcribe, s3
        self._max_wait, self._poll = max_wait_seconds, poll_seconds
        self._sleep, self._clock = sleep, clock

    @property
    def transcribe_client(self) -> Any:
        if self._transcribe is None:
            import boto3

            self._transcribe = boto3.client("transcribe", region_name=self._region)
        return self._transcribe

    @property
    def s3_client(self) -> Any:
        if self._s3 is None:
            import boto3

            self._s3 = boto3.client("s3", region_name=self._region)
        return self._s3

    def transcribe(self, audio: bytes, *, max_seconds: float = MAX_AUDIO_SECONDS) -> Transcript:
        container = container_of(audio)
        if container not in MEDIA_FORMATS:
            raise InvalidInput("the audio cannot be decoded: send a WAV, WebM or Ogg recording")
        layout = wav_layout(audio)
        if layout is not None and (layout[0] < MIN_SAMPLE_RATE or layout[1] > MAX_CHANNELS):
            raise InvalidInput(f"Transcribe Medical takes recordings of at least {MIN_SAMPLE_RATE} Hz and at most "
                               f"{MAX_CHANNELS} channels; this one is {layout[0]} Hz, {layout[1]} channels")
        seconds = wav_seconds(audio)
        if seconds is not None and seconds > max_seconds:
            raise InvalidInput(f"the recording lasts {seconds:.0f} s; ask in at most {max_seconds:.0f} s")
        if self._speech_gate and container == "wav":
            samples = vad.wav_samples(audio)
            if samples is not None and not vad.speech_found(samples):
                return nothing_heard(duration_seconds=seconds or 0.0, language="en-US", engine=self.name)
        job = f"{TRANSCRIBE_JOB_PREFIX}{uuid.uuid4().hex}"
        audio_key = f"{VOICE_PREFIX}{job}/audio.{container}"
        transcript_key = f"{VOICE_PREFIX}{job}/transcript.json"
        encryption = {"SSEKMSKeyId": self._kms_key_id} if self._kms_key_id else {}
        started = False
        try:
            self._call(self.s3_client.put_object, Bucket=self._bucket, Key=audio_key, Body=audio,
                       ServerSideEncryption="aws:kms", **encryption)
            settings = {"Settings": {"VocabularyName": self._vocabulary}} if self._vocabulary else {}
            output_key = {"OutputEncryptionKMSKeyId": self._kms_key_id} if self._kms_key_id else {}
            self._call(self.transcribe_client.start_medical_transcription_job, MedicalTranscriptionJobName=job,
                       LanguageCode="en-US", MediaFormat=MEDIA_FORMATS[container],
                       Media={"MediaFileUri": f"s3://{self._bucket}/{audio_key}"}, OutputBucketName=self._bucket,
                       OutputKey=transcript_key, Specialty=self._specialty, Type=self._type, **settings,
                       **output_key)
            started = True
            self._wait(job)
            body = self._call(self.s3_client.get_object, Bucket=self._bucket, Key=transcript_key)["Body"].read()
            return transcript_of(json.loads(body), duration=seconds or 0.0, engine=self.name)
        finally:
            self._forget(job if started else None, audio_key, transcript_key)

    def _wait(self, job: str) -> None:
        deadline = self._clock() + self._max_wait
        while True:
            try:
                reply = self._call(self.transcribe_client.get_medical_transcription_job,
                                   MedicalTranscriptionJobName=job)
                status = reply["MedicalTranscriptionJob"]["TranscriptionJobStatus"]
            except Unavailable:  # a throttled poll: the job runs on; ask again until the deadline
                status = "THROTTLED"
            if status == "COMPLETED":
                return
            if status == "FAILED":  # its FailureReason is about the media; kept out of the message all the same
                raise InvalidInput("Transcribe Medical could not transcribe the recording: send a WAV, WebM or "
                                   "Ogg recording of speech")
            if self._clock() >= deadline:
                raise DependencyTimeout(f"Transcribe Medical did not finish within {self._max_wait:.0f} s")
            self._sleep(self._poll)

    def _forget(self, job: str | None, *keys: str) -> None:
        """Delete what the job left (best effort: the prefix's lifecycle rule expires any leftover)."""
        for key in keys:
            with contextlib.suppress(BotoCoreError, ClientError):
                self.s3_client.delete_object(Bucket=self._bucket, Key=key)
        if job is not None:
            with contextlib.suppress(BotoCoreError, ClientError):
                self.transcribe_client.delete_medical_transcription_job(MedicalTranscriptionJobName=job)

    @staticmethod
    def _call(operation: Callable[..., Any], **params: Any) -> Any:
        try:
            return operation(**params)
        except ClientError as exc:  # the code only: a message may quote the request
            code = exc.response.get("Error", {}).get("Code", "error")
            if code in THROTTLED:
                raise Unavailable(f"the speech service is busy ({code}): ask again in a moment") from None
            raise DependencyError(f"speech service refused the call ({code})") from None
        except BotoCoreError as exc:
            raise DependencyError(f"speech service unreachable ({type(exc).__name__})") from None
