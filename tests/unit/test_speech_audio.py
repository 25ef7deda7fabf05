"""The audio rules every voice route applies before a model hears anything, and espeak-ng's WAV."""

from __future__ import annotations

import io
import struct
import wave

import pytest

from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType
from voiceassist.speech import MAX_AUDIO_BYTES, MAX_SPEECH_CHARACTERS, checked_audio, container_of, sealed_wav


def wav_bytes(seconds: float = 0.5, rate: int = 16_000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x00" * int(seconds * rate))
    return buffer.getvalue()


def test_checked_audio_takes_wav_webm_and_ogg_by_their_magic_bytes() -> None:
    assert checked_audio(wav_bytes(), "audio/wav") == wav_bytes()
    assert container_of(b"\x1a\x45\xdf\xa3" + b"\x00" * 40) == "webm"
    assert container_of(b"OggS" + b"\x00" * 40) == "ogg"
    assert checked_audio(b"OggS" + b"\x00" * 40, "audio/ogg")


def test_checked_audio_refuses_other_types_and_mislabelled_bytes_with_415() -> None:
    with pytest.raises(UnsupportedMediaType, match="audio/wav, audio/webm or audio/ogg"):
        checked_audio(wav_bytes(), "audio/mpeg")
    with pytest.raises(UnsupportedMediaType, match="not wav audio"):
        checked_audio(b"%PDF-1.7 not a recording", "audio/wav")
    with pytest.raises(UnsupportedMediaType, match="a ogg file"):
        checked_audio(b"OggS" + b"\x00" * 40, "audio/webm")


def test_checked_audio_refuses_a_recording_over_the_limit_with_413() -> None:
    with pytest.raises(PayloadTooLarge, match=str(MAX_AUDIO_BYTES)):
        checked_audio(wav_bytes()[:44] + b"\x00" * MAX_AUDIO_BYTES, "audio/wav")
    with pytest.raises(InvalidInput, match="empty"):
        checked_audio(b"", "audio/wav")


def test_sealed_wav_sets_the_sizes_a_pipe_left_as_placeholders() -> None:
    data = bytearray(wav_bytes())
    struct.pack_into("<I", data, 4, 0x7FFFFFFF)
    struct.pack_into("<I", data, 40, 0x7FFFFFFF)
    fixed = sealed_wav(bytes(data))
    assert struct.unpack_from("<I", fixed, 4)[0] == len(fixed) - 8
    with wave.open(io.BytesIO(fixed)) as audio:
        assert audio.getnframes() == 8000


def test_espeak_speaks_a_question_as_a_playable_wav() -> None:
    audio = EspeakTextToSpeech().synthesize("What is the maximum daily dose of metformin?")
    with wave.open(io.BytesIO(audio)) as played:
        seconds = played.getnframes() / played.getframerate()
        assert played.getnchannels() == 1
    assert 1.5 < seconds < 6.0
    assert struct.unpack_from("<I", audio, 4)[0] == len(audio) - 8


def test_espeak_refuses_empty_and_overlong_text() -> None:
    with pytest.raises(InvalidInput, match="nothing to say"):
        EspeakTextToSpeech().synthesize("  \n ")
    with pytest.raises(InvalidInput, match=str(MAX_SPEECH_CHARACTERS)):
        EspeakTextToSpeech().synthesize("dose " * 1000)


def test_espeak_missing_says_how_to_install_it() -> None:
    from voiceassist.errors import ModelUnavailable

    with pytest.raises(ModelUnavailable, match="apt-get install espeak-ng"):
        EspeakTextToSpeech(binary="espeak-ng-not-installed").synthesize("hello")
