"""The words a spoken question's recognizer heard unsure where PHI sits go with it from the web client (issue 29,
decision 0031 "PHI in a spoken question"; web/voice.js stillPhiUnsure): Chromium's fake microphone plays a question,
the server's recognizer is a stub that writes a patient's name as an ordinary lower-case word it was unsure of (the
PHI detector does not find it), the transcript's `phi_unsure_words` come back with it, and the question the
clinician asks after reviewing it carries the word when it was left as heard, so the question is answered by the
in-boundary model; a clinician who edits the word out sends none, and the question goes to the cloud model. The
server's side (the route's own rule, the field posted by a client): tests/integration/test_voice_phi_doubt.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.chromium import Tab
from tests.browser.test_web_voice import ANSWER, LAST, QUESTION_BOX, TRANSCRIBED, fake_microphone, record, spoken_wav
from tests.stubs.query_stack import find_phi, recorded_logs
from tests.stubs.streaming_model import Streamed, StreamingModel
from voiceassist.composition import Dependencies
from voiceassist.models import QueryRequest
from voiceassist.speech import TranscribedWord, Transcript

pytestmark = pytest.mark.slow

# "the patient Tremblay" heard as "tremble", the recognizer unsure of it, right after a word that introduces a person
HEARD = [("Is", 0.9), ("the", 0.9), ("patient", 0.8), ("tremble", 0.31), ("on", 0.9), ("metformin", 0.95),
         ("safe", 0.9), ("with", 0.9), ("an", 0.9), ("eGFR", 0.9), ("of", 0.9), ("40?", 0.9)]
SAID = "Is the patient Tremblay on metformin safe with an eGFR of 40?"  # what the microphone plays
EDITED = "Is metformin safe with an eGFR of 40?"  # the clinician took the patient out of the question
CLOUD_ANSWER = "Metformin is used with caution at an eGFR of 40 [1]."
INSIDE_ANSWER = "At an eGFR of 40 metformin is continued at a reduced dose [1]."


class MishearsTheName:
    """The server's recognizer: one transcript whatever the audio (as Whisper writes a misheard surname)."""

    name = "mishears-the-name"

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        words = [TranscribedWord(word=f" {w}", start=n * 0.4, end=n * 0.4 + 0.3, confidence=p)
                 for n, (w, p) in enumerate(HEARD)]
        return Transcript(text=" ".join(w for w, _ in HEARD), language="en", duration_seconds=5.0,
                          confidence=sum(p for _, p in HEARD) / len(HEARD), words=words, engine=self.name)


@pytest.fixture
def models(server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> tuple[StreamingModel, StreamingModel]:
    """A cloud model and an in-boundary model (stubs), and the stub recognizer, on the server."""
    cloud = StreamingModel("cloud-model", in_boundary=False, script=[Streamed(CLOUD_ANSWER)])
    inside = StreamingModel("in-boundary-model", in_boundary=True, script=[Streamed(INSIDE_ANSWER)])
    monkeypatch.setattr(server_deps, "cloud_chat", cloud)
    monkeypatch.setattr(server_deps, "local_chat", inside)
    monkeypatch.setattr(server_deps, "speech_to_text", MishearsTheName())
    assert server_deps.settings.voice_phi_doubt  # the default (VOICEASSIST_VOICE_PHI_DOUBT)
    return cloud, inside


@pytest.fixture
def speaking_tab(tmp_path: Path) -> Iterator[tuple[Tab, float]]:
    """A tab of a Chromium whose microphone says SAID once, and how long it speaks."""
    seconds = spoken_wav(SAID, tmp_path / "said.wav")
    chromium = fake_microphone(tmp_path / "said.wav")
    tab = chromium.new_tab()
    yield tab, seconds
    tab.close()
    chromium.close()


def heard_and_asked(speaking: tuple[Tab, float], base_url: str, asked: list[QueryRequest],
                    edit: str | None) -> tuple[str, QueryRequest, str]:
    """Speak into the page, edit the question box (or not), ask: what was heard, the request, the answer's badge."""
    tab, seconds = speaking
    tab.open(base_url)
    record(tab, seconds + 0.5)
    heard = str(tab.wait_for(QUESTION_BOX, seconds=TRANSCRIBED))
    if edit is not None:
        tab.evaluate("(box => { box.focus(); box.select(); })(document.getElementById('question'))")
        tab.type_text(edit)  # typed over the selection, as a keyboard does (input events fire)
        assert tab.evaluate(QUESTION_BOX) == edit
    tab.press("Enter", 13, text="\r")
    deadline = time.monotonic() + TRANSCRIBED
    while not asked and time.monotonic() < deadline:
        time.sleep(0.1)
    assert asked, "the page asked nothing"
    tab.wait_for(f"{ANSWER}?.dataset.status", seconds=TRANSCRIBED)
    return heard, asked[-1], tab.text(f"{LAST} .badge")


def test_a_name_heard_unsure_and_left_as_heard_keeps_the_question_inside_the_boundary(
        speaking_tab: tuple[Tab, float], base_url: str, models: tuple[StreamingModel, StreamingModel],
        asked: list[QueryRequest], capfd: pytest.CaptureFixture[str]) -> None:
    cloud, inside = models
    with recorded_logs() as logs:
        heard, request, badge = heard_and_asked(speaking_tab, base_url, asked, edit=None)

    assert "tremble" in heard  # the clinician saw what was heard and asked it as heard
    assert request.query == heard.strip()
    assert request.phi_unsure_words == ["tremble"]
    assert "in-boundary-model" in badge, badge
    assert inside.calls and not cloud.calls
    out, err = capfd.readouterr()
    assert find_phi(("tremble",), *logs, out, err) == [], "a heard word reached a log"
    assert speaking_tab[0].errors() == []


def test_a_name_heard_unsure_that_the_clinician_edited_out_is_not_sent(
        speaking_tab: tuple[Tab, float], base_url: str, models: tuple[StreamingModel, StreamingModel],
        asked: list[QueryRequest]) -> None:
    cloud, inside = models
    heard, request, badge = heard_and_asked(speaking_tab, base_url, asked, edit=EDITED)

    assert "tremble" in heard
    assert request.query == EDITED and request.phi_unsure_words == []
    assert "cloud-model" in badge, badge  # nothing left that PHI could be: the cloud model answers
    assert cloud.calls and not inside.calls
    assert speaking_tab[0].errors() == []
