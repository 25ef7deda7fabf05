"""The prompt copied into the transcript: Whisper, prompted with the knowledge base's terms, wrote a term of the prompt
twice ("azithromycin, azithromycin,") for a question it could not make out; the recognizer then decodes the recording
again without the prompt and returns that (whisper_stt.echoes_prompt, PROMPT_ECHO_GUARD). A fake model answers by
the prompt it is given, so no weights load; nothing heard is logged."""

from __future__ import annotations

import io
import logging
import wave
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from voiceassist.adapters.local import whisper_stt
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText, echoes_prompt
from voiceassist.speech import TranscribedWord
from voiceassist.speech.vocabulary import initial_prompt, prompt_terms

TERMS = ["metformin", "azithromycin", "CURB-65", "lactic acidosis", "eGFR"]
PROMPT = initial_prompt(TERMS)
ECHO = "azithromycin, azithromycin,"
QUESTION = "Is lactic acidosis actually common with metformin?"


class PromptedModel:
    """Whisper's output by prompt: the prompt copied when prompted, the question without it."""

    def __init__(self, prompted: str, bare: str) -> None:
        self.prompted, self.bare = prompted, bare
        self.prompts: list[str | None] = []

    def transcribe(self, audio: Any, **options: Any) -> tuple[Iterator[Any], Any]:
        self.prompts.append(options["initial_prompt"])
        text = self.prompted if options["initial_prompt"] else self.bare
        words = [SimpleNamespace(word=" " + word, start=n * 0.4, end=n * 0.4 + 0.3, probability=0.6)
                 for n, word in enumerate(text.split())]
        return iter([SimpleNamespace(text=" " + text, words=words)]), SimpleNamespace(language="en")


def tone(seconds: float) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(16_000)
        target.writeframes((np.sin(np.arange(int(16_000 * seconds)) * 0.05) * 8000).astype("<i2").tobytes())
    return out.getvalue()


def model(monkeypatch: pytest.MonkeyPatch, prompted: str, bare: str = QUESTION) -> PromptedModel:
    fake = PromptedModel(prompted, bare)
    monkeypatch.setattr(whisper_stt, "shared_model", lambda *args, **kwargs: fake)
    monkeypatch.setattr(whisper_stt, "speech_found", lambda samples: True)  # the tone stands for speech
    return fake


def said(text: str) -> list[TranscribedWord]:
    return [TranscribedWord(word=word, start=0, end=0, confidence=0.9) for word in text.split()]


def test_prompt_terms_are_the_terms_initial_prompt_names() -> None:
    assert prompt_terms(PROMPT) == tuple(TERMS)
    assert prompt_terms(None) == () and prompt_terms("Some other prompt.") == ()


@pytest.mark.parametrize("heard", [ECHO, "Azithromycin, azithromycin.", "is CURB-65 CURB-65 high",
                                   "lactic acidosis, lactic acidosis"])
def test_a_prompt_term_said_twice_in_a_row_echoes_the_prompt(heard: str) -> None:
    assert echoes_prompt(said(heard), TERMS)


@pytest.mark.parametrize("heard", [
    QUESTION,
    "Metformin or azithromycin, which first?",  # two terms, each once
    "Is metformin safe? And metformin with contrast?",  # a term said again, not in a row
    "Is lactic acidosis common with metformin? Metformin, I mean.",  # again in the next sentence
    "Is it very very common?",  # a word twice in a row that is no term
    "Can I give metformin metformin",  # a word twice that is not a term of this prompt
])
def test_a_question_that_names_terms_does_not_echo_the_prompt(heard: str) -> None:
    terms = TERMS if "metformin metformin" not in heard else ["azithromycin"]
    assert not echoes_prompt(said(heard), terms)


def test_the_recognizer_decodes_without_the_prompt_when_the_prompt_was_copied(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    fake = model(monkeypatch, ECHO)
    with caplog.at_level(logging.DEBUG):
        transcript = WhisperSpeechToText(vocabulary=lambda: PROMPT).transcribe(tone(2.0))
    assert fake.prompts == [PROMPT, None]
    assert transcript.text == QUESTION and [w.word for w in transcript.words] == QUESTION.split()
    assert "azithromycin" not in caplog.text.lower() and "acidosis" not in caplog.text.lower()  # nothing heard logged


def test_the_recognizer_decodes_once_when_the_prompt_was_not_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = model(monkeypatch, "Is lactic acidosis common with metformin? Metformin, I mean.")
    transcript = WhisperSpeechToText(vocabulary=lambda: PROMPT).transcribe(tone(2.0))
    assert fake.prompts == [PROMPT] and transcript.text.startswith("Is lactic acidosis")


def test_the_guard_can_be_turned_off_for_a_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = model(monkeypatch, ECHO)
    transcript = WhisperSpeechToText(vocabulary=lambda: PROMPT, prompt_echo_guard=False).transcribe(tone(2.0))
    assert fake.prompts == [PROMPT] and transcript.text == ECHO
