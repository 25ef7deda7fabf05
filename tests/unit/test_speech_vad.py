"""Silero VAD in numpy (voiceassist/speech/vad.py), the no-speech gate both speech-to-text adapters ask: the same
probabilities as onnxruntime's run of the ONNX file faster-whisper ships, the same verdict as faster-whisper's
get_speech_timestamps, weights that are that file's, and WAV samples read as PyAV reads them."""

from __future__ import annotations

import io
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voiceassist.speech import vad

RNG = np.random.default_rng(5)


def _wav(samples: Any, *, rate: int = 16_000, width: int = 2, channels: int = 1) -> bytes:
    values = np.clip(np.asarray(samples, dtype=np.float64), -1.0, 1.0 - 1e-9)
    scaled = np.floor(values * (1 << (8 * width - 1))).astype(np.int64)
    if width == 1:
        raw = (scaled + 128).astype(np.uint8).tobytes()
    else:
        raw = b"".join(int(v).to_bytes(width, "little", signed=True) for v in np.repeat(scaled, channels)) \
            if width == 3 else np.repeat(scaled, channels).astype(f"<i{width}").tobytes()
    if width == 1 and channels > 1:
        raw = np.repeat(np.frombuffer(raw, np.uint8), channels).tobytes()
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(channels)
        target.setsampwidth(width)
        target.setframerate(rate)
        target.writeframes(raw)
    return out.getvalue()


@pytest.fixture(scope="module")
def spoken() -> Any:
    from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
    from voiceassist.errors import ModelUnavailable

    pytest.importorskip("faster_whisper")
    try:
        recording = EspeakTextToSpeech().synthesize("What is the first-line antibiotic for community pneumonia?")
    except ModelUnavailable:
        pytest.skip("espeak-ng is not installed")
    from voiceassist.adapters.local.whisper_stt import decoded

    return decoded(recording)


def test_vad_probabilities_are_onnxruntimes_for_the_same_model(spoken: Any) -> None:
    pytest.importorskip("onnxruntime")
    from faster_whisper.vad import VadOptions, get_speech_timestamps, get_vad_model

    model = get_vad_model()
    recordings = {
        "speech": spoken,
        "speech over hiss": spoken + RNG.normal(0.0, 0.05, spoken.shape).astype(np.float32),
        "noise": RNG.normal(0.0, 0.1, 40_000).astype(np.float32),
        "silence": np.zeros(16_000, np.float32),
        "a whole number of chunks": spoken[:512 * 20],
        "speech cut short": spoken[:12_345],
    }
    for name, samples in recordings.items():
        padded = np.pad(samples, (0, 512 - samples.shape[0] % 512))
        theirs = np.asarray(model(padded.copy())).reshape(-1)
        ours = vad.speech_probabilities(samples)
        assert ours.shape == theirs.shape, name
        assert float(np.max(np.abs(ours - theirs))) < 1e-5, name
        assert vad.speech_found(samples) == bool(get_speech_timestamps(samples, VadOptions())), name
    assert vad.speech_found(recordings["speech"]) and vad.speech_found(recordings["speech over hiss"])
    assert not vad.speech_found(recordings["noise"]) and not vad.speech_found(recordings["silence"])


def test_vad_weights_are_those_of_the_onnx_file_faster_whisper_ships() -> None:
    faster_whisper = pytest.importorskip("faster_whisper")
    from voiceassist_local.evaluation.silero_weights import NAMES, initializers

    source = Path(faster_whisper.__file__).parent / "assets" / "silero_vad_v6.onnx"
    found = initializers(source.read_bytes())
    shipped = vad._weights()
    assert set(shipped) == set(NAMES.values())
    for theirs, ours in NAMES.items():
        assert np.array_equal(found[theirs], shipped[ours]), ours


def test_vad_nothing_is_no_speech() -> None:
    assert vad.speech_probabilities(np.zeros(0, np.float32)).shape == (0,)
    assert not vad.speech_found(np.zeros(0, np.float32))


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_vad_reads_integer_wav_of_every_width_as_the_same_samples(width: int) -> None:
    tone = 0.5 * np.sin(np.arange(1_600) * 2 * np.pi * 440 / 16_000)
    samples = vad.wav_samples(_wav(tone, width=width))
    assert samples is not None and samples.dtype == np.float32 and samples.shape == tone.shape
    assert float(np.max(np.abs(samples - tone))) <= max(2.0 / (1 << (8 * width - 1)), 1e-6)  # float32 at 32 bits


def test_vad_averages_channels_and_resamples_to_16_khz(spoken: Any) -> None:
    at_16k = spoken[:32_000]
    spectrum = np.zeros(48_001, dtype=np.complex128)
    spectrum[:16_001] = np.fft.rfft(at_16k)
    at_48k = np.fft.irfft(spectrum, n=96_000) * 3.0  # the same sound at 48 kHz (band-limited)
    samples = vad.wav_samples(_wav(at_48k, rate=48_000, channels=2))
    assert samples is not None and samples.shape == (32_000,)
    assert float(np.sqrt(np.mean((samples - at_16k) ** 2))) < 0.01 * float(np.sqrt(np.mean(at_16k ** 2))) + 1e-3
    assert vad.speech_found(samples) == vad.speech_found(at_16k)
    quiet = vad.wav_samples(_wav(np.zeros(44_100), rate=44_100, channels=2))
    assert quiet is not None and quiet.shape == (16_000,) and not vad.speech_found(quiet)


@pytest.mark.parametrize("audio", [
    pytest.param(b"\x1a\x45\xdf\xa3" + b"\x00" * 64, id="webm"),
    pytest.param(b"OggS" + b"\x00" * 64, id="ogg"),
    pytest.param(b"RIFF\x00\x00\x00\x00WAVE" + b"\x00" * 64, id="wav-without-chunks"),
])
def test_vad_cannot_read_what_is_not_an_integer_wav(audio: bytes) -> None:
    assert vad.wav_samples(audio) is None
