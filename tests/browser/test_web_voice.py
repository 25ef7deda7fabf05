"""The web client's microphone in a real headless Chromium against the real local server: Chromium's fake
microphone plays a WAV that espeak-ng spoke (--use-file-for-fake-audio-capture), the page records it with
MediaRecorder (WebM/Opus), the server transcribes it with Whisper inside the boundary, the clinician sees what
was heard in the question box, asks, and gets the cited answer, which can be read aloud. Also: the failures a
clinician meets (microphone blocked, none found, the time limit, a failing recognizer), the accessibility
check, and a spoken patient name that stays inside the boundary."""

from __future__ import annotations

import io
import time
import wave
from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local import web_face

from tests.browser.chromium import Chromium, Tab
from tests.browser.test_web_accessibility import serious_violations
from tests.stubs.query_stack import find_phi, recorded_logs
from tests.stubs.streaming_model import Streamed, StreamingModel
from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.composition import Dependencies
from voiceassist.errors import ModelUnavailable
from voiceassist.speech import Transcript

# Not in the "whisper" xdist group (CONTRIBUTING.md): what Whisper decodes here is Chromium's own recording, never
# the same twice, so the memo of tests/support/whisper_memo.py has nothing to share; this module's tests stay on one
# worker by its module fixtures (tests/support/xdist_order.py) and run beside the other Whisper tests, not after them.
pytestmark = pytest.mark.slow

QUESTION = "What is the maximum daily dose of metformin?"
# (the question's words are QUESTION's, which Whisper hears reliably: "eGFR 40" was once heard "eGFR4D" and the
# question abstained, which says nothing about the boundary)
PHI_QUESTION = "Patient John Smith, medical record number 4417823. What is the maximum daily dose of metformin?"
PHI_VALUES = ("John Smith", "Smith", "4417823")
METFORMIN_TITLE = "Metformin (sample drug reference)"
LAST = "article.turn.assistant:last-of-type"
ANSWER = f"document.querySelector('{LAST}')"
QUESTION_BOX = "document.getElementById('question').value"
TRANSCRIBED = 240.0  # the first transcription loads Whisper (10 s or more on a loaded 2-core machine)
WEBM_MAGIC = b"\x1a\x45\xdf\xa3"  # EBML, the start of a WebM file (MediaRecorder's recording)


