"""The web client's microphone streamed over the voice socket (GET /v1/voice/stream) while the clinician speaks, in a
real headless Chromium whose fake microphone plays an espeak-ng WAV, against the real local server: the transcript
comes back over the socket ({"ask": false}) for the clinician to check and correct, and the corrected text is asked
as a typed question; partial transcripts when the clinician asks for them; the POST path when the socket is refused
(a proxy that does not upgrade); and the page's CSP with the server's Origin check keeping the socket to the page's
own origin. On AWS (the Cognito and WebSocket API stand-ins) the same recording goes as voice.start / voice.chunk /
voice.end messages. The POST-only path's failures and the PHI boundary: test_web_voice.py."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from voiceassist_local import voice_stream
from voiceassist_local.websocket import GOING_AWAY

from tests.browser import test_web_voice
from tests.browser.chromium import Tab
from tests.browser.cognito_stub import CognitoStub
from tests.browser.test_web_accessibility import serious_violations
from tests.browser.test_web_voice import (
    ANSWER,
    LAST,
    METFORMIN_TITLE,
    QUESTION,
    QUESTION_BOX,
    TRANSCRIBED,
    WEBM_MAGIC,
)
from tests.browser.websocket_stub import WebSocketStub
from voiceassist.composition import Dependencies
from voiceassist.errors import InvalidInput
from voiceassist.models import Session
from voiceassist.speech import Transcript
from voiceassist.speech.chunked import CHUNK_AUDIO_BYTES

# Not in the "whisper" xdist group: Chromium's recordings are never decoded twice (test_web_voice.py says why)
pytestmark = pytest.mark.slow

TRANSCRIBE = "/v1/voice/transcribe"
# what the page fetched (fetch() calls are resource entries; a WebSocket is not one)
FETCHED = "performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)"
STORED = "JSON.stringify([{...localStorage}, {...sessionStorage}])"
# every text the voice status line takes, in order (a MutationObserver: nothing depends on when the test looks)
SAID = """(() => {
  window.said = [];
  const status = document.getElementById("voice-status");
  new MutationObserver(() => { if (status.textContent) window.said.push(status.textContent); })
    .observe(status, {childList: true, characterData: true, subtree: true});
  return true;
})()"""


# test_web_voice.py's module fixtures, built again for this module (module scope): the spoken QUESTION and a
# Chromium whose microphone says it (assigned, not imported: an imported fixture trips ruff's F811 on every test
# that names it)
spoken_question = test_web_voice.spoken_question
browser = test_web_voice.browser


class Hears:
    """A recognizer that hears `text` whatever the audio (the client's behaviour, not Whisper's, under test)."""

    name = "hears"

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls = 0
        self.audio = b""  # the last recording it was given

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        self.calls += 1
        self.audio = audio
        return Transcript(text=self.text, language="en", duration_seconds=1.0, confidence=0.9, engine=self.name)


def speak_with_the_keyboard(tab: Tab, seconds: float) -> None:
    """Tab to Speak, press Enter, let the microphone play for `seconds`, press Enter again (Stop)."""
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")
    tab.evaluate("document.getElementById('mic').focus()")
    tab.press("Enter", 13, text="\r")
    tab.wait_for("document.getElementById('mic').textContent === 'Stop'")
    assert "Recording" in tab.text("#voice-status")  # role=status: announced
    time.sleep(seconds)
    assert tab.evaluate("document.activeElement.id") == "mic"
    tab.press("Enter", 13, text="\r")


def voice_streams(deps: Dependencies) -> int:
    return sum(r.action == "voice.stream" for r in deps.audit.list(user_id="local-user", limit=1000))


def asked(deps: Dependencies) -> set[str]:
    """The hashes of the questions the pipeline audited."""
    return {r.query_sha256 for r in deps.audit.list(user_id="local-user", limit=1000) if r.query_sha256}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_spoken_question_streams_over_the_socket_and_is_answered_with_its_citation(
        tab: Tab, base_url: str, server_deps: Dependencies, spoken_question: tuple[Path, float]) -> None:
    streams_before = voice_streams(server_deps)
    tab.open(base_url)
    speak_with_the_keyboard(tab, spoken_question[1] + 0.5)

    heard = str(tab.wait_for(QUESTION_BOX, seconds=TRANSCRIBED))
    # Then what Whisper heard came over the socket (no POST of the recording), and waits to be checked
    assert "metformin" in heard.lower() and "dose" in heard.lower()
    assert voice_streams(server_deps) == streams_before + 1
    assert TRANSCRIBE not in tab.evaluate(FETCHED)
    assert "check it" in tab.text("#voice-status")
    assert tab.evaluate("document.activeElement.id") == "question"
    assert tab.evaluate(f"document.querySelectorAll('{LAST}').length") == 0  # nothing asked yet
    assert sha256(heard.strip()) not in asked(server_deps)
    assert serious_violations(tab) == []

    tab.press("Enter", 13, text="\r")

    assert tab.wait_for(f"{ANSWER}?.dataset.status", seconds=TRANSCRIBED) == "answered"
    assert "mg" in tab.text(f"{LAST} .answer-text") and "[1]" in tab.text(f"{LAST} .answer-text")
    sources = tab.evaluate("[...document.querySelectorAll('ol.citations button.source')].map(b => b.textContent)")
    assert METFORMIN_TITLE in sources
    # nothing heard is kept in the browser's storage
    assert "metformin" not in str(tab.evaluate(STORED)).lower()
    assert tab.errors() == []


def test_the_transcript_is_corrected_before_it_is_asked(
        tab: Tab, base_url: str, server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a recognizer that mishears the drug
    misheard = "What is the maximum daily dose of metoprolol?"
    monkeypatch.setattr(server_deps, "speech_to_text", Hears(misheard))
    tab.open(base_url)
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")
    tab.evaluate(SAID)
    speak_with_the_keyboard(tab, 1.5)
    tab.wait_for(f"{QUESTION_BOX} === {json.dumps(misheard)}", seconds=TRANSCRIBED)
    # what a screen reader announced on the way (the status line is role=status: a polite live region)
    assert tab.evaluate("document.getElementById('voice-status').getAttribute('role')") == "status"
    said = tab.evaluate("window.said")
    assert [s.split(":")[0].split("…")[0] for s in said] == ["Recording", "Transcribing your question",
                                                             "Heard your question"], said

    # When the clinician corrects it in the box (the keyboard alone) and asks
    tab.evaluate("document.getElementById('question').select()")
    tab.type_text(QUESTION)
    tab.press("Enter", 13, text="\r")

    assert tab.wait_for(f"{ANSWER}?.dataset.status", seconds=TRANSCRIBED) == "answered"
    asked_turns = tab.evaluate("[...document.querySelectorAll('article.turn.user p')].map(p => p.textContent)")
    assert asked_turns == [QUESTION]
    assert METFORMIN_TITLE in tab.text(f"{LAST} ol.citations")
    # Then the misheard question never reached the pipeline: only the corrected one was asked
    assert sha256(QUESTION) in asked(server_deps) and sha256(misheard) not in asked(server_deps)
    assert tab.errors() == []


def test_partial_transcripts_are_shown_while_speaking_when_asked_for(
        tab: Tab, base_url: str, server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    recognizer = Hears(QUESTION)
    monkeypatch.setattr(server_deps, "speech_to_text", recognizer)
    tab.open(base_url)
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")
    assert tab.evaluate("document.getElementById('voice-options').hidden") is False
    tab.evaluate("document.getElementById('voice-partials').focus()")
    tab.press(" ", 32, text=" ")  # the checkbox, ticked from the keyboard
    assert tab.evaluate("document.getElementById('voice-partials').checked") is True
    tab.evaluate("document.getElementById('mic').focus()")
    tab.press("Enter", 13, text="\r")
    tab.wait_for("document.getElementById('mic').textContent === 'Stop'")

    # the server sends one once it has about 5 s of audio (silence after the WAV counts too)
    tab.wait_for("!document.getElementById('voice-partial').hidden", seconds=TRANSCRIBED)
    assert tab.text("#voice-partial") == f"Heard so far: {QUESTION}"
    assert tab.evaluate(QUESTION_BOX) == ""  # the box waits for the whole transcript
    tab.evaluate("document.getElementById('mic').focus()")
    tab.press("Enter", 13, text="\r")

    tab.wait_for(f"{QUESTION_BOX} === {json.dumps(QUESTION)}", seconds=TRANSCRIBED)
    assert tab.evaluate("document.getElementById('voice-partial').hidden") is True
    assert recognizer.calls >= 2  # a partial and the final
    assert recognizer.audio[:4] == WEBM_MAGIC  # the streamed chunks make one WebM recording
    assert tab.errors() == []


class RefuseUpgrades:
    """What a proxy that does not carry WebSockets answers to each handshake (an upgrade it cannot make)."""

    def __init__(self) -> None:
        self.refused = 0

    def __call__(self, headers: object) -> tuple[int, str, str, list[tuple[str, str]]]:
        self.refused += 1
        return 426, "upgrade_required", "this proxy does not upgrade", [("Upgrade", "websocket")]


def test_the_recording_is_posted_when_the_socket_is_refused(
        tab: Tab, base_url: str, server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch,
        spoken_question: tuple[Path, float]) -> None:
    # Given a server (or a proxy in front of it) that answers the socket's handshake with a 426
    refusals = RefuseUpgrades()
    monkeypatch.setattr(voice_stream, "handshake_refusal", refusals)
    tab.expected_failures.add(voice_stream.PATH)  # Chromium logs the refused handshake
    streams_before = voice_streams(server_deps)
    tab.open(base_url)
    speak_with_the_keyboard(tab, spoken_question[1] + 0.5)

    heard = str(tab.wait_for(QUESTION_BOX, seconds=TRANSCRIBED))
    # Then the recording went by POST /v1/voice/transcribe, and the question is answered as usual
    assert "metformin" in heard.lower()
    assert TRANSCRIBE in tab.evaluate(FETCHED)
    assert voice_streams(server_deps) == streams_before
    tab.press("Enter", 13, text="\r")
    assert tab.wait_for(f"{ANSWER}?.dataset.status", seconds=TRANSCRIBED) == "answered"
    assert METFORMIN_TITLE in tab.text(f"{LAST} ol.citations")

    # and the page's next recording goes by POST without trying the socket again
    tab.wait_for("document.getElementById('ask').disabled === false")
    speak_with_the_keyboard(tab, 1.0)
    tab.wait_for(f"{FETCHED}.filter((path) => path === {json.dumps(TRANSCRIBE)}).length === 2",
                 seconds=TRANSCRIBED)
    assert refusals.refused == 1
    assert [e for e in tab.errors() if "WebSocket" not in e] == []


def test_the_recording_is_posted_when_the_socket_drops_before_the_transcript(
        tab: Tab, base_url: str, server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a connection cut mid-recording (a proxy's idle limit, a network change): the socket opened, took the
    # start message and closed, with no error event
    def cut_after_the_start(stream: voice_stream.VoiceStream) -> None:
        stream._socket.receive()
        stream._socket.close(GOING_AWAY)

    monkeypatch.setattr(voice_stream.VoiceStream, "run", cut_after_the_start)
    monkeypatch.setattr(server_deps, "speech_to_text", Hears(QUESTION))
    tab.open(base_url)
    speak_with_the_keyboard(tab, 1.5)

    # Then the recording, kept in memory, is posted whole and what was heard waits in the box
    tab.wait_for(f"{QUESTION_BOX} === {json.dumps(QUESTION)}", seconds=TRANSCRIBED)
    assert TRANSCRIBE in tab.evaluate(FETCHED)
    assert "check it" in tab.text("#voice-status")
    assert tab.evaluate("document.getElementById('error').hidden") is True
    assert tab.errors() == []


# What happens to a socket the page opens, kept in window.sockets[i]: opened, closed, refused by the CSP (its
# violation event, or a throw). A violation and the close arrive in either order, so the test waits for the events
# it needs (socket_outcome), not for a set time.
OPEN_A_SOCKET = """((url) => {
  const seen = {};
  (window.sockets = window.sockets || []).push(seen);
  document.addEventListener("securitypolicyviolation", (event) => { seen.violated = event.effectiveDirective; },
                            {once: true});
  let socket;
  try {
    socket = new WebSocket(url, ["voiceassist"]);
  } catch (err) {
    seen.threw = err.name;
    return window.sockets.length - 1;
  }
  socket.onopen = () => { seen.opened = true; socket.close(1000); };
  socket.onclose = () => { seen.closed = true; };
  return window.sockets.length - 1;
})(%s)"""


def socket_outcome(tab: Tab, url: str, settled: str) -> dict[str, object]:
    """What happened to a socket the page opened to `url`, once the JavaScript condition `settled` holds of it."""
    seen = f"window.sockets[{tab.evaluate(OPEN_A_SOCKET % json.dumps(url))}]"
    tab.wait_for(f"({settled})({seen})")
    return dict(tab.evaluate(seen))


# One 60,000-byte piece of a WebM recording (its EBML magic first) sent over the AWS dialect (socket URL, token)
SEND_60000_BYTES = """(async () => {
const { StreamedRecording } = await import("./voice_socket.js");
const recording = new StreamedRecording(%s, %s, { dialect: "aws", format: "audio/webm" });
const bytes = new Uint8Array(60000);
bytes.set([0x1a, 0x45, 0xdf, 0xa3]);  // WebM's EBML magic, as MediaRecorder's first chunk starts
recording.add(new Blob([bytes]));
const transcript = await recording.finish();
return transcript && transcript.text;
})()"""


class OtherSite(BaseHTTPRequestHandler):
    """A page on another origin, without the client's CSP (any website the clinician has open)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = b"<!doctype html><title>another site</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def other_site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), OtherSite)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_csp_and_the_origin_check_keep_the_voice_socket_to_the_pages_own_origin(
        tab: Tab, base_url: str, other_site: str) -> None:
    own = base_url.replace("http://", "ws://") + voice_stream.PATH
    elsewhere = base_url.replace("http://127.0.0.1", "ws://localhost") + voice_stream.PATH  # another origin
    tab.open(base_url)
    # The page's connect-src 'self' lets its socket reach its own origin (ws: beside http:) and nothing else
    assert socket_outcome(tab, own, "s => s.closed || s.threw") == {"opened": True, "closed": True}
    refused = socket_outcome(tab, elsewhere, "s => s.violated || s.threw || s.opened")
    assert "opened" not in refused, refused
    assert refused.get("violated") == "connect-src" or refused.get("threw") == "SecurityError", refused
    # and the server refuses a socket that another site's page opens (its Origin is not the server's own; that page
    # has no CSP, so nothing there can be violated)
    tab.open(other_site)
    assert socket_outcome(tab, own, "s => s.closed || s.threw") == {"closed": True}


