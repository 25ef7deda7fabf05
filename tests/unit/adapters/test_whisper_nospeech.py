"""A recording with no speech in it (silence, hiss, a loud fan) is heard as nothing, cheaply: Silero VAD (the model
faster-whisper ships in its package, run by speech/vad.py; tests/unit/test_speech_vad.py) finds no speech, so
Whisper never decodes it and cannot read a question into it (issue 29; decision 0031; bench/voice_nospeech.py). The
recordings are made here; no Whisper weights load."""

from __future__ import annotations

import io
import wave
from typing import Any

import numpy as np
import pytest

from voiceassist.adapters.local import whisper_stt
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText

pytest.importorskip("faster_whisper")  # decodes the recordings (PyAV)


def wav(samples: Any, rate: int = 16_000) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(rate)
        target.writeframes(np.clip(np.asarray(samples) * 32767, -32768, 32767).astype("<i2").tobytes())
    return out.getvalue()


def white_noise(seconds: float, dbfs: float, seed: int = 7) -> bytes:
    return wav(np.random.default_rng(seed).normal(0.0, 10 ** (dbfs / 20), int(16_000 * seconds)))


class NoDecoding:
    def __init__(self) -> None:
        self.calls = 0

    def transcribe(self, audio: Any, **options: Any) -> Any:
        self.calls += 1
        raise AssertionError("Whisper decoded a recording with no speech in it")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> NoDecoding:
    guard = NoDecoding()
    monkeypatch.setattr(whisper_stt, "shared_model", lambda *args, **kwargs: guard)
    return guard


@pytest.mark.parametrize("recording", [
    pytest.param(wav(np.zeros(16_000)), id="silence-1s"),
    pytest.param(white_noise(1.0, -40), id="noise-40dBFS-1s"),
    pytest.param(white_noise(1.0, -20), id="noise-20dBFS-1s"),
    pytest.param(white_noise(5.0, -20, seed=11), id="noise-20dBFS-5s"),
    pytest.param(wav(np.zeros(3 * 44_100), rate=44_100), id="silence-3s-44.1kHz"),
])
def test_no_speech_is_an_empty_transcript_without_a_decode(model: NoDecoding, recording: bytes) -> None:
    transcript = WhisperSpeechToText(vocabulary=lambda: "Clinical question. Terms: metformin, lisinopril.",
                                     ).transcribe(recording)

    assert model.calls == 0
    assert transcript.text == "" and transcript.words == [] and transcript.confidence == 0.0
    assert transcript.engine == "whisper-base" and transcript.duration_seconds > 0.9
    assert transcript.speech_heard is False and transcript.model_dump(mode="json")["speech_heard"] is False


def test_the_gate_can_be_turned_off_for_a_bench(model: NoDecoding) -> None:
    with pytest.raises(AssertionError, match="no speech"):
        WhisperSpeechToText(speech_gate=False).transcribe(wav(np.zeros(16_000)))
    assert model.calls == 1


def test_speech_is_found_in_a_spoken_question() -> None:
    from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
    from voiceassist.errors import ModelUnavailable

    try:
        spoken = EspeakTextToSpeech().synthesize("What is the maximum daily dose of metformin?")
    except ModelUnavailable:
        pytest.skip("espeak-ng is not installed")
    samples = whisper_stt.decoded(spoken)
    assert whisper_stt.speech_found(samples)
    noisy = samples + np.random.default_rng(3).normal(0.0, 0.01, samples.shape).astype(np.float32)
    assert whisper_stt.speech_found(noisy)  # a question said over a quiet hiss is still speech
    assert not whisper_stt.speech_found(samples[:0])