def spoken_wav(text: str, path: Path) -> float:
    """espeak-ng's WAV of the text with half a second of silence either side (the fake microphone plays it
    once: %noloop); its duration in seconds."""
    with wave.open(io.BytesIO(EspeakTextToSpeech().synthesize(text))) as source:
        params, frames = source.getparams(), source.readframes(source.getnframes())
    pad = b"\0" * (params.sampwidth * params.framerate // 2)
    with wave.open(str(path), "wb") as target:
        target.setparams(params)
        target.writeframes(pad + frames + pad)
    return (len(frames) + 2 * len(pad)) / params.sampwidth / params.framerate


def fake_microphone(path: Path) -> Chromium:
    return Chromium(["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                     f"--use-file-for-fake-audio-capture={path}%noloop", "--autoplay-policy=no-user-gesture-required"])


@pytest.fixture(scope="module")
def spoken_question(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    path = tmp_path_factory.mktemp("voice") / "question.wav"
    return path, spoken_wav(QUESTION, path)


@pytest.fixture(scope="module")
def browser(spoken_question: tuple[Path, float]) -> Iterator[Chromium]:
    """This module's Chromium: its microphone says QUESTION."""
    chromium = fake_microphone(spoken_question[0])
    yield chromium
    chromium.close()


def record(tab: Tab, seconds: float) -> None:
    """Press Speak, let the microphone play for `seconds`, press Stop, wait for what was heard."""
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")
    tab.click("#mic")
    tab.wait_for("document.getElementById('mic').textContent === 'Stop'")
    assert "Recording" in tab.text("#voice-status")
    time.sleep(seconds)
    tab.click("#mic")


def test_a_spoken_question_is_transcribed_for_review_then_answered_with_its_citation(
        tab: Tab, base_url: str, spoken_question: tuple[Path, float]) -> None:
    tab.open(base_url)
    record(tab, spoken_question[1] + 0.5)

    heard = str(tab.wait_for(f"{QUESTION_BOX}", seconds=TRANSCRIBED))
    # Then what was heard waits in the question box, focused, for the clinician to check before asking
    assert "metformin" in heard.lower() and "dose" in heard.lower()
    assert "check it" in tab.text("#voice-status")
    assert tab.evaluate("document.activeElement.id") == "question"
    assert tab.evaluate(f"document.querySelectorAll('{LAST}').length") == 0  # nothing asked yet
    assert tab.text("#mic") == "Speak"
    assert serious_violations(tab) == []

    tab.press("Enter", 13, text="\r")

    assert tab.wait_for(f"{ANSWER}?.dataset.status") == "answered"
    assert "mg" in tab.text(f"{LAST} .answer-text") and "[1]" in tab.text(f"{LAST} .answer-text")
    sources = tab.evaluate("[...document.querySelectorAll('ol.citations button.source')].map(b => b.textContent)")
    assert METFORMIN_TITLE in sources
    asked = tab.evaluate("[...document.querySelectorAll('article.turn.user p')].map(p => p.textContent)")
    assert asked == [heard.strip()]  # the question asked is what the clinician saw
    assert tab.errors() == []


def test_an_answer_is_read_aloud_on_request(tab: Tab, base_url: str) -> None:
    tab.open(f"{base_url}/?q=What%20is%20the%20maximum%20daily%20dose%20of%20metformin%3F")
    tab.wait_for(f"{ANSWER}?.dataset.status === 'answered'")

    tab.evaluate(f"document.querySelector('{LAST} button.read-aloud').focus()")
    tab.press("Enter", 13, text="\r")  # the keyboard alone

    duration = tab.wait_for(f"(a => a && a.readyState >= 1 && a.duration)({ANSWER}.querySelector('audio.spoken'))",
                            seconds=TRANSCRIBED)
    assert duration > 2.0  # the cited answer, read: not a beep
    assert tab.evaluate(f"{ANSWER}.querySelector('audio.spoken').src").startswith("blob:")  # the CSP's media-src
    assert tab.evaluate(f"{ANSWER}.querySelector('audio.spoken').getAttribute('aria-label')")
    assert serious_violations(tab) == []
    assert tab.errors() == []


def test_a_blocked_microphone_says_how_to_allow_it(tab: Tab, base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a page whose Permissions-Policy blocks the microphone (as the policy did before Speak): the browser
    # itself refuses getUserMedia
    monkeypatch.setitem(web_face.SECURITY_HEADERS, "Permissions-Policy", "microphone=()")
    tab.open(base_url)
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")

    tab.click("#mic")

    tab.wait_for("!document.getElementById('error').hidden")
    assert "microphone is blocked" in tab.text("#error") and "type the question" in tab.text("#error")
    assert tab.text("#mic") == "Speak" and tab.evaluate("document.getElementById('mic').disabled") is False


def test_no_microphone_says_so(tab: Tab, base_url: str) -> None:
    tab.open(base_url)
    # the page wires the Speak button after it read config.json, then focuses the question box: a click before that
    # does nothing (it failed so in a fresh-clone make test)
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")
    tab.evaluate("navigator.mediaDevices.getUserMedia = () => "
                 "Promise.reject(new DOMException('Requested device not found', 'NotFoundError')); true")

    tab.click("#mic")

    tab.wait_for("!document.getElementById('error').hidden")
    assert "No microphone was found" in tab.text("#error")


class HearsTheStart:
    """A recognizer that hears the first words of QUESTION, as a recording cut at a 2-second limit holds, and keeps
    the recording it was given (the page's time limit is under test here, not Whisper)."""

    name = "hears-the-start"

    def __init__(self) -> None:
        self.audio = b""

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        self.audio = audio
        return Transcript(text="What is the maximum", language="en", duration_seconds=1.5, confidence=0.9,
                          engine=self.name)


def test_recording_stops_by_itself_at_the_time_limit(tab: Tab, base_url: str, server_deps: Dependencies,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a server that takes 2 s of audio (config.json's voice_max_seconds; 60 by default)
    monkeypatch.setitem(web_face.LOCAL_CONFIG, "voice_max_seconds", 2)
    recognizer = HearsTheStart()
    monkeypatch.setattr(server_deps, "speech_to_text", recognizer)
    tab.open(base_url)
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")

    tab.click("#mic")  # and never Stop

    tab.wait_for("!document.getElementById('error').hidden", seconds=TRANSCRIBED)
    assert "2-second limit" in tab.text("#error")
    assert tab.text("#mic") == "Speak"
    assert recognizer.audio[:4] == WEBM_MAGIC  # what was recorded up to the limit was sent


class FailingRecognizer:
    name = "failing"

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        raise ModelUnavailable("the speech recognizer is not available")


def test_a_failing_recognizer_is_shown_plainly_and_the_question_box_kept(
        tab: Tab, base_url: str, server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_deps, "speech_to_text", FailingRecognizer())
    tab.open(base_url)
    record(tab, 1.0)

    tab.wait_for("!document.getElementById('error').hidden")
    assert "Something went wrong" in tab.text("#error") and "trace id" in tab.text("#error")
    assert tab.evaluate(QUESTION_BOX) == "" and tab.text("#mic") == "Speak"


def test_a_spoken_patient_name_is_answered_inside_the_boundary(
        base_url: str, server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Given a cloud model and an in-boundary model, and a microphone that says a patient's name and record number
    cloud = StreamingModel("cloud-model", in_boundary=False, script=[Streamed("Cloud answer [1].")])
    inside = StreamingModel("in-boundary-model", in_boundary=True,
                            script=[Streamed("The maximum daily dose of metformin is 2,000 mg [1].")])
    monkeypatch.setattr(server_deps, "cloud_chat", cloud)
    monkeypatch.setattr(server_deps, "local_chat", inside)
    seconds = spoken_wav(PHI_QUESTION, tmp_path / "phi.wav")
    chromium = fake_microphone(tmp_path / "phi.wav")
    tab = chromium.new_tab()
    try:
        with recorded_logs() as logs:
            tab.open(base_url)
            record(tab, seconds + 0.5)
            heard = str(tab.wait_for(QUESTION_BOX, seconds=TRANSCRIBED))
            tab.press("Enter", 13, text="\r")
            status = tab.wait_for(f"{ANSWER}?.dataset.status", seconds=TRANSCRIBED)
        badge = tab.text(f"{LAST} .badge")
        answer = tab.text(f"{LAST} .answer-text")
    finally:
        tab.close()
        chromium.close()

    assert "Smith" in heard  # the clinician sees what was heard, the name included
    # (what was heard and answered is kept out of the message: it may quote the name)
    assert "PHI detected" in badge and "in-boundary-model" in badge, (status, len(heard), len(answer))
    assert inside.calls  # the in-boundary model answered
    assert find_phi(PHI_VALUES, *cloud.calls) == [], "what was heard reached the cloud model"
    out, err = capfd.readouterr()
    assert find_phi(PHI_VALUES, *logs, out, err) == [], "what was heard reached a log"


class HearsTheQuestion:
    name = "hears-the-question"

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        return Transcript(text=QUESTION, language="en", duration_seconds=1.0, confidence=0.9, engine=self.name)


STREAM_FROM_THE_PAGE = """new Promise((resolve) => {
  const socket = new WebSocket(location.origin.replace("http", "ws") + "/v1/voice/stream", ["voiceassist"]);
  const types = [];
  socket.onopen = () => {
    socket.send(JSON.stringify({type: "start", format: "audio/pcm", partials: false}));
    const second = new Int16Array(16000).buffer;
    socket.send(second.slice(0, 20000));
    socket.send(second.slice(20000));
    socket.send(JSON.stringify({type: "end"}));
  };
  socket.onmessage = (message) => types.push(JSON.parse(message.data).type);
  socket.onclose = (event) => resolve({code: event.code, protocol: socket.protocol, types});
})"""


def test_chromiums_websocket_streams_a_question_and_gets_the_answers_events(
        tab: Tab, base_url: str, server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    # Chromium's own WebSocket (masking, its Origin and Sec-Fetch-Site from the page) against GET /v1/voice/stream
    monkeypatch.setattr(server_deps, "speech_to_text", HearsTheQuestion())
    tab.open(base_url)
    result = tab.evaluate(STREAM_FROM_THE_PAGE)
    assert result["code"] == 1000 and result["protocol"] == "voiceassist"
    assert result["types"][0] == "transcript" and result["types"][-1] == "done"
    assert {"route", "retrieval", "citations"} <= set(result["types"])
    assert tab.errors() == []
