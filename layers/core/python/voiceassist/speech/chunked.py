"""A spoken question sent over API Gateway's WebSocket in messages (the AWS side of voice streaming).

API Gateway takes WebSocket messages of at most 128 KB and invokes the `stream` function once per message, with
no ordering between invocations: a later chunk's invocation can finish before an earlier one's. So each piece
of the recording carries its sequence number, is kept in an `AudioChunkStore` (AWS: the voice bucket's
`voice/stream/` prefix, SSE-KMS, expired after a day) under a random stream id, and the stream's state (format,
the chunks stored and their bytes; never audio) lives in the KeyValueState with a 15-minute TTL, updated by
compare-and-set so concurrent chunks cannot lose one another. The end message says how many chunks there were;
it waits briefly for chunks still in flight, then joins them in order.

Messages (docs/api.md, "Voice over the AWS WebSocket"; decision 0031):
  {"action": "voice.start", "format": ..., "session_id"?, "ask"? (true)}
  {"action": "voice.chunk", "seq": n, "audio": <base64 of at most CHUNK_AUDIO_BYTES>}   (n from 0)
  {"action": "voice.end", "chunks": N}
A repeated `seq` is refused (the first copy is kept); a missing one fails the end message. Each failure is one
`error` event; a failed stream's chunks are deleted and its state ended.
"""

from __future__ import annotations

import base64
import binascii
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from voiceassist.errors import Conflict, InvalidInput, NotFound, PayloadTooLarge, UnsupportedMediaType
from voiceassist.ports import KeyValueState
from voiceassist.speech import AUDIO_TYPES, MAX_AUDIO_BYTES, MAX_AUDIO_SECONDS, container_of
from voiceassist.speech.stream import PCM, Recording, media_type

# API Gateway's WebSocket frames are at most 32 KB (a larger frame closes the connection with 1009) and a page's
# WebSocket API cannot choose its frames, so a voice.chunk message must fit in one: 22 KiB of audio is 30,040
# characters of base64, about 30,100 bytes with the JSON around it (tests/infra/test_infra_voice_aws_rules.py).
CHUNK_AUDIO_BYTES = 22 * 1024
MAX_CHUNKS = 256  # MediaRecorder's 250 ms slices of a 60 s question, with room; bounds the state item (~4 KB)
STATE_TTL_SECONDS = 15 * 60  # a stream left open (a client gone without $disconnect) is forgotten after this
# At the end message, chunks whose invocations are still running are waited for this long: each chunk may be a
# cold start of the stream function's container image (seconds before the handler runs), and the end message's
# own invocation may overtake them. 15 s of it + the job's 25 s + the query's 28 s stay within the function's 90 s.
END_WAIT_SECONDS = 15.0
END_POLL_SECONDS = 0.5
# Concurrent chunks of one stream race on the state item: each retries its compare-and-set (one writer wins each
# round, so N chunks at once need up to N rounds), after a random pause of up to CAS_PAUSE_SECONDS.
CAS_ATTEMPTS = 64
CAS_PAUSE_SECONDS = 0.02
OPEN, ENDED = "open", "ended"


@runtime_checkable
class AudioChunkStore(Protocol):
    """Pieces of one streamed recording, by stream id and sequence number; never logged, never kept past the
    stream (and expired by the store's own lifecycle as a backstop)."""

    def put(self, stream_id: str, seq: int, data: bytes) -> None:
        """Store a piece once: a Conflict if `seq` is already stored for this stream (the first copy stays)."""
        ...

    def get(self, stream_id: str, seq: int) -> bytes:
        """The piece, or NotFound."""
        ...

    def delete(self, stream_id: str, seqs: list[int]) -> None:
        """Remove the pieces (missing ones are ignored)."""
        ...


class VoiceStartMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["voice.start"]
    format: str = Field(max_length=100, description="audio/pcm (16 kHz mono s16le), audio/wav, audio/webm or "
                                                    "audio/ogg")
    session_id: str | None = Field(default=None, max_length=128)
    ask: bool = Field(default=True, description="answer the transcript as a question (false: transcript only)")


class VoiceChunkMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["voice.chunk"]
    seq: int = Field(ge=0, lt=MAX_CHUNKS)
    audio: str = Field(min_length=1, description="base64 of at most CHUNK_AUDIO_BYTES (more is a 413)")


class VoiceEndMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["voice.end"]
    chunks: int = Field(ge=1, le=MAX_CHUNKS, description="how many chunks were sent (seq 0 to chunks - 1)")


@dataclass(frozen=True)
class StreamedQuestion:
    """What the end message hands on: the recording (as a SpeechToText adapter takes it) and the start's asks."""

    audio: bytes
    seconds: float
    ask: bool
    session_id: str | None


def parsed(model: type[BaseModel], message: dict[str, Any]) -> Any:
    """The message as `model`, or an InvalidInput naming the fields (never their values: audio is PHI)."""
    try:
        return model.model_validate(message)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}"
                             for e in exc.errors(include_input=False, include_url=False))
        raise InvalidInput(f"the {message.get('action')} message is not valid: {problems}") from None


def _state_key(connection_id: str) -> str:
    return f"voice-stream#{connection_id}"


class VoiceStreams:
    """The three messages' work for one connection at a time; state in `state`, audio in `chunks`."""

    def __init__(self, chunks: AudioChunkStore, state: KeyValueState, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._chunks, self._state = chunks, state
        self._sleep, self._clock = sleep, clock

    def start(self, connection_id: str, user_id: str, message: VoiceStartMessage) -> None:
        """Open a stream (a stream still open on the connection is abandoned first: its chunks deleted)."""
        media = media_type(message.format)
        self.abandon(connection_id)
        _, version = self._state.get(_state_key(connection_id))
        value = {"status": OPEN, "user_id": user_id, "stream_id": uuid.uuid4().hex, "media": media,
                 "ask": message.ask, "session_id": message.session_id, "received": {}, "bytes": 0}
        self._state.put(_state_key(connection_id), value, expected_version=version, ttl_seconds=STATE_TTL_SECONDS)

    def chunk(self, connection_id: str, user_id: str, message: VoiceChunkMessage) -> None:
        """Keep one piece: 413 past the recording's limit, 415 when the first piece is not the format named,
        409 for a sequence number already stored (the first copy stays)."""
        try:
            data = base64.b64decode(message.audio, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput("voice.chunk's audio is not base64") from None
        if not data or len(data) > CHUNK_AUDIO_BYTES:
            raise PayloadTooLarge(f"a voice.chunk carries 1 to {CHUNK_AUDIO_BYTES} bytes of audio")
        value, version = self._open(connection_id, user_id)
        if str(message.seq) in value["received"]:
            raise Conflict(f"chunk {message.seq} was already received; it is kept as first sent")
        if value["bytes"] + len(data) > MAX_AUDIO_BYTES:
            self._fail(connection_id, PayloadTooLarge(f"the recording passed {MAX_AUDIO_BYTES} bytes (about "
                                                      f"{int(MAX_AUDIO_SECONDS)} s): send a shorter question"))
        if message.seq == 0 and value["media"] != PCM and container_of(data[:12]) != AUDIO_TYPES[value["media"]]:
            self._fail(connection_id, UnsupportedMediaType(
                f"the audio is not {AUDIO_TYPES[value['media']]} as the start message says"))
        try:
            self._chunks.put(value["stream_id"], message.seq, data)
        except Conflict:
            raise Conflict(f"chunk {message.seq} was already received; it is kept as first sent") from None
        self._record(connection_id, user_id, message.seq, len(data), first=(value, version))

    def end(self, connection_id: str, user_id: str, message: VoiceEndMessage) -> StreamedQuestion:
        """The whole recording, in sequence order, once every chunk is stored; the stream is then ended and its
        chunks deleted, whatever happens."""
        value, version = self._open(connection_id, user_id)
        wanted = {str(seq) for seq in range(message.chunks)}
        deadline = self._clock() + END_WAIT_SECONDS
        while not wanted <= set(value["received"]) and self._clock() < deadline:
            self._sleep(END_POLL_SECONDS)
            value, version = self._open(connection_id, user_id)
        try:
            missing = sorted(int(seq) for seq in wanted - set(value["received"]))
            if missing:
                raise InvalidInput(f"chunk {missing[0]} did not arrive ({len(missing)} missing): send the question "
                                   "again")
            extra = sorted(int(seq) for seq in set(value["received"]) - wanted)
            if extra:
                raise InvalidInput(f"chunk {extra[0]} was sent but voice.end says {message.chunks} chunks")
            recording = Recording(value["media"])
            for seq in range(message.chunks):
                recording.add(self._chunks.get(value["stream_id"], seq))
            audio, seconds = recording.finished(), recording.seconds()
            if seconds > MAX_AUDIO_SECONDS:
                raise InvalidInput(f"the recording lasts {seconds:.0f} s; ask in at most {MAX_AUDIO_SECONDS:.0f} s")
            return StreamedQuestion(audio=audio, seconds=seconds, ask=bool(value["ask"]),
                                    session_id=value.get("session_id"))
        finally:
            self._close(connection_id, value)

    def abandon(self, connection_id: str) -> None:
        """The client left (or started again): delete what its open stream stored, and end it."""
        value, _ = self._state.get(_state_key(connection_id))
        if value is not None and value.get("status") == OPEN:
            self._close(connection_id, value)

    # ---- state -------------------------------------------------------------------------------------------------
    def _open(self, connection_id: str, user_id: str) -> tuple[dict[str, Any], int]:
        value, version = self._state.get(_state_key(connection_id))
        if value is None or value.get("status") != OPEN or value.get("user_id") != user_id:
            raise NotFound("no voice stream is open on this connection: send voice.start first")
        return value, version

    def _record(self, connection_id: str, user_id: str, seq: int, size: int, *,
                first: tuple[dict[str, Any], int]) -> None:
        """Add a stored chunk to the state by compare-and-set (first with the state read before the chunk was
        stored: one read and one write when no other chunk raced it); the byte limit is checked again under it."""
        stream_id = first[0]["stream_id"]
        for attempt in range(CAS_ATTEMPTS):
            try:
                value, version = first if attempt == 0 else self._open(connection_id, user_id)
            except NotFound:  # ended meanwhile (the end message, a failure, a new start): the piece is not wanted
                self._chunks.delete(stream_id, [seq])
                raise
            if value["stream_id"] != stream_id:
                self._chunks.delete(stream_id, [seq])
                raise NotFound("the voice stream was restarted: send voice.start's chunks again")
            if value["bytes"] + size > MAX_AUDIO_BYTES:
                self._chunks.delete(stream_id, [seq])
                self._fail(connection_id, PayloadTooLarge(f"the recording passed {MAX_AUDIO_BYTES} bytes (about "
                                                          f"{int(MAX_AUDIO_SECONDS)} s): send a shorter question"))
            value["received"][str(seq)] = size
            value["bytes"] += size
            try:
                self._state.put(_state_key(connection_id), value, expected_version=version,
                                ttl_seconds=STATE_TTL_SECONDS)
                return
            except Conflict:
                self._sleep(random.uniform(0.0, CAS_PAUSE_SECONDS))  # noqa: S311 - spreading retries, not secrets
        self._chunks.delete(stream_id, [seq])
        raise Conflict(f"chunk {seq} could not be recorded (too many chunks at once): send it again")

    def _fail(self, connection_id: str, exc: Exception) -> None:
        self.abandon(connection_id)
        raise exc

    def _close(self, connection_id: str, value: dict[str, Any]) -> None:
        """End the stream first (late chunks are refused), then delete every piece it stored."""
        for _ in range(CAS_ATTEMPTS):
            current, version = self._state.get(_state_key(connection_id))
            if current is None or current.get("stream_id") != value["stream_id"]:
                break
            try:
                self._state.put(_state_key(connection_id), {"status": ENDED, "stream_id": value["stream_id"]},
                                expected_version=version, ttl_seconds=STATE_TTL_SECONDS)
                value = current
                break
            except Conflict:
                continue
        self._chunks.delete(value["stream_id"], sorted(int(seq) for seq in value["received"]))
