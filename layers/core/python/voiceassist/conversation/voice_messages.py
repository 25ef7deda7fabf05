"""The WebSocket's voice messages (voice.start, voice.chunk, voice.end; speech/chunked.py) for one connection.

At voice.end the recording goes to the SpeechToText adapter only (Transcribe Medical on AWS, inside the
boundary), the client gets a `transcript` event (what POST /v1/voice/transcribe returns), and with `ask` the
transcript is the question: the orchestrator's run posts the answer's events exactly as the `ask` action does
(PHI detection and routing of the transcript are a typed question's). The stream is audited as `voice.stream`
(the query's id when asked, never what was said); nothing heard is logged: a failure is logged by its type.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from voiceassist.access import Caller, record_action, roles_from_groups
from voiceassist.conversation import events, orchestrator
from voiceassist.errors import InvalidInput, VoiceAssistError
from voiceassist.models import AuditOutcome
from voiceassist.observability import log_failure
from voiceassist.ports import EventPublisher
from voiceassist.query.state import EventTarget
from voiceassist.speech import MAX_AUDIO_BYTES, VoiceNotAvailable
from voiceassist.speech.chunked import (
    CHUNK_AUDIO_BYTES,
    MAX_CHUNKS,
    StreamedQuestion,
    VoiceChunkMessage,
    VoiceEndMessage,
    VoiceStartMessage,
    VoiceStreams,
    parsed,
)
from voiceassist.speech.unsure import spoken_question

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies

ACTIONS = ("voice.start", "voice.chunk", "voice.end")
AUDIT_ACTION = "voice.stream"


def streams(deps: Dependencies) -> VoiceStreams:
    return VoiceStreams(deps.audio_chunks, deps.state)


def handle_voice(deps: Dependencies, publisher: EventPublisher, *, message: dict[str, Any], connection_id: str,
                 user_id: str, trace_id: str, endpoint: str | None) -> dict[str, Any]:
    """One voice message; any failure is one `error` event (the API's envelope) and the reply's status."""
    action = message.get("action")
    try:
        if action == "voice.start":
            streams(deps).start(connection_id, user_id, parsed(VoiceStartMessage, message))
            publisher.publish(connection_id, {"type": "voice.ready", "data": {  # chunks may follow now
                "chunk_bytes": CHUNK_AUDIO_BYTES, "max_chunks": MAX_CHUNKS, "max_bytes": MAX_AUDIO_BYTES}})
        elif action == "voice.chunk":
            chunk = parsed(VoiceChunkMessage, message)
            streams(deps).chunk(connection_id, user_id, chunk)
        else:
            question = streams(deps).end(connection_id, user_id, parsed(VoiceEndMessage, message))
            _answer(deps, publisher, question, connection_id=connection_id, user_id=user_id, trace_id=trace_id,
                    endpoint=endpoint)
    except Exception as exc:
        if not isinstance(exc, VoiceAssistError) or exc.status_code >= 500:
            log_failure("voice stream message failed", exc)
        if action == "voice.end" or not isinstance(exc, VoiceAssistError) or exc.status_code >= 500:
            _audit(deps, user_id, None, AuditOutcome.ERROR)
        publisher.publish(connection_id, events.error(_about(exc, message), trace_id))
        return {"statusCode": getattr(exc, "status_code", 500)}
    return {"statusCode": 200}


def forget_connection(deps: Dependencies, connection_id: str) -> None:
    """$disconnect: a stream left open is deleted now rather than when its state expires."""
    try:
        deps.audio_chunks  # noqa: B018 - an environment without voice has no streams to forget
    except VoiceNotAvailable:
        return
    try:
        streams(deps).abandon(connection_id)
    except Exception as exc:  # the lifecycle rule and the TTL remove what this could not
        log_failure("voice stream clean-up failed", exc)


def _answer(deps: Dependencies, publisher: EventPublisher, question: StreamedQuestion, *, connection_id: str,
            user_id: str, trace_id: str, endpoint: str | None) -> None:
    transcript = deps.speech_to_text.transcribe(question.audio)
    publisher.publish(connection_id, {"type": "transcript", "data": transcript.model_dump(mode="json")})
    if not question.ask:
        _audit(deps, user_id, None, AuditOutcome.ACCEPTED)
        return
    if not transcript.text.strip():
        raise InvalidInput("no speech was heard in the recording: ask again, closer to the microphone")
    request = spoken_question(transcript, question.session_id)
    done: list[str] = []

    def emit(item: dict[str, Any]) -> None:
        if item.get("type") == "done":
            done.append(str(item["data"]["metadata"]["query_id"]))
        publisher.publish(connection_id, item)

    try:
        orchestrator.run(deps, request, user_id=user_id, trace_id=trace_id, emit=emit,
                         stream=EventTarget(connection_id=connection_id, endpoint=endpoint))
    except Exception as exc:  # the run posted its error event already
        log_failure("voice stream query failed", exc)
        _audit(deps, user_id, None, AuditOutcome.ERROR)
        return
    _audit(deps, user_id, done[0] if done else None, AuditOutcome.ACCEPTED)


def _audit(deps: Dependencies, user_id: str, query_id: str | None, outcome: AuditOutcome) -> None:
    record_action(deps.audit, Caller(user_id=user_id, roles=roles_from_groups(None)), AUDIT_ACTION, query_id,
                  outcome)


def _about(exc: Exception, message: dict[str, Any]) -> Exception:
    """A chunk's refusal names its sequence number, so the client knows which piece to resend."""
    seq = message.get("seq")
    if message.get("action") == "voice.chunk" and isinstance(exc, VoiceAssistError) and exc.status_code < 500 \
            and isinstance(seq, int) and f"chunk {seq}" not in str(exc):
        return type(exc)(f"chunk {seq}: {exc}")
    return exc


def message_action(body: str | None) -> tuple[str | None, dict[str, Any] | None]:
    """The message's action and the message, when it is a JSON object (else None, None)."""
    try:
        message = json.loads(body or "{}")
    except ValueError:
        return None, None
    return (message.get("action"), message) if isinstance(message, dict) else (None, None)
