"""Voice: POST /v1/voice/transcribe, /v1/voice/query and /v1/voice/speak.

Audio and transcripts are PHI-capable: transcription runs in this process (voiceassist.speech), the transcript
of a spoken question goes through the ordinary query (PHI detection, routing, retrieval, citations) exactly as
a typed one, and nothing heard or said is logged or stored here; each call is audited without its content.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel, Field

from routes import input_policy
from routes.identity import audit_accepted, caller, trace_id
from voiceassist.composition import dependencies
from voiceassist.conversation import orchestrator
from voiceassist.errors import InvalidInput
from voiceassist.speech import (
    MAX_SPEECH_CHARACTERS,
    Transcript,
    VoiceQueryMetadata,
    VoiceQueryResponse,
    checked_audio,
)
from voiceassist.speech.unsure import spoken_question

router = Router()
TRUE = {"1", "true", "yes"}


class SpeakRequest(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_SPEECH_CHARACTERS, description="what to read aloud")


def _audio_from_event() -> bytes:
    """The recording's bytes from the raw body (the local server and API Gateway send binary as base64)."""
    event = router.current_event
    raw = event.body or ""
    try:
        data = base64.b64decode(raw, validate=True) if event.is_base64_encoded else raw.encode("latin-1")
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise InvalidInput("the body is not a recording: send the audio's bytes") from exc
    return checked_audio(data, input_policy.content_type_of(event.headers))


def _flag(name: str) -> bool:
    return (router.current_event.query_string_parameters or {}).get(name, "").lower() in TRUE


def _wants_audio() -> bool:
    accept = next((v for k, v in (router.current_event.headers or {}).items() if k.lower() == "accept"), "")
    return any(part.split(";", 1)[0].strip().lower().startswith("audio/") for part in accept.split(","))


def _wav(audio: bytes) -> Response[Any]:
    return Response(status_code=200, content_type="audio/wav", body=audio, headers={"Cache-Control": "no-store"})


@router.post("/voice/transcribe", summary="Transcribe a spoken recording (WAV, WebM or Ogg) inside the boundary",
             responses={200: {"description": "What was heard, with word timings and confidence"}})
def transcribe() -> Transcript:
    who = caller(router)
    audio = _audio_from_event()
    transcript = dependencies().speech_to_text.transcribe(audio)
    audit_accepted(who, "voice.transcribe", None)
    return transcript


@router.post("/voice/query", summary="Ask a clinical question by voice: transcribed, then answered like a typed one",
             responses={200: {"description": "The cited answer with metadata.transcript; audio/wav of the answer "
                                             "with Accept: audio/*"}})
def ask_by_voice():  # noqa: ANN201  (JSON or audio/wav: openapi.py documents both)
    who = caller(router)
    audio = _audio_from_event()
    deps = dependencies()
    transcript = deps.speech_to_text.transcribe(audio)
    if not transcript.text.strip():
        raise InvalidInput("no speech was heard in the recording: ask again, closer to the microphone")
    params = router.current_event.query_string_parameters or {}
    request = spoken_question(transcript, params.get("session_id") or None)
    answer = orchestrator.respond(deps, request, user_id=who.user_id, trace_id=trace_id(router))
    audit_accepted(who, "voice.query", answer.metadata.query_id)
    if _wants_audio():
        return _wav(deps.text_to_speech.synthesize(answer.answer))
    spoken = base64.b64encode(deps.text_to_speech.synthesize(answer.answer)).decode() if _flag("speak") else None
    body = VoiceQueryResponse(answer=answer.answer, citations=answer.citations,
                              clarifying_question=answer.clarifying_question, audio_wav_base64=spoken,
                              metadata=VoiceQueryMetadata(**answer.metadata.model_dump(), transcript=transcript))
    return Response(status_code=200, content_type="application/json", body=body.model_dump(mode="json"))


@router.post("/voice/speak", summary="Read text aloud (audio/wav), synthesized inside the boundary",
             responses={200: {"description": "The text as a WAV file", "content": {"audio/wav": {}}}})
def speak(request: SpeakRequest):  # noqa: ANN201  (bytes: no response model for the validator to serialize)
    who = caller(router)
    audio = dependencies().text_to_speech.synthesize(request.text)
    audit_accepted(who, "voice.speak", None)
    return _wav(audio)
