"""A spoken question streamed as WebSocket messages (speech/chunked.py): pieces kept once, in any order of
arrival, under the recording's limits, joined in sequence order at the end, and nothing left once it ends."""

from __future__ import annotations

import base64
import io
import threading
import wave
from pathlib import Path
from typing import Any

import pytest

from voiceassist.adapters.local.memory_audio_chunks import MemoryAudioChunkStore
from voiceassist.adapters.local.sqlite_state import SqliteKeyValueState
from voiceassist.errors import Conflict, InvalidInput, NotFound, PayloadTooLarge, UnsupportedMediaType
from voiceassist.speech import MAX_AUDIO_BYTES
from voiceassist.speech.chunked import (
    CHUNK_AUDIO_BYTES,
    END_WAIT_SECONDS,
    STATE_TTL_SECONDS,
    VoiceChunkMessage,
    VoiceEndMessage,
    VoiceStartMessage,
    VoiceStreams,
    parsed,
)

CONNECTION, USER = "conn-A1", "user-1"


def _wav(seconds: float) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as recording:
        recording.setnchannels(1)
        recording.setsampwidth(2)
        recording.setframerate(16_000)
        recording.writeframes(bytes(range(256)) * int(seconds * 16_000 * 2 / 256))
    return out.getvalue()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def parts(tmp_path: Path) -> tuple[VoiceStreams, MemoryAudioChunkStore, SqliteKeyValueState, Clock]:
    store, state, clock = MemoryAudioChunkStore(), SqliteKeyValueState(tmp_path / "state.db"), Clock()
    return VoiceStreams(store, state, sleep=clock.sleep, clock=lambda: clock.now), store, state, clock


def _start(streams: VoiceStreams, audio_format: str = "audio/wav", **fields: Any) -> None:
    streams.start(CONNECTION, USER, VoiceStartMessage(action="voice.start", format=audio_format, **fields))


def _chunk(streams: VoiceStreams, seq: int, data: bytes, user: str = USER) -> None:
    streams.chunk(CONNECTION, user, VoiceChunkMessage(action="voice.chunk", seq=seq,
                                                      audio=base64.b64encode(data).decode()))


def _pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def test_voice_chunks_arriving_out_of_order_are_joined_in_sequence_order(parts: Any) -> None:
    streams, store, _, _ = parts
    recording = _wav(2.0)
    pieces = _pieces(recording, 20_000)
    _start(streams)
    for seq in reversed(range(len(pieces))):  # API Gateway does not order the invocations
        _chunk(streams, seq, pieces[seq])
    question = streams.end(CONNECTION, USER, VoiceEndMessage(action="voice.end", chunks=len(pieces)))
    assert question.audio == recording and round(question.seconds, 1) == 2.0 and question.ask is True
    assert len(store) == 0  # every piece deleted at the end


def test_voice_chunk_repeated_is_refused_and_the_first_copy_is_kept(parts: Any) -> None:
    streams, _, _, _ = parts
    recording = _wav(1.0)
    first, second = recording[:20_000], recording[20_000:]
    _start(streams)
    _chunk(streams, 0, first)
    with pytest.raises(Conflict, match="chunk 0 was already received"):
        _chunk(streams, 0, b"RIFF" + b"\x00" * 100)
    _chunk(streams, 1, second)
    assert streams.end(CONNECTION, USER, VoiceEndMessage(action="voice.end", chunks=2)).audio == recording


def test_voice_end_waits_for_chunks_in_flight_then_names_the_missing_one_and_cleans_up(parts: Any) -> None:
    streams, store, _, clock = parts
    pieces = _pieces(_wav(1.0), 10_000)
    _start(streams)
    for seq in (0, 1, 3):
        _chunk(streams, seq, pieces[seq])
    with pytest.raises(InvalidInput, match="chunk 2 did not arrive"):
        streams.end(CONNECTION, USER, VoiceEndMessage(action="voice.end", chunks=4))
    assert END_WAIT_SECONDS <= sum(clock.slept) <= END_WAIT_SECONDS + 1  # waited for chunk 2's invocation
    assert len(store) == 0
    with pytest.raises(NotFound, match="voice.start"):  # the stream ended: a late chunk is not kept
        _chunk(streams, 2, pieces[2])
    assert len(store) == 0


def test_voice_chunk_that_arrives_while_the_end_waits_completes_the_recording(parts: Any) -> None:
    streams, _, _, clock = parts
    recording = _wav(1.0)
    pieces = _pieces(recording, 12_000)
    _start(streams)
    for seq in range(len(pieces) - 1):
        _chunk(streams, seq, pieces[seq])
    delivered: list[int] = []

    def sleep_then_deliver(seconds: float) -> None:  # the last chunk's invocation finishes 1 s into the wait
        clock.now += seconds
        if clock.now >= 1.0 and not delivered:
            delivered.append(len(pieces) - 1)
            _chunk(streams, len(pieces) - 1, pieces[-1])

    streams._sleep = sleep_then_deliver  # type: ignore[method-assign]
    question = streams.end(CONNECTION, USER, VoiceEndMessage(action="voice.end", chunks=len(pieces)))
    assert question.audio == recording and delivered


