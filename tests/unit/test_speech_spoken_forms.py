"""A recognizer's written forms of spoken words: "'s" before a number is "is", and nothing else changes."""

from __future__ import annotations

import pytest

from voiceassist.speech.spoken_forms import written_forms
from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary


@pytest.mark.parametrize(("heard", "meant"), [
    ("Her eGFR's 25 now. Can she stay on metformin?", "Her eGFR is 25 now. Can she stay on metformin?"),
    ("The creatinine’s 140, and the sodium's 128.", "The creatinine is 140, and the sodium is 128."),
    ("What's 4th line for hypertension?", "What is 4th line for hypertension?"),
])
def test_written_forms_write_is_for_the_clitic_before_a_number(heard: str, meant: str) -> None:
    assert written_forms(heard)[0] == meant


@pytest.mark.parametrize("said", [
    "What's the dose of metformin?",  # before a word
    "She's had 2 doses of adrenaline.",  # "has", before a participle
    "The patient's kidneys are fine at eGFR 25.",
    "Is the patients 25 mg dose right?",  # no apostrophe
])
def test_written_forms_leave_the_clitic_before_a_word_and_other_text_as_heard(said: str) -> None:
    assert written_forms(said) == (said, [])


def test_written_forms_leave_a_kept_span_as_heard_and_move_the_spans_after_a_change() -> None:
    heard = "eGFR's 25 for Mr Casarez's 3 tablets"
    name = (heard.index("Casarez"), heard.index("Casarez") + len("Casarez's"))

    written, spans = written_forms(heard, [name])

    assert written == "eGFR is 25 for Mr Casarez's 3 tablets"
    assert [written[start:end] for start, end in spans] == ["Casarez's"]


def test_knowledge_base_vocabulary_writes_is_after_the_phi_check_and_not_when_it_fails() -> None:
    passages = ["Metformin is contraindicated below an eGFR of 30."]
    heard = "Casarez's eGFR's 25, can Casarez's 2 tablets go on?"
    found: list[str] = []

    def spans(text: str) -> list[tuple[int, int]]:
        found.append(text)
        return [(0, 9), (text.rindex("Casarez"), text.rindex("Casarez") + 9)]

    def failing(text: str) -> None:
        return None

    vocabulary = KnowledgeBaseVocabulary(lambda: passages, phi_spans=spans)

    assert vocabulary.repair(heard) == "Casarez's eGFR is 25, can Casarez's 2 tablets go on?"
    assert found == [heard]  # detection on the transcript as heard
    assert KnowledgeBaseVocabulary(lambda: passages, phi_spans=failing).repair(heard) == heard
    assert KnowledgeBaseVocabulary(lambda: passages).repair("her EGFR's 25") == "her eGFR is 25"
