"""The voice stream's recording and partial schedule (voiceassist/speech/stream.py): what the WebSocket route
hands the recognizer, and how many partial transcripts a recording may cost."""

from __future__ import annotations

import io
import struct
import wave

import pytest

from voiceassist.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType
from voiceassist.speech import MAX_AUDIO_BYTES
from voiceassist.speech.stream import (
    PCM,
    PCM_BYTES_PER_SECOND,
    PartialSchedule,
    Recording,
    StreamStart,
    media_type,
    wav_header,
)


def wav_of(seconds: float, rate: int = 22_050) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(b"\x01\x00" * int(seconds * rate))
    return out.getvalue()


def test_stream_recording_of_raw_pcm_is_handed_over_as_a_16_khz_wav() -> None:
    recording = Recording(PCM)
    for _ in range(4):
        recording.add(b"\x01\x00" * 4000)
    with wave.open(io.BytesIO(recording.finished())) as played:
        assert (played.getframerate(), played.getnchannels(), played.getsampwidth()) == (16_000, 1, 2)
        assert played.getnframes() == 16_000
    assert recording.seconds() == 1.0


def test_stream_recording_of_a_wav_sent_in_pieces_has_the_sizes_of_what_arrived() -> None:
    # A client streaming WAV writes its header before it knows the length (here: a whole file's header, and
    # only half of its samples sent)
    whole = wav_of(2.0)
    recording = Recording(media_type("audio/wav; codecs=1"))
    half = whole[:44 + (len(whole) - 44) // 4 * 2]
    for offset in range(0, len(half), 1000):
        recording.add(half[offset:offset + 1000])
    data = recording.finished()
    assert struct.unpack_from("<I", data, 40)[0] == len(half) - 44
    with wave.open(io.BytesIO(data)) as played:
        assert played.getnframes() == (len(half) - 44) // 2
    assert recording.seconds() == pytest.approx(1.0, abs=0.01)  # from the header's byte rate, 22,050 Hz


def test_stream_recording_refuses_the_wrong_container_and_more_than_the_route_takes() -> None:
    with pytest.raises(UnsupportedMediaType):
        Recording(media_type("audio/ogg")).add(wav_of(0.1))
    with pytest.raises(UnsupportedMediaType):
        media_type("audio/mpeg")
    recording = Recording(PCM)
    recording.add(b"\x00" * (MAX_AUDIO_BYTES - 10))
    with pytest.raises(PayloadTooLarge):
        recording.add(b"\x00" * 11)
    with pytest.raises(InvalidInput):
        Recording(PCM).finished()


def test_stream_partial_schedule_doubles_so_partials_cost_at_most_twice_the_audio() -> None:
    schedule = PartialSchedule()
    decoded = []
    for tenth in range(1, 601):  # a 60 s recording arriving a tenth of a second at a time
        seconds = tenth / 10
        if schedule.due(seconds):
            schedule.started(seconds)
            decoded.append(seconds)
    assert decoded == [5.0, 10.0, 20.0, 40.0]
    assert sum(decoded) <= 2 * 60


def test_stream_start_message_takes_only_the_documented_options() -> None:
    start = StreamStart.model_validate_json('{"type": "start", "format": "audio/pcm"}')
    assert (start.ask, start.partials, start.session_id) == (True, False, None)  # partials cost a decode each
    with pytest.raises(ValueError):
        StreamStart.model_validate_json('{"type": "start", "format": "audio/pcm", "language": "fr"}')
    assert len(wav_header(PCM_BYTES_PER_SECOND)) == 44
