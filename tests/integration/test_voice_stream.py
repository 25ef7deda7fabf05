"""The voice stream's protocol on the local server (GET /v1/voice/stream): start, audio frames, end; partial
transcripts as the recording doubles, the transcript, then the answer's events in the shapes POST
/v1/query/stream sends; failures as one error event and a close code.

The recognizer is a double here (it reports how much audio it was given, or says a fixed question), so these
tests are about the protocol; Whisper and the PHI boundary on the same route: test_voice_stream_phi.py."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from typing import Any

import pytest
from voiceassist_local import voice_stream
from voiceassist_local.websocket import Limits
from websockets.sync.client import connect

from tests.stubs.query_stack import recorded_logs
from tests.support.socket_messages import messages_until_close
from voiceassist.conversation import events
from voiceassist.errors import InvalidInput
from voiceassist.speech import Transcript
from voiceassist.speech.stream import PCM_BYTES_PER_SECOND, WAV_HEADER_BYTES

QUESTION = "What is the maximum daily dose of metformin?"
WAIT_S = 120.0
HALF_SECOND = b"\x00\x01" * (PCM_BYTES_PER_SECOND // 4)


class SecondsHeard:
    """Hears the length of what it was given (WAV: PCM wrapped by the stream)."""

    name = "seconds"

    def __init__(self) -> None:
        self.calls = 0

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        self.calls += 1
        seconds = (len(audio) - WAV_HEADER_BYTES) / PCM_BYTES_PER_SECOND
        return Transcript(text=f"{seconds:.1f} seconds", language="en", duration_seconds=seconds, confidence=0.9,
                          engine=self.name)


class SaysTheQuestion:
    name = "question"

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        return Transcript(text=QUESTION, language="en", duration_seconds=3.0, confidence=0.9, engine=self.name)


class Refuses:
    name = "refuses"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        raise self.error


@pytest.fixture
def ws_url(kb_server_url: str) -> str:
    return kb_server_url.replace("http://", "ws://") + voice_stream.PATH


def start(**options: Any) -> str:
    return json.dumps({"type": "start", "format": "audio/pcm", **options})


def test_voice_stream_sends_partials_as_the_recording_doubles_then_the_transcript(
        ws_url: str, kb_deps: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    recognizer = SecondsHeard()
    monkeypatch.setattr(kb_deps, "speech_to_text", recognizer)
    with connect(ws_url, open_timeout=WAIT_S) as socket:
        socket.send(start(ask=False, partials=True))
        for _ in range(10):  # 5 s: the first partial is due
            socket.send(HALF_SECOND)
        assert json.loads(socket.recv(timeout=WAIT_S)) == {"type": "partial",
                                                           "data": {"text": "5.0 seconds", "duration_seconds": 5.0}}
        for _ in range(9):  # 9.5 s: not yet twice the last partial's
            socket.send(HALF_SECOND)
        socket.send(HALF_SECOND)  # 10 s
        assert json.loads(socket.recv(timeout=WAIT_S))["data"]["text"] == "10.0 seconds"
        socket.send(HALF_SECOND)
        socket.send(json.dumps({"type": "end"}))
        received, code = messages_until_close(socket, WAIT_S)
    assert [item["type"] for item in received] == ["transcript"]  # ask: false: the transcript to correct, no answer
    assert received[0]["data"]["text"] == "10.5 seconds" and code == 1000
    assert recognizer.calls == 3  # two partials and the final: no decode beyond the schedule
    assert "voice.stream" in {r.action for r in kb_deps.audit.list(user_id="local-user", limit=10)}


def test_voice_stream_without_partials_asked_decodes_once(ws_url: str, kb_deps: Any, monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    recognizer = SecondsHeard()
    monkeypatch.setattr(kb_deps, "speech_to_text", recognizer)
    with connect(ws_url, open_timeout=WAIT_S) as socket:
        socket.send(start(ask=False))  # partials are asked for: none by default
        for _ in range(16):
            socket.send(HALF_SECOND)
        socket.send(json.dumps({"type": "end"}))
        received, code = messages_until_close(socket, WAIT_S)
    assert [item["type"] for item in received] == ["transcript"] and code == 1000
    assert recognizer.calls == 1


def test_voice_stream_answers_the_transcript_with_the_query_streams_events(
        ws_url: str, kb_server_url: str, kb_deps: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kb_deps, "speech_to_text", SaysTheQuestion())
    with connect(ws_url, open_timeout=WAIT_S) as socket:
        socket.send(start(partials=False))
        socket.send(HALF_SECOND)
        socket.send(json.dumps({"type": "end"}))
        received, code = messages_until_close(socket, WAIT_S)
    assert code == 1000
    assert received[0] == {"type": "transcript", "data": {**received[0]["data"], "text": QUESTION}}
    done = received[-1]["data"]
    assert received[-1]["type"] == "done" and done["citations"][0]["doc_key"] == "sample-metformin"
    # the same events, in the same shapes, as the typed question's Server-Sent Events
    request = urllib.request.Request(kb_server_url + "/v1/query/stream", data=json.dumps({"query": QUESTION}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=WAIT_S) as reply:  # noqa: S310 - 127.0.0.1
        lines = reply.read().decode().splitlines()
    typed = dict(zip([line[7:] for line in lines if line.startswith("event: ")],
                     [json.loads(line[6:]) for line in lines if line.startswith("data: ")], strict=True))
    spoken = {item["type"]: item["data"] for item in received[1:]}
    assert set(spoken) <= set(events.EVENT_TYPES) and {"route", "retrieval", "citations", "done"} <= set(spoken)
    for kind in ("route", "done"):
        assert set(spoken[kind]) == set(typed[kind]), kind
    assert set(done["metadata"]) == set(typed["done"]["metadata"])
    assert done["answer"] and "[1]" in done["answer"]


@pytest.mark.parametrize(("first", "code", "error"), [
    pytest.param(json.dumps({"type": "start", "format": "audio/mpeg"}), 1003, "unsupported_media_type",
                 id="unsupported-format"),
    pytest.param(b"RIFF....WAVE", 1008, "invalid_input", id="audio-before-start"),
    pytest.param(json.dumps({"type": "start", "format": "audio/pcm", "speed": 2}), 1008, "invalid_input",
                 id="unknown-option"),
    pytest.param("not json", 1008, "invalid_input", id="not-json"),
])
def test_voice_stream_refuses_a_bad_start_with_an_error_event_and_a_close_code(
        ws_url: str, first: str | bytes, code: int, error: str) -> None:
    with connect(ws_url, open_timeout=WAIT_S) as socket:
        socket.send(first)
        received, closed = messages_until_close(socket, WAIT_S)
    assert [item["type"] for item in received] == ["error"] and closed == code
    assert received[0]["data"]["error"]["code"] == error


def test_voice_stream_refuses_audio_that_is_not_the_container_it_named(ws_url: str) -> None:
    with connect(ws_url, open_timeout=WAIT_S) as socket:
        socket.send(json.dumps({"type": "start", "format": "audio/webm"}))
        socket.send(b"OggS" + b"\x00" * 60)
        received, closed = messages_until_close(socket, WAIT_S)
    assert received[0]["data"]["error"]["code"] == "unsupported_media_type" and closed == 1003


def test_voice_stream_end_without_audio_is_a_400_error_event(ws_url: str) -> None:
    with connect(ws_url, open_timeout=WAIT_S) as socket:
        socket.send(start())
        socket.send(json.dumps({"type": "end"}))
        received, closed = messages_until_close(socket, WAIT_S)
    assert received[0]["data"]["error"]["code"] == "invalid_input" and closed == 1008


@pytest.mark.parametrize(("error", "code", "shown"), [
    pytest.param(InvalidInput("the audio cannot be decoded: send a WAV, WebM or Ogg recording"), 1008,
                 "invalid_input", id="decode-error"),
    pytest.param(RuntimeError("Patient John Smith said something the engine choked on"), 1011, "internal_error",
                 id="engine-crash"),
])
def test_voice_stream_recognizer_failure_is_one_error_event_and_logs_nothing_heard(
        ws_url: str, kb_deps: Any, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
        error: Exception, code: int, shown: str) -> None:
    monkeypatch.setattr(kb_deps, "speech_to_text", Refuses(error))
    with recorded_logs() as logs, connect(ws_url, open_timeout=WAIT_S) as socket:
        socket.send(start())
        socket.send(HALF_SECOND)
        socket.send(json.dumps({"type": "end"}))
        received, closed = messages_until_close(socket, WAIT_S)
    assert [item["type"] for item in received] == ["error"] and closed == code
    assert received[0]["data"]["error"]["code"] == shown and received[0]["data"]["trace_id"]
    out, err = capfd.readouterr()
    assert "John Smith" not in "\n".join([*logs, out, err, json.dumps(received)])
    assert "Traceback" not in err
    assert stream_threads_end() == []


def stream_threads_end() -> list[str]:
    """The stream's threads still running once they had time to end (the server ends them after its close)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        left = [t.name for t in threading.enumerate() if t.name.startswith(("voice-", "query-"))]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


