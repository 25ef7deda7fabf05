"""The route's recognizer hands the correction the words it doubted (whisper_stt.DOUBTED_WORD) and reports what was
changed as heard -> written (Transcript.corrections), inside the boundary, after PHI detection on the words as heard:
a fake model returns the words and their probabilities, so no weights load."""

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
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText, doubted_spans
from voiceassist.speech import TranscribedWord
from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary

PASSAGES = ["Losartan 50 mg once daily; check potassium.", "Amlodipine 5 mg daily for hypertension."]


class HeardModel:
    """Whisper's output for one recording: each word with the probability the decoder gave it."""

    def __init__(self, heard: list[tuple[str, float]]) -> None:
        self.heard = heard

    def transcribe(self, audio: Any, **options: Any) -> tuple[Iterator[Any], Any]:
        words = [
            SimpleNamespace(word=" " + word, start=n * 0.4, end=n * 0.4 + 0.3, probability=probability)
            for n, (word, probability) in enumerate(self.heard)
        ]
        text = "".join(word.word for word in words)
        return iter([SimpleNamespace(text=text, words=words)]), SimpleNamespace(language="en")


def tone(seconds: float) -> bytes:
    samples = (np.sin(np.arange(int(16_000 * seconds)) * 0.05) * 8000).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(16_000)
        target.writeframes(samples.tobytes())
    return out.getvalue()


def heard(monkeypatch: pytest.MonkeyPatch, words: list[tuple[str, float]]) -> None:
    monkeypatch.setattr(whisper_stt, "shared_model", lambda *args, **kwargs: HeardModel(words))
    monkeypatch.setattr(whisper_stt, "speech_found", lambda samples: True)  # the tone stands for speech


SURE, UNSURE, BELOW = 0.95, 0.2, 0.5


def test_doubted_spans_mark_the_words_below_the_threshold_in_the_text() -> None:
    text = "Can I start lows are tan?"
    words = [
        TranscribedWord(word=w, start=0, end=0, confidence=c)
        for w, c in [("Can", SURE), ("I", SURE), ("start", SURE), ("lows", UNSURE), ("are", UNSURE), ("tan?", UNSURE)]
    ]
    assert [text[a:b] for a, b in doubted_spans(text, words, BELOW)] == ["lows", "are", "tan?"]
    assert doubted_spans(text, words, below=0.0) == []


def test_the_recognizer_corrects_doubted_words_to_a_term_and_keeps_them_as_heard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given Whisper unsure of three English words that sound like a drug the knowledge base names
    heard(
        monkeypatch,
        [
            ("Can", SURE),
            ("I", SURE),
            ("start", SURE),
            ("lows", UNSURE),
            ("are", UNSURE),
            ("tan", UNSURE),
            ("with", SURE),
            ("amlodipine?", SURE),
        ],
    )
    vocabulary = KnowledgeBaseVocabulary(lambda: PASSAGES)
    # When the route's recognizer transcribes
    transcript = WhisperSpeechToText(doubted_below=BELOW, correct=vocabulary.correct).transcribe(tone(1.0))
    # Then the text has the term, the change is reported, and the words are what was heard
    assert transcript.text == "Can I start losartan with amlodipine?"
    assert [(c.heard, c.written) for c in transcript.corrections] == [("lows are tan", "losartan")]
    assert [w.word for w in transcript.words][3:6] == ["lows", "are", "tan"]


def test_the_recognizer_leaves_words_it_was_sure_of(monkeypatch: pytest.MonkeyPatch) -> None:
    heard(
        monkeypatch,
        [
            ("Can", SURE),
            ("I", SURE),
            ("start", SURE),
            ("lows", SURE),
            ("are", SURE),
            ("tan", SURE),
            ("with", SURE),
            ("amlodipine?", SURE),
        ],
    )
    transcript = WhisperSpeechToText(
        doubted_below=BELOW, correct=KnowledgeBaseVocabulary(lambda: PASSAGES).correct
    ).transcribe(tone(1.0))
    assert transcript.text == "Can I start lows are tan with amlodipine?"
    assert transcript.corrections == []


def test_a_doubted_patient_name_is_never_corrected_and_nothing_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Given a surname Whisper doubted that sounds like the drug ("Lowes Artan": losartan), which the PHI detector
    # finds in the transcript as heard
    heard(
        monkeypatch,
        [
            ("Is", SURE),
            ("Mr", SURE),
            ("Lowes", UNSURE),
            ("Artan", UNSURE),
            ("still", SURE),
            ("on", SURE),
            ("amlodipine?", SURE),
        ],
    )
    seen: list[str] = []

    def detector(text: str) -> list[tuple[int, int]]:
        seen.append(text)
        return [(text.index("Lowes"), text.index("Artan") + len("Artan"))]

    unchecked = WhisperSpeechToText(doubted_below=BELOW, correct=KnowledgeBaseVocabulary(lambda: PASSAGES).correct)
    assert unchecked.transcribe(tone(1.0)).text == "Is Mr losartan still on amlodipine?"  # the name would go
    caplog.set_level(logging.DEBUG)
    # When the route's correction runs with the detector
    checked = KnowledgeBaseVocabulary(lambda: PASSAGES, phi_spans=detector)
    transcript = WhisperSpeechToText(doubted_below=BELOW, correct=checked.correct).transcribe(tone(1.0))
    # Then the name stays as heard (the question keeps the PHI the pipeline routes by), nothing is corrected, the
    # detector saw the words as heard, and nothing heard reached a log
    assert transcript.text == "Is Mr Lowes Artan still on amlodipine?"
    assert transcript.corrections == []
    assert seen == ["Is Mr Lowes Artan still on amlodipine?"]
    assert not any("Lowes" in record.getMessage() or "Artan" in record.getMessage() for record in caplog.records)


def test_a_failed_phi_detection_corrects_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    heard(
        monkeypatch, [("Can", SURE), ("I", SURE), ("start", SURE), ("lows", UNSURE), ("are", UNSURE), ("tan?", UNSURE)]
    )

    def broken(text: str) -> list[tuple[int, int]]:
        raise RuntimeError("detector down")

    vocabulary = KnowledgeBaseVocabulary(lambda: PASSAGES, phi_spans=broken)
    transcript = WhisperSpeechToText(doubted_below=BELOW, correct=vocabulary.correct).transcribe(tone(1.0))
    assert transcript.text == "Can I start lows are tan?" and transcript.corrections == []


def test_a_doubted_word_is_never_corrected_into_a_name() -> None:
    # Only the knowledge base's terms are written, and they hold no Census name: a doubted word that sounds like a
    # surname in the passages ("Smyth" capitalised inside a sentence is never a term) stays as heard
    vocabulary = KnowledgeBaseVocabulary(lambda: ["Dr Smythe advised losartan 50 mg daily."])
    text = "Is smith ok with losartan?"
    fixed = vocabulary.correct(text, [(3, 8)])
    assert fixed.text == text and fixed.changes == ()