@pytest.fixture
def aws(server_deps: Dependencies) -> Iterator[tuple[CognitoStub, WebSocketStub]]:
    """The AWS stand-ins (test_web_websocket.py): Cognito's page and config.json, and the WebSocket API run by
    functions/stream's handler, whose voice messages keep their chunks in the local chunk store."""
    cognito = CognitoStub(groups=["clinician"])
    socket = WebSocketStub(token=cognito.issued, user_id="u-1")
    cognito.websocket_url = socket.url
    session = Session(user_id="u-1")
    server_deps.sessions.create(session)
    cognito.session_id = session.session_id
    yield cognito, socket
    socket.close()
    cognito.close()


def test_on_aws_the_recording_streams_as_voice_messages_over_the_websocket_api(
        tab: Tab, aws: tuple[CognitoStub, WebSocketStub], server_deps: Dependencies,
        monkeypatch: pytest.MonkeyPatch) -> None:
    cognito, socket = aws
    recognizer = Hears(QUESTION)
    monkeypatch.setattr(server_deps, "speech_to_text", recognizer)
    tab.open(f"{cognito.url}/")
    tab.wait_for("[...document.querySelectorAll('#conversation button')].some(b => b.textContent === 'Sign in')")
    tab.evaluate("[...document.querySelectorAll('#conversation button')].find(b => b.textContent === 'Sign in')"
                 ".click()")
    assert tab.wait_for("document.getElementById('mic') && !document.getElementById('ask-form').hidden")
    assert tab.evaluate("document.getElementById('voice-options').hidden") is True  # no partials on AWS
    speak_with_the_keyboard(tab, 1.5)

    tab.wait_for(f"{QUESTION_BOX} === {json.dumps(QUESTION)}", seconds=TRANSCRIBED)
    # Then the recording went as voice.start, numbered base64 chunks and voice.end, with the token as the
    # subprotocol, and nothing was posted
    actions = [m["action"] for m in socket.messages]
    assert actions[0] == "voice.start" and actions[-1] == "voice.end" and "voice.chunk" in actions
    start, end = socket.messages[0], socket.messages[-1]
    assert start["ask"] is False and start["format"].startswith("audio/webm")
    chunks = [m for m in socket.messages if m["action"] == "voice.chunk"]
    assert [m["seq"] for m in chunks] == list(range(len(chunks))) and end["chunks"] == len(chunks)
    assert socket.handshakes[0] == f"voiceassist, {cognito.issued}"
    assert "transcript" in socket.sent and TRANSCRIBE not in cognito.posted
    # the chunks, joined in order, are the recording MediaRecorder made: one WebM file (its EBML magic first)
    assert recognizer.audio[:4] == WEBM_MAGIC
    assert len(recognizer.audio) == sum(len(base64.b64decode(m["audio"])) for m in chunks)

    tab.press("Enter", 13, text="\r")  # the checked question, asked over the WebSocket API as typed

    assert tab.wait_for(f"{ANSWER}?.dataset.status", seconds=TRANSCRIBED) == "answered"
    assert {"action": "ask", "query": QUESTION, "session_id": cognito.session_id} in socket.messages
    assert METFORMIN_TITLE in tab.text(f"{LAST} ol.citations")
    assert tab.errors() == []