class HeardWhenReleased(SecondsHeard):
    """Each transcription waits until the test releases it."""

    def __init__(self) -> None:
        super().__init__()
        self.releases = threading.Semaphore(0)

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        assert self.releases.acquire(timeout=WAIT_S)
        return super().transcribe(audio, max_seconds=max_seconds)


def test_voice_stream_client_waiting_for_the_server_is_not_idle_and_gets_its_pongs(
        ws_url: str, kb_deps: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a recognizer that takes longer than the idle limit (it waits for the test)
    recognizer = HeardWhenReleased()
    monkeypatch.setattr(kb_deps, "speech_to_text", recognizer)
    monkeypatch.setattr(voice_stream, "LIMITS", Limits(message_bytes=65536, connection_bytes=1 << 20,
                                                       connection_seconds=WAIT_S, idle_seconds=3.0))
    with connect(ws_url, open_timeout=WAIT_S, ping_interval=None) as socket:
        socket.send(start(ask=False, partials=True))
        for _ in range(10):
            socket.send(HALF_SECOND)
        # a client that waits for its partial is not idle while the server decodes it
        time.sleep(4.0)
        recognizer.releases.release()
        assert json.loads(socket.recv(timeout=WAIT_S))["type"] == "partial"
        socket.send(json.dumps({"type": "end"}))
        # while the final transcript decodes, the server still answers a ping
        assert socket.ping(b"still there?").wait(WAIT_S)
        recognizer.releases.release()
        received, code = messages_until_close(socket, WAIT_S)
    assert [item["type"] for item in received] == ["transcript"] and code == 1000
