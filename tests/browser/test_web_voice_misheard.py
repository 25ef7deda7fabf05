"""The words a spoken question's recognizer was unsure of go with it from the web client (issue 29, decision 0031):
Chromium's fake microphone plays a question espeak-ng spoke with two made-up drug names, the real server transcribes
it with Whisper, the transcript's `possibly_misheard` comes back with it, and the question the clinician asks after
reviewing it carries those words, less any the clinician edited or deleted (the correction wins). A typed question
carries none. The server's side of the field (validation, PHI) is tested in tests/integration/test_voice_query.py
and tests/unit/api/test_api_voice.py."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.chromium import Tab
from tests.browser.test_web_voice import QUESTION_BOX, TRANSCRIBED, fake_microphone, record, spoken_wav
from voiceassist.composition import Dependencies
from voiceassist.models import QueryRequest
from voiceassist.speech import Transcript

pytestmark = pytest.mark.slow

# made-up names no vocabulary holds: Whisper writes something for them that is unsure or unknown
SAID = "Can metformin be taken with zorbatrilex or quendofam?"
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def words_of(text: str) -> set[str]:
    """The lower-case words of a text as speech/unsure.py reads a heard word (whole and in its pieces)."""
    found: set[str] = set()
    for word in WORD.findall(text):
        found |= {p.lower() for p in [word.strip("-'"), *re.split(r"[-']", word)] if p}
    return found


class Heard:
    """The server's recognizer, keeping what it last returned (the page receives the same transcript)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.transcripts: list[Transcript] = []

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        transcript: Transcript = self.inner.transcribe(audio, max_seconds=max_seconds)
        self.transcripts.append(transcript)
        return transcript


@pytest.fixture
def heard(server_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> Heard:
    recognizer = Heard(server_deps.speech_to_text)
    monkeypatch.setattr(server_deps, "speech_to_text", recognizer)
    return recognizer


@pytest.fixture
def speaking_tab(tmp_path: Path) -> Iterator[tuple[Tab, float]]:
    """A tab of a Chromium whose microphone says SAID once, and how long it speaks."""
    seconds = spoken_wav(SAID, tmp_path / "said.wav")
    chromium = fake_microphone(tmp_path / "said.wav")
    tab = chromium.new_tab()
    yield tab, seconds
    tab.close()
    chromium.close()


def spoken(speaking: tuple[Tab, float], base_url: str, heard: Heard) -> tuple[str, list[str]]:
    """Speak SAID into the page; the text put in the question box and the transcript's unsure words."""
    tab, seconds = speaking
    tab.open(base_url)
    record(tab, seconds + 0.5)
    text = str(tab.wait_for(QUESTION_BOX, seconds=TRANSCRIBED))
    unsure = heard.transcripts[-1].possibly_misheard
    assert words_of(text) & set(unsure), ("Whisper heard every made-up name as a known, sure word", text, unsure)
    return text, unsure


def ask_and_wait(tab: Tab, asked: list[QueryRequest]) -> QueryRequest:
    tab.press("Enter", 13, text="\r")
    deadline = time.monotonic() + TRANSCRIBED
    while not asked and time.monotonic() < deadline:
        time.sleep(0.1)
    assert asked, "the page asked nothing"
    tab.wait_for("document.querySelector('article.turn.assistant:last-of-type')?.dataset.status",
                 seconds=TRANSCRIBED)
    return asked[-1]


def test_a_spoken_question_asked_as_heard_carries_the_words_the_recognizer_was_unsure_of(
        speaking_tab: tuple[Tab, float], base_url: str, heard: Heard, asked: list[QueryRequest]) -> None:
    text, unsure = spoken(speaking_tab, base_url, heard)

    request = ask_and_wait(speaking_tab[0], asked)

    assert request.query == text.strip()
    assert request.possibly_misheard == [w for w in unsure if w in words_of(text)], (text, unsure)
    assert speaking_tab[0].errors() == []


def test_a_word_the_clinician_corrects_or_deletes_loses_its_mark(
        speaking_tab: tuple[Tab, float], base_url: str, heard: Heard, asked: list[QueryRequest]) -> None:
    tab = speaking_tab[0]
    text, unsure = spoken(speaking_tab, base_url, heard)
    tokens = text.split()
    marked = [n for n, token in enumerate(tokens) if words_of(token) & set(unsure)]
    # When the clinician retypes the first word marked unsure ("lisinopril") and deletes the last one, if another
    first, last = marked[0], marked[-1]
    edited = [*tokens]
    edited[first] = WORD.sub("lisinopril", tokens[first], count=1)  # its punctuation kept
    if last != first:
        del edited[last]
    corrected = " ".join(edited)
    tab.evaluate("(box => { box.focus(); box.select(); })(document.getElementById('question'))")
    tab.type_text(corrected)  # typed over the selection, as a keyboard does (input events fire)
    assert tab.evaluate(QUESTION_BOX) == corrected

    request = ask_and_wait(tab, asked)

    # Then the question asked is the corrected one, and carries only the unsure words the clinician left as heard
    assert request.query == corrected.strip()
    gone = (words_of(tokens[first]) | words_of(tokens[last])) - words_of(corrected)
    assert gone and not gone & set(request.possibly_misheard), (text, corrected, request.possibly_misheard)
    assert request.possibly_misheard == [w for w in unsure if w in words_of(corrected) and w != "lisinopril"]


def test_unsure_words_follow_the_words_left_as_heard_and_a_typed_question_carries_none(
        tab: Tab, base_url: str, asked: list[QueryRequest]) -> None:
    tab.open(base_url)
    tab.wait_for("document.activeElement && document.activeElement.id === 'question'")
    # as heard; a word corrected; deleted; typed again elsewhere (the heard one deleted); a hyphenated word's piece
    checks = tab.evaluate("""import('/voice.js').then(({ stillUnsure }) => [
      stillUnsure('Dose of glorbendy for kidneys?', ['glorbendy'], 'Dose of glorbendy for kidneys?'),
      stillUnsure('Dose of glorbendy for kidneys?', ['glorbendy'], 'Dose of glibenclamide for kidneys?'),
      stillUnsure('Dose of glorbendy for kidneys?', ['glorbendy'], 'Dose for kidneys?'),
      stillUnsure('Dose of glorbendy for kidneys?', ['glorbendy', 'kidneys'], 'Dose for kidneys? glorbendy'),
      stillUnsure('Is last-arton safe?', ['arton'], 'Is last-arton safe in pregnancy?'),
      stillUnsure('Is last-arton safe?', ['arton'], 'Is losartan safe?'),
      stillUnsure('', ['arton'], 'Is losartan safe?'),
    ])""")
    assert checks == [["glorbendy"], [], [], ["kidneys"], ["arton"], [], []]
    tab.type_text("Can metformin be taken with glorbendy?")

    request = ask_and_wait(tab, asked)

    assert request.query == "Can metformin be taken with glorbendy?" and request.possibly_misheard == []
