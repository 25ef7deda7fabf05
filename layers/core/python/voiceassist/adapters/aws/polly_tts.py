"""TextToSpeech with Amazon Polly (HIPAA eligible), reached through the VPC's `polly` interface endpoint.

Polly returns raw 16-bit mono PCM at 16 kHz, wrapped here in a WAV header so both sides of the port return the
same playable file. One SynthesizeSpeech request takes at most 3,000 billed characters, so longer text (an
answer may have up to 4,000) is read in pieces cut at sentence ends and the audio joined. Nothing said is
logged: a failure is reported by its AWS error code only.
"""

from __future__ import annotations

import io
import re
import wave
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from voiceassist.errors import DependencyError
from voiceassist.speech import speakable

SAMPLE_RATE = 16_000
MAX_REQUEST_CHARACTERS = 2_900  # under Polly's 3,000 billed characters per request
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def pieces(text: str, limit: int = MAX_REQUEST_CHARACTERS) -> list[str]:
    """The text cut at sentence ends (or spaces, for a sentence longer than `limit`) into pieces <= limit."""
    out: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > limit:
            cut = sentence.rfind(" ", 0, limit)
            cut = cut if cut > 0 else limit
            out.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > limit:
            out.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        out.append(current)
    return [piece for piece in out if piece]


def pcm_to_wav(pcm: bytes, sample_rate: int = SAMPLE_RATE) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(sample_rate)
        target.writeframes(pcm)
    return out.getvalue()


class PollyTextToSpeech:
    name = "polly"

    def __init__(self, *, voice: str = "Joanna", engine: str = "neural", region: str | None = None,
                 client: Any = None) -> None:
        self._voice, self._engine, self._region = voice, engine, region
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            import boto3

            self._client = boto3.client("polly", region_name=self._region)
        return self._client

    def synthesize(self, text: str) -> bytes:
        text = speakable(text)
        audio = bytearray()
        for piece in pieces(text):
            try:
                reply = self.client.synthesize_speech(Text=piece, TextType="text", OutputFormat="pcm",
                                                      SampleRate=str(SAMPLE_RATE), VoiceId=self._voice,
                                                      Engine=self._engine)
                audio += reply["AudioStream"].read()
            except ClientError as exc:  # the code only: a message may quote the text
                code = exc.response.get("Error", {}).get("Code", "error")
                raise DependencyError(f"speech service refused the call ({code})") from None
            except BotoCoreError as exc:
                raise DependencyError(f"speech service unreachable ({type(exc).__name__})") from None
        return pcm_to_wav(bytes(audio))
