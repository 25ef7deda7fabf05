"""Whisper's doubted tail: a word or two after the question's end that the recognizer itself doubts (the trailing
silence read as a word) is dropped from the transcript; anything it is sure of stays."""

from __future__ import annotations

from voiceassist.adapters.local.whisper_stt import without_doubted_tail
from voiceassist.speech import TranscribedWord


def heard(*pairs: tuple[str, float]) -> list[TranscribedWord]:
    return [TranscribedWord(word=w, start=n, end=n + 0.5, confidence=c) for n, (w, c) in enumerate(pairs)]


def test_a_doubted_word_after_the_question_mark_is_dropped() -> None:
    words = heard(("How", 0.9), ("long", 0.9), ("be", 0.99), ("treated?", 0.98), ("it.", 0.08))

    text, kept = without_doubted_tail("How long be treated? it.", words)

    assert text == "How long be treated?"
    assert [w.word for w in kept] == ["How", "long", "be", "treated?"]


def test_a_second_sentence_the_recognizer_is_sure_of_stays() -> None:
    words = heard(("Patient", 0.9), ("Smith.", 0.6), ("What", 0.95), ("dose?", 0.9))

    assert without_doubted_tail("Patient Smith. What dose?", words) == ("Patient Smith. What dose?", words)


def test_a_doubted_word_inside_the_question_stays() -> None:
    words = heard(("metformin", 0.28), ("dose", 0.09), ("saturated?", 0.3))

    assert without_doubted_tail("metformin dose saturated?", words)[0] == "metformin dose saturated?"


def test_a_longer_doubted_tail_is_kept_as_said() -> None:
    words = heard(("dose?", 0.9), ("and", 0.1), ("then", 0.1), ("what", 0.1))

    assert without_doubted_tail("dose? and then what", words)[0] == "dose? and then what"
