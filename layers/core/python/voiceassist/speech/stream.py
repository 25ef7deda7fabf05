"""A spoken question streamed in pieces (the local server's WebSocket /v1/voice/stream): what the client's
start message says, the recording as it grows, and when a partial transcript is worth its cost.

The protocol (docs/api.md, "Voice over a WebSocket"; decision 0031):
  client: {"type": "start", "format": ..., "session_id"?, "ask"? (true), "partials"? (false)}, binary audio,
          {"type": "end"}
  server: {"type": "partial", "data": {"text", "duration_seconds"}} (zero or more), then {"type": "transcript",
          "data": <Transcript, as POST /v1/voice/transcribe returns it>}, then, with "ask" (the default), the
          answer's events exactly as POST /v1/query/stream sends them (route, plan, retrieval, token, citations,
          critique, done, or error); any failure is one `error` event, then the close.

The recording is kept in memory only, for the connection's life, under the limits of POST /v1/voice/transcribe
(MAX_AUDIO_BYTES, MAX_AUDIO_SECONDS), and its container is checked by its magic bytes as the route does.
"""

from __future__ import annotations

import struct
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from voiceassist.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType
from voiceassist.speech import AUDIO_TYPES, MAX_AUDIO_BYTES, container_of, sealed_wav

PCM = "audio/pcm"  # raw samples: 16 kHz, mono, signed 16-bit little-endian (what an AudioWorklet can send)
PCM_RATE = 16_000
PCM_BYTES_PER_SECOND = PCM_RATE * 2
# Partial transcripts: Whisper decodes a whole window whatever the audio's length (the encoder's cost does not
# shrink with a shorter recording), so a partial costs about what the final decode costs. One is decoded when
# the recording has reached FIRST_PARTIAL_SECONDS, then each time it has doubled since the last one (5, 10, 20,
# 40 s: at most 4 for the 60 s limit, none for a question shorter than 5 s), and never two at a time for one
# connection. From 3 s, four dev questions read by espeak-ng (3.3 s each) cost 1.47x the CPU of no partials and
# got no partial at all: each ended while its partial was decoding (bench/voice_stream.py, docs/benchmarks.md
# "Voice over the WebSocket"); from 5 s, three PHI probe sentences (5.2 s each) cost 1.74x and got none either.
# A spoken question is short, and a partial helps only a longer one: so partials are asked for, not sent unasked.
FIRST_PARTIAL_SECONDS = 5.0
# WebM and Ogg chunks carry Opus at a rate the browser chooses; their duration is only known by decoding, so
# their schedule counts bytes from this rate (MediaRecorder's Opus in Chromium is near 32 kbit/s; at a higher
# rate the first partial comes sooner) and the doubling keeps the bound.
COMPRESSED_BYTES_PER_SECOND = 4_000
WAV_HEADER_BYTES = 44


class StreamStart(BaseModel):
    """The client's first message."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["start"]
    format: str = Field(description="audio/pcm (16 kHz mono s16le), or audio/wav, audio/webm, audio/ogg as "
                                    "POST /v1/voice/transcribe takes them")
    session_id: str | None = Field(default=None, max_length=128)
    ask: bool = Field(default=True, description="answer the transcript as a question (false: transcript only, "
                                                "for the clinician to correct and ask as text)")
    partials: bool = Field(default=False, description="send partial transcripts as the audio arrives (at 5 s, "
                                                     "then each time it doubles); each costs a decode")


def media_type(format_name: str) -> str:
    """The format a start message names (Content-Type parameters ignored), or a 415."""
    name = format_name.split(";", 1)[0].strip().lower()
    if name != PCM and name not in AUDIO_TYPES:
        raise UnsupportedMediaType(f"stream audio/pcm (16 kHz mono s16le), audio/wav, audio/webm or audio/ogg "
                                   f"(got {format_name[:40] or 'no format'})")
    return name


def wav_header(data_bytes: int) -> bytes:
    """A 44-byte RIFF/WAVE header for 16 kHz mono s16le samples."""
    return (b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVEfmt " +
            struct.pack("<IHHIIHH", 16, 1, 1, PCM_RATE, PCM_BYTES_PER_SECOND, 2, 16) +
            b"data" + struct.pack("<I", data_bytes))


class Recording:
    """The audio received so far, in memory: raw PCM is wrapped as WAV so one decoder reads every format."""

    def __init__(self, media: str) -> None:
        self.media = media
        self._chunks: list[bytes] = []
        self._head = b""  # the first bytes: the container's magic and a WAV's header
        self.size = 0

    def add(self, chunk: bytes) -> None:
        """Append a chunk: 413 past MAX_AUDIO_BYTES; 415 when the first bytes are not the container named."""
        if self.size + len(chunk) > MAX_AUDIO_BYTES:
            raise PayloadTooLarge(f"the recording passed {MAX_AUDIO_BYTES} bytes (about 60 s): send a shorter "
                                  "question")
        self._chunks.append(chunk)
        self.size += len(chunk)
        checked = len(self._head) >= 12
        self._head = (self._head + chunk)[:WAV_HEADER_BYTES] if len(self._head) < WAV_HEADER_BYTES else self._head
        if self.media != PCM and not checked and len(self._head) >= 12:
            found = container_of(self._head)
            if found != AUDIO_TYPES[self.media]:
                raise UnsupportedMediaType(f"the audio is not {AUDIO_TYPES[self.media]} as the start message says")

    def data(self) -> bytes:
        return b"".join(self._chunks)

    def recording(self) -> bytes:
        """What a SpeechToText adapter takes (the format's own bytes; raw PCM as WAV). A streamed WAV's header
        was written before its length was known (placeholder sizes, or a whole file's sizes for a prefix): its
        sizes are set from the bytes received, so the decoder reads all of them and no more."""
        if AUDIO_TYPES.get(self.media) == "wav":
            return sealed_wav(self.data())
        if self.media != PCM:
            return self.data()
        samples = self.data()
        samples = samples[:len(samples) - len(samples) % 2]
        return wav_header(len(samples)) + samples

    def finished(self) -> bytes:
        """The whole recording at the end message: a 400 when nothing (or no audio) came."""
        if self.size == 0 or (self.media == PCM and self.size < 2):
            raise InvalidInput("no audio was streamed before the end message")
        if self.media != PCM and self.size < 12:
            raise UnsupportedMediaType(f"the audio is not {AUDIO_TYPES[self.media]} as the start message says")
        return self.recording()

    def seconds(self) -> float:
        """The audio's length: from the sample rate for PCM and WAV, estimated from the bytes for WebM and Ogg."""
        if self.media == PCM:
            return self.size / PCM_BYTES_PER_SECOND
        if AUDIO_TYPES[self.media] == "wav":  # the header's byte rate (44 bytes in: a canonical header)
            rate = struct.unpack_from("<I", self._head, 28)[0] if len(self._head) >= 32 else 0
            return max(self.size - WAV_HEADER_BYTES, 0) / (rate or PCM_BYTES_PER_SECOND)
        return self.size / COMPRESSED_BYTES_PER_SECOND


class PartialSchedule:
    """When the next partial transcript is due: at FIRST_PARTIAL_SECONDS, then each time the audio doubles."""

    def __init__(self, first_seconds: float = FIRST_PARTIAL_SECONDS) -> None:
        self.next_seconds = first_seconds
        self.decoded = 0

    def due(self, seconds: float) -> bool:
        return seconds >= self.next_seconds

    def started(self, seconds: float) -> None:
        """A partial of `seconds` of audio is being decoded: the next waits for twice as much."""
        self.decoded += 1
        self.next_seconds = max(2 * seconds, self.next_seconds)