def test_on_aws_a_refused_voice_start_sends_the_recording_by_post(
        tab: Tab, aws: tuple[CognitoStub, WebSocketStub]) -> None:
    # Given a WebSocket API that answers voice.start with an error event (a deployment without voice messages)
    cognito, socket = aws
    socket.fail_with = InvalidInput('send {"action": "ask", "query": "..."}')
    tab.open(f"{cognito.url}/")
    tab.wait_for("[...document.querySelectorAll('#conversation button')].some(b => b.textContent === 'Sign in')")
    tab.evaluate("[...document.querySelectorAll('#conversation button')].find(b => b.textContent === 'Sign in')"
                 ".click()")
    tab.wait_for("document.getElementById('mic') && !document.getElementById('ask-form').hidden")
    speak_with_the_keyboard(tab, 1.0)

    # Then the recording goes to POST /v1/voice/transcribe (the stand-in has no such route: its 404 is shown)
    tab.wait_for("!document.getElementById('error').hidden", seconds=TRANSCRIBED)
    assert TRANSCRIBE in cognito.posted
    assert [m["action"] for m in socket.messages] == ["voice.start"]
    assert "send {" not in tab.text("#error")  # the socket's refusal is not what the clinician reads


def test_on_aws_a_large_recording_is_cut_into_chunks_that_fit_one_websocket_frame(
        tab: Tab, aws: tuple[CognitoStub, WebSocketStub], server_deps: Dependencies,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # API Gateway closes a connection on a frame over 32 KB, so a voice.chunk carries at most the chunk_bytes
    # voice.ready names (speech/chunked.py CHUNK_AUDIO_BYTES); given a 60,000-byte piece of a recording at once
    cognito, socket = aws
    recognizer = Hears(QUESTION)
    monkeypatch.setattr(server_deps, "speech_to_text", recognizer)
    tab.open(f"{cognito.url}/")  # the web client's origin, whose module is imported as the page does
    tab.wait_for("document.readyState === 'complete'")
    heard = tab.evaluate(SEND_60000_BYTES % (json.dumps(socket.url), json.dumps(cognito.issued)))

    # Then it went as three chunks of at most CHUNK_AUDIO_BYTES, every one accepted, and was heard whole
    chunks = [base64.b64decode(m["audio"]) for m in socket.messages if m["action"] == "voice.chunk"]
    assert [len(chunk) for chunk in chunks] == [CHUNK_AUDIO_BYTES, CHUNK_AUDIO_BYTES, 60000 - 2 * CHUNK_AUDIO_BYTES]
    assert heard == QUESTION and len(recognizer.audio) == 60000
