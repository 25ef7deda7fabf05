"""GET /v1/voice/stream: a spoken question over a WebSocket (websocket.py), inside the guarded server.

The client sends a start message, the recording in binary frames and an end message; the server sends partial
transcripts while the audio arrives (speech/stream.py says when: their cost is bounded), the transcript, and then
the answer's events exactly as POST /v1/query/stream sends them (the transcript is the question: PHI detection
and routing as for POST /v1/voice/query). Protocol: voiceassist/speech/stream.py; decision 0031.

Audio and transcripts are PHI-capable: the recording lives in this connection's memory only, nothing heard is
logged (a failure is logged by its type and frames, observability.log_failure), and the stream is audited like
the voice routes (`voice.stream`, with the query's id when it was asked), without its content.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from pydantic import ValidationError

from voiceassist.access import Caller, record_action, roles_from_groups
from voiceassist.composition import dependencies
from voiceassist.conversation import events
from voiceassist.errors import InvalidInput, PayloadTooLarge, UnsupportedMediaType, VoiceAssistError
from voiceassist.models import AuditOutcome, new_id
from voiceassist.observability import log_failure
from voiceassist.speech import MAX_AUDIO_BYTES, MAX_AUDIO_SECONDS, SpeechToText, Transcript
from voiceassist.speech.stream import PartialSchedule, Recording, StreamStart, media_type
from voiceassist.speech.unsure import spoken_question
from voiceassist_local.event_stream import stream_query
from voiceassist_local.http_api import LOCAL_USER, local_face, local_groups
from voiceassist_local.http_guard import READ_TIMEOUT_S
from voiceassist_local.http_replies import error_json
from voiceassist_local.websocket import (
    NORMAL,
    POLICY,
    SERVER_ERROR,
    TOO_BIG,
    UNSUPPORTED_DATA,
    ConnectionClosed,
    Limits,
    WebSocket,
)
from voiceassist_local.websocket_handshake import accept, handshake_refusal

PATH = "/v1/voice/stream"
ARRIVAL_GRACE_S = 30.0  # a live recording of MAX_AUDIO_SECONDS arrives in about that time, plus this
# A chunk of audio is at most 1 MiB (MediaRecorder's are a few KiB); the recording's own limit (MAX_AUDIO_BYTES,
# speech/stream.Recording: a 413 error event, then 1009) is met before the connection's, which also counts the
# control and text frames; the connection's time is the recording's longest plus ARRIVAL_GRACE_S.
MESSAGE_BYTES = 1024 * 1024
LIMITS = Limits(message_bytes=MESSAGE_BYTES, connection_bytes=MAX_AUDIO_BYTES + MESSAGE_BYTES + 64 * 1024,
                connection_seconds=MAX_AUDIO_SECONDS + ARRIVAL_GRACE_S, idle_seconds=READ_TIMEOUT_S)
PARTIAL_WAIT_S = 600.0  # a partial decode still running at the end is waited for (its result then dropped)


@local_face("GET", PATH)
def voice_stream(handler: BaseHTTPRequestHandler, _body: bytes) -> None:
    refusal = handshake_refusal(handler.headers)
    if refusal is not None or getattr(handler, "_head", False):
        status, code, message, headers = refusal or (426, "upgrade_required", "open this route as a WebSocket", [])
        handler.write_reply(status, [("Content-Type", "application/json"), *headers], error_json(code, message))  # type: ignore[attr-defined]
        return
    caller = Caller(user_id=LOCAL_USER, roles=roles_from_groups(local_groups(handler)))
    VoiceStream(accept(handler, LIMITS), caller).run()


def close_code(exc: VoiceAssistError) -> int:
    if isinstance(exc, PayloadTooLarge):
        return TOO_BIG
    if isinstance(exc, UnsupportedMediaType):
        return UNSUPPORTED_DATA
    return POLICY if exc.status_code < 500 else SERVER_ERROR


class VoiceStream:
    """One connection's question: receive, transcribe (with partials), answer, close."""

    def __init__(self, socket: WebSocket, caller: Caller) -> None:
        self._socket = socket
        self._caller = caller
        self._deps = dependencies()
        self._trace_id = new_id("req")
        self._schedule = PartialSchedule()
        self._partials: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._transcribed = False  # the final transcript was sent: no partial may follow it
        self._decoding = False  # a partial is being decoded (one at a time)

    def run(self) -> None:
        try:
            self._converse()
        except ConnectionClosed:
            pass  # the client left, or broke the protocol (closed with its code): nothing to answer
        except VoiceAssistError as exc:
            if exc.status_code >= 500:
                log_failure("voice stream failed", exc)
            self._fail(exc, close_code(exc))
        except Exception as exc:
            log_failure("voice stream failed", exc)
            self._fail(exc, SERVER_ERROR)
        finally:
            self._stop_partials()

    def _converse(self) -> None:
        start = self._start()
        recording = Recording(media_type(start.format))
        while True:
            message = self._socket.receive()
            if isinstance(message, bytes):
                recording.add(message)
                if start.partials:
                    self._maybe_partial(recording)
                continue
            if _message_type(message) != "end":
                raise InvalidInput('after the start message, send the audio as binary frames, then {"type": "end"}')
            break
        self._socket.listen_in_background(f"voice-listen-{self._trace_id}")
        audio = recording.finished()
        self._stop_partials()
        recognizer: SpeechToText = self._deps.speech_to_text
        transcript = recognizer.transcribe(audio)
        self._send({"type": "transcript", "data": transcript.model_dump(mode="json")})
        query_id = self._ask(start, transcript) if start.ask else None
        record_action(self._deps.audit, self._caller, "voice.stream", query_id, AuditOutcome.ACCEPTED)
        self._socket.close(NORMAL)

    def _start(self) -> StreamStart:
        message = self._socket.receive()
        if isinstance(message, bytes):
            raise InvalidInput('send {"type": "start", "format": ...} before the audio')
        try:
            return StreamStart.model_validate_json(message)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}"
                                 for e in exc.errors(include_input=False))
            raise InvalidInput(f"the start message is not valid: {problems}") from None

    def _ask(self, start: StreamStart, transcript: Transcript) -> str | None:
        """The transcript answered as a question; its events go out as they come. The query's id, if done."""
        if not transcript.text.strip():
            raise InvalidInput("no speech was heard in the recording: ask again, closer to the microphone")
        try:
            request = spoken_question(transcript, start.session_id)
        except ValidationError:
            raise InvalidInput("the start message's session_id is not a session id") from None
        query_id = None
        run = stream_query(request, user_id=self._caller.user_id, trace_id=self._trace_id)
        try:
            for item in run:
                self._send(item)
                if item["type"] == "done":
                    query_id = item["data"]["metadata"]["query_id"]
        finally:
            run.close()  # a client that left: the run finishes (and is audited by the pipeline), its events dropped
        return query_id

    # ---- partial transcripts -------------------------------------------------------------------------------
    def _maybe_partial(self, recording: Recording) -> None:
        seconds = recording.seconds()
        with self._lock:
            if self._decoding or not self._schedule.due(seconds):
                return
            self._decoding = True
        self._socket.hold_idle(True)  # a client may wait for the partial before it sends more
        self._schedule.started(seconds)
        thread = threading.Thread(target=self._decode_partial, args=(recording.recording(),),
                                  name=f"voice-partial-{self._trace_id}", daemon=True)
        self._partials.append(thread)
        thread.start()

    def _decode_partial(self, audio: bytes) -> None:
        try:
            transcript = self._deps.speech_to_text.transcribe(audio)
        except Exception:  # noqa: BLE001 - a prefix that does not decode yet (a WebM cut mid-frame): the final says
            transcript = None
        with self._lock:
            self._decoding = False  # before the partial goes out: the client's next audio may start the next one
            self._socket.hold_idle(False)
            if self._transcribed or transcript is None:
                return
            try:
                self._socket.send_text(json.dumps({"type": "partial", "data": {
                    "text": transcript.text, "duration_seconds": transcript.duration_seconds}}))
            except ConnectionClosed:
                return

    def _stop_partials(self) -> None:
        with self._lock:
            self._transcribed = True
        for thread in self._partials:
            thread.join(PARTIAL_WAIT_S)

    # ---- sending -------------------------------------------------------------------------------------------
    def _send(self, item: dict[str, Any]) -> None:
        self._socket.send_text(json.dumps(item, default=str))

    def _fail(self, exc: Exception, code: int) -> None:
        """The error event (the API's envelope: a 4xx says what was wrong, a 5xx only the trace id), then close."""
        try:
            self._send(events.error(exc, self._trace_id))
            self._socket.close(code, "see the error event")
        except ConnectionClosed:
            pass


def _message_type(message: str) -> str | None:
    try:
        parsed = json.loads(message)
    except ValueError:
        return None
    return parsed.get("type") if isinstance(parsed, dict) else None
