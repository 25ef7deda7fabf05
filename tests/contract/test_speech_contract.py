"""One contract for both sides of the speech ports: faster-whisper and espeak-ng locally, Amazon Transcribe
Medical and Amazon Polly on AWS (botocore's Stubber: the real API shapes, parameters checked against the
service models). The same calls, the same Transcript and WAV, the same refusals; then what only the AWS side
does: the recording and its transcript pass through the voice bucket encrypted with the environment key and
are deleted whatever happens, and a failure names an AWS error code, never what was said.

Whisper loads once per test process (whisper_stt.shared_model)."""

from __future__ import annotations

import io
import json
import wave
from collections.abc import Iterator
from typing import Any

import boto3
import numpy as np
import pytest
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from voiceassist.adapters.aws.polly_tts import MAX_REQUEST_CHARACTERS, PollyTextToSpeech
from voiceassist.adapters.aws.transcribe_medical_stt import TranscribeMedicalSpeechToText
from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.errors import DependencyError, DependencyTimeout, InvalidInput, Unavailable
from voiceassist.speech import MAX_SPEECH_CHARACTERS, SpeechToText, TextToSpeech

# every test that decodes speech with Whisper runs on one xdist worker: the model loads once per run there and a
# recording decoded twice is decoded once (tests/support/whisper_memo.py, tests/support/xdist_order.py)
pytestmark = pytest.mark.xdist_group("whisper")
QUESTION = "What is the maximum daily dose of metformin?"
BUCKET, KEY_ID = "voiceassist-dev-voice", "arn:aws:kms:us-east-1:111122223333:key/abcd"
HEARD = [("What", 0.1, 0.3), ("is", 0.3, 0.4), ("the", 0.4, 0.5), ("maximum", 0.5, 0.9), ("daily", 0.9, 1.2),
         ("dose", 1.2, 1.5), ("of", 1.5, 1.6), ("metformin", 1.6, 2.3)]


