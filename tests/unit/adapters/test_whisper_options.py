"""The decoding options the route's recognizer hands faster-whisper (decision 0031, "Options"; measured by
bench/voice_decoding.py): a fake model records them, so no weights load."""

from __future__ import annotations

import io
import wave
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from voiceassist.adapters.local import whisper_stt
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText


class RecordingModel:
    def __init__(self) -> None:
        self.options: list[dict[str, Any]] = []

    def transcribe(self, audio: Any, **options: Any) -> tuple[Iterator[Any], Any]:
        self.options.append(options)
        word = SimpleNamespace(word=" metformin?", start=0.1, end=0.9, probability=0.9)
        return iter([SimpleNamespace(text=" metformin?", words=[word])]), SimpleNamespace(language="en")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> RecordingModel:
    recording = RecordingModel()
    monkeypatch.setattr(whisper_stt, "shared_model", lambda *args, **kwargs: recording)
    monkeypatch.setattr(whisper_stt, "speech_found", lambda samples: True)  # the tone stands for speech
    return recording


def tone(seconds: float) -> bytes:
    samples = (np.sin(np.arange(int(16_000 * seconds)) * 0.05) * 8000).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(16_000)
        target.writeframes(samples.tobytes())
    return out.getvalue()


def test_whisper_decodes_with_the_measured_options(model: RecordingModel) -> None:
    WhisperSpeechToText(vocabulary=lambda: "Clinical question. Terms: metformin.").transcribe(tone(2.0))

    [options] = model.options
    assert options["language"] == "en" and options["word_timestamps"] is True
    assert options["beam_size"] == 5 and options["temperature"] == 0.0  # one temperature: no fallback decodes
    assert options["condition_on_previous_text"] is False and options["vad_filter"] is False
    assert options["without_timestamps"] is True  # text tokens only: the word timings come from the alignment
    assert options["initial_prompt"] == "Clinical question. Terms: metformin."
    assert options["max_new_tokens"] == whisper_stt.most_tokens(2.0)


def test_whisper_decoding_options_can_be_set_for_a_bench(model: RecordingModel) -> None:
    WhisperSpeechToText(beam_size=10, vad_filter=True, temperature=(0.0, 0.2)).transcribe(tone(1.0))

    [options] = model.options
    assert options["beam_size"] == 10 and options["vad_filter"] is True and options["temperature"] == (0.0, 0.2)


class LateModel:
    """Hears one word 1.3 to 1.9 s into what it is given, and keeps the samples."""

    def __init__(self) -> None:
        self.samples: list[Any] = []

    def transcribe(self, audio: Any, **options: Any) -> tuple[Iterator[Any], Any]:
        self.samples.append(audio)
        word = SimpleNamespace(word=" metformin?", start=1.3, end=1.9, probability=0.9)
        return iter([SimpleNamespace(text=" metformin?", words=[word])]), SimpleNamespace(language="en")


def test_silence_can_go_before_the_recording_for_a_bench_and_the_timings_stay_the_recordings(
        monkeypatch: pytest.MonkeyPatch) -> None:
    late = LateModel()
    monkeypatch.setattr(whisper_stt, "shared_model", lambda *args, **kwargs: late)
    monkeypatch.setattr(whisper_stt, "speech_found", lambda samples: True)

    heard = WhisperSpeechToText(lead_silence=1.0).transcribe(tone(1.0))

    [samples] = late.samples
    assert len(samples) == 32_000
    assert not samples[:16_000].any() and samples[16_000:].any()  # a second of silence, then the recording
    assert (heard.words[0].start, heard.words[0].end) == (0.3, 0.9)  # in the recording's time
    assert heard.duration_seconds == 1.0  # the recording's length, not the decoded one
    WhisperSpeechToText().transcribe(tone(1.0))
    assert whisper_stt.LEAD_SILENCE_SECONDS == 0.0 and len(late.samples[-1]) == 16_000  # measured, not adopted
