"""A question written in Spanish, French, German or Portuguese: its function words ("Cuál", "Quelle", "Wie") are
words of that language (spaCy's stop-word lists, phi/word_lists.py), not a patient's name; a name in it is still
one."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.phi.word_lists import foreign_function_words


@pytest.mark.parametrize("question", [
    "¿Cuál es la dosis máxima de metformina?",
    "Cuál es la dosis de metformina para un paciente con insuficiencia renal?",
    "Quelle est la dose maximale de metformine ?",
    "Qual é a dose de amoxicilina?",
])
def test_phi_a_foreign_question_word_is_not_a_name(shared_phi_detector: Any, question: str) -> None:
    result = shared_phi_detector.detect(question)

    assert result.entities == [] and result.redacted_text == question


def test_phi_a_german_question_word_is_not_part_of_a_name(shared_phi_detector: Any) -> None:
    question = "Wie hoch ist die maximale Dosis von Metformin?"
    found = [question[e.start:e.end] for e in shared_phi_detector.detect(question).entities]

    assert not any(span.split()[0] in {"Wie", "Welche"} for span in found)
    assert "Welche" not in [question[e.start:e.end] for e in
                            shared_phi_detector.detect("Welche Nebenwirkungen hat Ibuprofen?").entities]


@pytest.mark.parametrize(("question", "name"), [
    ("¿Cuál es la dosis de metformina para María González?", "María González"),
    ("Quelle est la dose de metformine pour Jean Dupont ?", "Jean Dupont"),
    ("Wie hoch ist die Dosis für Hans Müller?", "Hans Müller"),
    ("¿Cuál es la dosis para Mia?", "Mia"),  # "mia" is a Spanish stop word and a Census given name
])
def test_phi_a_name_in_a_foreign_question_is_still_redacted(shared_phi_detector: Any, question: str,
                                                            name: str) -> None:
    result = shared_phi_detector.detect(question)

    assert result.contains_phi and name not in result.redacted_text


def test_foreign_function_words_are_none_for_english_text() -> None:
    words = ["what", "is", "the", "dose", "of", "metformin", "for", "maria", "de", "la", "cruz"]

    assert foreign_function_words(words) == frozenset()
    assert {"cuál", "es", "la", "de"} <= foreign_function_words(["cuál", "es", "la", "dosis", "de", "metformina"])