def _client(service: str) -> Any:
    return boto3.client(service, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")


def _body(data: bytes) -> StreamingBody:
    return StreamingBody(io.BytesIO(data), len(data))


def result_file(words: list[tuple[str, float, float]]) -> bytes:
    items: list[dict[str, Any]] = [{"type": "pronunciation", "start_time": str(start), "end_time": str(end),
                                    "alternatives": [{"content": word, "confidence": "0.97"}]}
                                   for word, start, end in words]
    items.append({"type": "punctuation", "alternatives": [{"content": "?", "confidence": "0.0"}]})
    text = " ".join(word for word, _, _ in words) + "?"
    return json.dumps({"jobName": "x", "results": {"transcripts": [{"transcript": text}], "items": items}}).encode()


class TranscribeSide:
    """Transcribe Medical behind Stubbers: each `expect_*` queues the calls one transcription makes."""

    def __init__(self) -> None:
        self.transcribe, self.s3 = _client("transcribe"), _client("s3")
        self.stub_transcribe, self.stub_s3 = Stubber(self.transcribe), Stubber(self.s3)
        self.clock = [0.0]
        self.adapter = TranscribeMedicalSpeechToText(
            bucket=BUCKET, kms_key_id=KEY_ID, vocabulary="voiceassist-dev-terms", transcribe=self.transcribe,
            s3=self.s3, max_wait_seconds=5, poll_seconds=1, sleep=self._sleep, clock=lambda: self.clock[0])

    def _sleep(self, seconds: float) -> None:
        self.clock[0] += seconds

    def expect_job(self, *, statuses: tuple[str, ...] = ("IN_PROGRESS", "COMPLETED"), result: bytes | None = None,
                   media_format: str = "wav") -> None:
        self.stub_s3.add_response("put_object", {}, {"Bucket": BUCKET, "Key": ANY, "Body": ANY,
                                                     "ServerSideEncryption": "aws:kms", "SSEKMSKeyId": KEY_ID})
        self.stub_transcribe.add_response("start_medical_transcription_job", {}, {
            "MedicalTranscriptionJobName": ANY, "LanguageCode": "en-US", "MediaFormat": media_format,
            "Media": {"MediaFileUri": ANY}, "OutputBucketName": BUCKET, "OutputKey": ANY,
            "OutputEncryptionKMSKeyId": KEY_ID, "Specialty": "PRIMARYCARE", "Type": "DICTATION",
            "Settings": {"VocabularyName": "voiceassist-dev-terms"}})
        for status in statuses:
            self.stub_transcribe.add_response("get_medical_transcription_job", {"MedicalTranscriptionJob": {
                "MedicalTranscriptionJobName": "x", "TranscriptionJobStatus": status}},
                {"MedicalTranscriptionJobName": ANY})
        if result is not None:
            self.stub_s3.add_response("get_object", {"Body": _body(result)}, {"Bucket": BUCKET, "Key": ANY})
        self.expect_cleanup()

    def expect_cleanup(self, *, job: bool = True) -> None:
        for _ in range(2):  # the recording and the transcript
            self.stub_s3.add_response("delete_object", {}, {"Bucket": BUCKET, "Key": ANY})
        if job:
            self.stub_transcribe.add_response("delete_medical_transcription_job", {},
                                              {"MedicalTranscriptionJobName": ANY})

    def expect_success(self) -> None:
        self.expect_job(result=result_file(HEARD))

    def done(self) -> None:
        self.stub_transcribe.assert_no_pending_responses()
        self.stub_s3.assert_no_pending_responses()


class WhisperSide:
    def __init__(self) -> None:
        from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText

        self.adapter = WhisperSpeechToText()

    def expect_success(self) -> None:
        pass

    def done(self) -> None:
        pass


@pytest.fixture(params=["whisper", "transcribe-medical"])
def stt_side(request: pytest.FixtureRequest) -> Iterator[Any]:
    side: Any = WhisperSide() if request.param == "whisper" else TranscribeSide()
    if isinstance(side, TranscribeSide):
        with side.stub_transcribe, side.stub_s3:
            yield side
    else:
        yield side


@pytest.fixture(scope="module")
def spoken_question() -> bytes:
    return EspeakTextToSpeech().synthesize(QUESTION)


def test_speech_to_text_hears_a_spoken_question_with_word_timings(stt_side: Any, spoken_question: bytes) -> None:
    stt_side.expect_success()
    transcript = stt_side.adapter.transcribe(spoken_question)
    assert isinstance(stt_side.adapter, SpeechToText)
    assert "metformin" in transcript.text.lower() and transcript.engine == stt_side.adapter.name
    assert [w.start for w in transcript.words] == sorted(w.start for w in transcript.words)
    assert all(0.0 <= w.confidence <= 1.0 and w.end >= w.start for w in transcript.words)
    assert transcript.words[-1].word.lower().startswith("metformin") and transcript.duration_seconds > 1.0
    stt_side.done()


def test_speech_to_text_refuses_bytes_that_are_not_audio_and_recordings_too_long(
        stt_side: Any, spoken_question: bytes) -> None:
    with pytest.raises(InvalidInput, match="cannot be decoded"):
        stt_side.adapter.transcribe(b"this is not a recording at all")
    with pytest.raises(InvalidInput, match="at most 1 s"):
        stt_side.adapter.transcribe(spoken_question, max_seconds=1.0)
    stt_side.done()  # on AWS: nothing was uploaded or started


class PollySide:
    def __init__(self) -> None:
        self.client = _client("polly")
        self.stub = Stubber(self.client)
        self.adapter = PollyTextToSpeech(client=self.client)

    def expect_success(self, requests: int = 1) -> None:
        for _ in range(requests):
            self.stub.add_response("synthesize_speech", {"AudioStream": _body(b"\x00\x01" * 16_000),
                                                         "ContentType": "audio/pcm"},
                                   {"Text": ANY, "TextType": "text", "OutputFormat": "pcm", "SampleRate": "16000",
                                    "VoiceId": "Joanna", "Engine": "neural"})

    def done(self) -> None:
        self.stub.assert_no_pending_responses()


class EspeakSide:
    adapter = EspeakTextToSpeech()

    def expect_success(self, requests: int = 1) -> None:
        pass

    def done(self) -> None:
        pass


@pytest.fixture(params=["espeak-ng", "polly"])
def tts_side(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "polly":
        side = PollySide()
        with side.stub:
            yield side
    else:
        yield EspeakSide()


def test_text_to_speech_returns_a_playable_wav(tts_side: Any) -> None:
    tts_side.expect_success()
    audio = tts_side.adapter.synthesize("Metformin: at most 2,000 mg a day [1].")
    assert isinstance(tts_side.adapter, TextToSpeech)
    with wave.open(io.BytesIO(audio)) as played:
        assert played.getnchannels() == 1 and played.getsampwidth() == 2
        assert played.getnframes() / played.getframerate() >= 0.5
    tts_side.done()


def test_text_to_speech_refuses_empty_and_overlong_text(tts_side: Any) -> None:
    for text in ("  ", "a" * (MAX_SPEECH_CHARACTERS + 1)):
        with pytest.raises(InvalidInput):
            tts_side.adapter.synthesize(text)
    tts_side.done()


# ---- what only the AWS side does -------------------------------------------------------------------------------
def test_polly_reads_a_long_answer_in_pieces_under_its_request_limit() -> None:
    side = PollySide()
    answer = ("Metformin is started at 500 mg once daily with the evening meal. " * 50).strip()
    assert MAX_REQUEST_CHARACTERS < len(answer) <= MAX_SPEECH_CHARACTERS
    with side.stub:
        side.expect_success(requests=2)
        audio = side.adapter.synthesize(answer)
        side.done()
    with wave.open(io.BytesIO(audio)) as played:
        assert played.getnframes() == 2 * 16_000


def test_transcribe_medical_puts_the_recording_encrypted_and_deletes_everything_it_left() -> None:
    side = TranscribeSide()
    with side.stub_transcribe, side.stub_s3:
        side.expect_success()
        side.adapter.transcribe(b"RIFF\x00\x00\x00\x00WAVE" + b"\x00" * 64)
        side.done()  # put (SSE-KMS with the environment key), start, poll, read, 2 deletes, delete the job


def test_transcribe_medical_failed_or_slow_job_is_cleaned_up_and_says_nothing_heard() -> None:
    side = TranscribeSide()
    webm = b"\x1a\x45\xdf\xa3" + b"\x00" * 64
    with side.stub_transcribe, side.stub_s3:
        side.expect_job(statuses=("FAILED",), media_format="webm")
        with pytest.raises(InvalidInput, match="could not transcribe"):
            side.adapter.transcribe(webm)
        side.expect_job(statuses=("IN_PROGRESS",) * 6, media_format="webm")
        with pytest.raises(DependencyTimeout):
            side.adapter.transcribe(webm)
        side.done()


def test_transcribe_medical_refusal_names_the_error_code_not_the_request() -> None:
    side = TranscribeSide()
    with side.stub_transcribe, side.stub_s3:
        side.stub_s3.add_response("put_object", {}, None)
        side.stub_transcribe.add_client_error("start_medical_transcription_job", "BadRequestException",
                                              "Patient John Smith said something", 400)
        side.expect_cleanup(job=False)  # never started: no job to delete
        with pytest.raises(DependencyError) as refused:
            side.adapter.transcribe(b"OggS" + b"\x00" * 64)
        side.done()
    assert "BadRequestException" in str(refused.value) and "Smith" not in str(refused.value)
    assert refused.value.__cause__ is None and refused.value.__suppress_context__


def test_transcribe_medical_throttled_start_is_a_503_to_retry_and_leaves_nothing() -> None:
    side = TranscribeSide()
    with side.stub_transcribe, side.stub_s3:
        side.stub_s3.add_response("put_object", {}, None)
        side.stub_transcribe.add_client_error("start_medical_transcription_job", "LimitExceededException",
                                              "Rate exceeded", 400)
        side.expect_cleanup(job=False)
        with pytest.raises(Unavailable, match="busy") as refused:
            side.adapter.transcribe(b"OggS" + b"\x00" * 64)
        side.done()
    assert refused.value.status_code == 503


def test_transcribe_medical_throttled_polls_are_asked_again_until_the_job_completes() -> None:
    side = TranscribeSide()
    with side.stub_transcribe, side.stub_s3:
        side.stub_s3.add_response("put_object", {}, None)
        side.stub_transcribe.add_response("start_medical_transcription_job", {}, None)
        for _ in range(2):
            side.stub_transcribe.add_client_error("get_medical_transcription_job", "LimitExceededException",
                                                  "Rate exceeded", 400)
        side.stub_transcribe.add_response("get_medical_transcription_job", {"MedicalTranscriptionJob": {
            "TranscriptionJobStatus": "COMPLETED"}}, None)
        side.stub_s3.add_response("get_object", {"Body": _body(result_file(HEARD))}, None)
        side.expect_cleanup()
        heard = side.adapter.transcribe(b"RIFF\x00\x00\x00\x00WAVE" + b"\x00" * 64)
        side.done()
    assert heard.text == QUESTION


def test_transcribe_medical_throttled_until_the_deadline_is_a_timeout_and_the_job_is_deleted() -> None:
    side = TranscribeSide()
    with side.stub_transcribe, side.stub_s3:
        side.stub_s3.add_response("put_object", {}, None)
        side.stub_transcribe.add_response("start_medical_transcription_job", {}, None)
        for _ in range(6):  # 5 s of 1 s polls, then the deadline
            side.stub_transcribe.add_client_error("get_medical_transcription_job", "LimitExceededException",
                                                  "Rate exceeded", 400)
        side.expect_cleanup()
        with pytest.raises(DependencyTimeout):
            side.adapter.transcribe(b"RIFF\x00\x00\x00\x00WAVE" + b"\x00" * 64)
        side.done()


def _wav(rate: int, channels: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as recording:
        recording.setnchannels(channels)
        recording.setsampwidth(2)
        recording.setframerate(rate)
        recording.writeframes(b"\x00\x00" * (channels * rate // 10))
    return out.getvalue()


def test_transcribe_medical_refuses_a_wav_below_16_khz_or_over_two_channels_before_storing_it() -> None:
    """AWS's rule: Transcribe Medical supports 16,000 Hz or higher and one or two channels (Transcribe developer
    guide, "Amazon Transcribe Medical" and "Data input and output"); such a job would fail after the upload."""
    side = TranscribeSide()
    with side.stub_transcribe, side.stub_s3:
        for rate, channels in ((8_000, 1), (16_000, 3)):
            with pytest.raises(InvalidInput, match=f"{rate} Hz, {channels} channels"):
                side.adapter.transcribe(_wav(rate, channels))
        side.done()  # nothing stored, no job
        side.expect_success()
        side.adapter.transcribe(_stereo(EspeakTextToSpeech().synthesize(QUESTION)))
        side.done()


def _stereo(recording: bytes) -> bytes:
    """A mono 16-bit WAV with each sample on both channels."""
    with wave.open(io.BytesIO(recording)) as mono:
        rate, frames = mono.getframerate(), np.frombuffer(mono.readframes(mono.getnframes()), "<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(2)
        target.setsampwidth(2)
        target.setframerate(rate)
        target.writeframes(np.repeat(frames, 2).astype("<i2").tobytes())
    return out.getvalue()


def _noise(seconds: float, dbfs: float, rate: int = 16_000, seed: int = 7) -> bytes:
    samples = np.random.default_rng(seed).normal(0.0, 10 ** (dbfs / 20), int(rate * seconds))
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(rate)
        target.writeframes(np.clip(samples * 32767, -32768, 32767).astype("<i2").tobytes())
    return out.getvalue()


# ---- no speech: both sides answer it the same way, and neither spends anything on it ---------------------------
@pytest.mark.parametrize("recording", [
    pytest.param(_noise(1.0, -120), id="silence-1s"),
    pytest.param(_noise(1.0, -40), id="noise-40dBFS-1s"),
    pytest.param(_noise(5.0, -20, seed=11), id="noise-20dBFS-5s"),
    pytest.param(_wav(44_100, 2), id="silence-44.1kHz-stereo"),
])
def test_speech_to_text_hears_nothing_in_silence_or_noise_and_starts_nothing(
        stt_side: Any, recording: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Silero VAD (speech/vad.py) finds no speech: Whisper does not decode, and no recording is stored and no
    Transcribe Medical job started (the Stubbers have nothing queued: any call would fail the test)."""
    from voiceassist.adapters.local import whisper_stt

    def no_model(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Whisper was loaded for a recording with no speech in it")

    monkeypatch.setattr(whisper_stt, "shared_model", no_model)
    transcript = stt_side.adapter.transcribe(recording)
    assert transcript.text == "" and transcript.words == [] and transcript.confidence == 0.0
    assert transcript.speech_heard is False and transcript.engine == stt_side.adapter.name
    assert transcript.duration_seconds > 0.05
    stt_side.done()


def test_transcribe_medical_sends_webm_it_cannot_decode_to_the_job_and_an_empty_result_is_no_speech() -> None:
    """The function has no WebM/Ogg decoder, so silence recorded by a browser reaches the job; Transcribe's
    transcript of it is empty, and the adapter's answer is the one the gate gives a WAV."""
    side = TranscribeSide()
    silence = json.dumps({"jobName": "x", "results": {"transcripts": [{"transcript": ""}], "items": []}}).encode()
    with side.stub_transcribe, side.stub_s3:
        side.expect_job(result=silence, media_format="webm")
        transcript = side.adapter.transcribe(b"\x1a\x45\xdf\xa3" + b"\x00" * 64)
        side.done()
    gated = TranscribeSide()
    with gated.stub_transcribe, gated.stub_s3:
        silent_wav = gated.adapter.transcribe(_noise(1.0, -120))
        gated.done()  # no job for the WAV
    assert transcript.speech_heard is False
    assert transcript.model_dump(exclude={"duration_seconds"}) == silent_wav.model_dump(exclude={"duration_seconds"})


def test_transcribe_medical_gate_can_be_turned_off() -> None:
    side = TranscribeSide()
    adapter = TranscribeMedicalSpeechToText(bucket=BUCKET, kms_key_id=KEY_ID, vocabulary="voiceassist-dev-terms",
                                            transcribe=side.transcribe, s3=side.s3, max_wait_seconds=5,
                                            poll_seconds=1, sleep=side._sleep, clock=lambda: side.clock[0],
                                            speech_gate=False)
    silence = json.dumps({"jobName": "x", "results": {"transcripts": [{"transcript": ""}], "items": []}}).encode()
    with side.stub_transcribe, side.stub_s3:
        side.expect_job(result=silence)
        assert adapter.transcribe(_noise(1.0, -120)).speech_heard is False
        side.done()  # the job ran
