"""Whisper base (faster-whisper) from the pinned weight packages, offline: what a clinician says comes back as
words with timings and confidence. The model loads once per test process (whisper_stt.shared_model)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import wave

import pytest

from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText, model_files
from voiceassist.errors import InvalidInput

# every test that decodes speech with Whisper runs on one xdist worker: the model loads once per run there and a
# recording decoded twice is decoded once (tests/support/whisper_memo.py, tests/support/xdist_order.py)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("whisper")]


def test_whisper_transcribes_a_spoken_question_with_word_timings() -> None:
    audio = EspeakTextToSpeech().synthesize("What is the maximum daily dose of metformin?")
    transcript = WhisperSpeechToText().transcribe(audio)
    assert "maximum daily dose of metformin" in transcript.text.lower()
    assert transcript.language == "en"
    assert [w.word.lower().strip("?") for w in transcript.words][-1] == "metformin"
    starts = [w.start for w in transcript.words]
    assert starts == sorted(starts) and transcript.words[-1].end <= transcript.duration_seconds + 0.1
    assert 0.3 < transcript.confidence <= 1.0


def test_whisper_refuses_a_recording_longer_than_the_limit() -> None:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes(b"\x00\x00" * 16_000 * 3)
    with pytest.raises(InvalidInput, match="lasts 3 s"):
        WhisperSpeechToText().transcribe(buffer.getvalue(), max_seconds=2)


def test_whisper_refuses_bytes_that_are_not_audio() -> None:
    with pytest.raises(InvalidInput, match="cannot be decoded"):
        WhisperSpeechToText().transcribe(b"RIFF\x00\x00\x00\x00WAVEnot really audio")


def test_whisper_weights_load_with_the_hub_offline_and_no_cache() -> None:
    files = model_files()
    assert len(files["model.bin"]) == 145_217_532
    code = ("from voiceassist.adapters.local.whisper_stt import shared_model; "
            "m = shared_model(); print(m.model.is_multilingual)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": "/nonexistent/hf", "HF_HUB_CACHE": "/nonexistent/hf"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True"
