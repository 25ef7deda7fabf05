"""Words with letters beyond ASCII stay whole: the no-evidence reply quotes "máxima", never "xima"."""

from __future__ import annotations

import pytest

from voiceassist.query import evidence
from voiceassist.query.terms import content_terms


def test_question_concepts_keep_accented_words_whole() -> None:
    labels = [c.label for c in evidence.question_concepts("¿Cuál es la dosis máxima de amoxicilina en niños?")]
    assert "máxima" in labels and "niños" in labels
    assert not {"xima", "ni", "os", "Cu"} & set(labels)


def test_content_terms_keep_accented_words_whole() -> None:
    assert {"máxima", "sjögren"} <= content_terms("Dosis máxima en Sjögren")
    assert "xima" not in content_terms("dosis máxima")


def test_ascii_questions_keep_their_concepts() -> None:
    labels = [c.label for c in evidence.question_concepts("What is the maximum dose of metformin in CKD?")]
    assert labels == ["metformin", "CKD", "maximum", "dose"]


@pytest.mark.parametrize(("question", "topics"), [
    ("¿Cuál es la dosis máxima de amoxicilina en niños?", {"amoxicillin", "dosis", "máxima", "niños"}),
    ("Quelle est la dose maximale de metformine ?", {"metformin", "dose", "maximale"}),
    ("Wie hoch ist die maximale Dosis von Metformin?", {"metformin", "maximale", "Dosis"}),
])
def test_question_concepts_leave_out_a_foreign_questions_function_words(question: str, topics: set[str]) -> None:
    assert {c.label for c in evidence.question_concepts(question)} == topics