def test_voice_stream_over_the_recording_limit_is_a_413_and_its_chunks_are_deleted(parts: Any) -> None:
    streams, store, _, _ = parts
    _start(streams, "audio/pcm")
    piece = b"\x01\x00" * (CHUNK_AUDIO_BYTES // 2)
    seq = 0
    with pytest.raises(PayloadTooLarge, match="passed"):
        while seq * CHUNK_AUDIO_BYTES <= MAX_AUDIO_BYTES:
            _chunk(streams, seq, piece)
            seq += 1
    assert seq == MAX_AUDIO_BYTES // CHUNK_AUDIO_BYTES and len(store) == 0
    with pytest.raises(NotFound):
        streams.end(CONNECTION, USER, VoiceEndMessage(action="voice.end", chunks=seq))


def test_voice_stream_refuses_a_first_chunk_that_is_not_the_format_named(parts: Any) -> None:
    streams, store, _, _ = parts
    _start(streams, "audio/webm;codecs=opus")
    with pytest.raises(UnsupportedMediaType, match="not webm"):
        _chunk(streams, 0, _wav(0.5)[:4000])
    assert len(store) == 0


def test_voice_stream_refuses_an_unknown_format_and_a_recording_too_long(parts: Any) -> None:
    streams, store, _, _ = parts
    with pytest.raises(UnsupportedMediaType):
        _start(streams, "audio/mpeg")
    _start(streams, "audio/pcm")
    for seq, piece in enumerate(_pieces(b"\x00\x01" * 16_000 * 61, CHUNK_AUDIO_BYTES)):
        _chunk(streams, seq, piece)
    with pytest.raises(InvalidInput, match="lasts 61 s"):
        streams.end(CONNECTION, USER, VoiceEndMessage(action="voice.end", chunks=seq + 1))
    assert len(store) == 0


def test_voice_stream_belongs_to_its_user_and_a_new_start_drops_the_old_pieces(parts: Any) -> None:
    streams, store, state, _ = parts
    _start(streams, "audio/pcm")
    _chunk(streams, 0, b"\x00\x01" * 100)
    with pytest.raises(NotFound):
        _chunk(streams, 1, b"\x00\x01" * 100, user="someone-else")
    _start(streams, "audio/pcm", ask=False)
    assert len(store) == 0
    value, _ = state.get(f"voice-stream#{CONNECTION}")
    assert value["received"] == {} and value["ask"] is False


def test_voice_stream_state_holds_no_audio_and_expires(parts: Any, tmp_path: Path) -> None:
    streams, _, _, _ = parts
    _start(streams, "audio/pcm", session_id="sess-1")
    audio = b"\x07\x09" * 500
    _chunk(streams, 0, audio)
    raw = (tmp_path / "state.db").read_bytes()
    assert audio not in raw and base64.b64encode(audio) not in raw
    assert STATE_TTL_SECONDS == 900


def test_voice_abandon_deletes_an_open_streams_pieces(parts: Any) -> None:
    streams, store, _, _ = parts
    _start(streams, "audio/pcm")
    _chunk(streams, 0, b"\x00\x01" * 100)
    streams.abandon(CONNECTION)
    streams.abandon(CONNECTION)  # twice (the $disconnect after an end): nothing to do
    assert len(store) == 0


def test_voice_chunks_sent_at_once_are_all_recorded(parts: Any) -> None:
    """Concurrent invocations race on the state item: compare-and-set keeps every piece."""
    streams, _, _, _ = parts
    recording = b"\x02\x03" * 40_000
    pieces = _pieces(recording, 5_000)
    _start(streams, "audio/pcm")
    failures: list[BaseException] = []

    def send(seq: int) -> None:
        try:
            _chunk(streams, seq, pieces[seq])
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=send, args=(seq,)) for seq in range(len(pieces))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    question = streams.end(CONNECTION, USER, VoiceEndMessage(action="voice.end", chunks=len(pieces)))
    assert question.audio[44:] == recording


def test_voice_messages_refused_by_shape_never_echo_the_audio() -> None:
    audio = base64.b64encode(b"patient John Smith" * 10).decode()
    with pytest.raises(InvalidInput) as refused:
        parsed(VoiceChunkMessage, {"action": "voice.chunk", "seq": -1, "audio": audio})
    assert "seq" in str(refused.value) and audio not in str(refused.value)


def test_voice_chunk_over_its_size_is_a_413_and_not_base64_a_400(parts: Any) -> None:
    streams, store, _, _ = parts
    _start(streams, "audio/pcm")
    with pytest.raises(PayloadTooLarge, match=f"1 to {CHUNK_AUDIO_BYTES} bytes"):
        _chunk(streams, 0, b"\x00" * (CHUNK_AUDIO_BYTES + 1))
    with pytest.raises(InvalidInput, match="not base64"):
        streams.chunk(CONNECTION, USER, VoiceChunkMessage(action="voice.chunk", seq=0, audio="not base64!"))
    assert len(store) == 0
