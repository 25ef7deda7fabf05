"""PHI in a spoken question (speech/phi_doubt.py, phi/heard.py): the transcript written as typed for the detector,
the words heard unsure where a name or a number sits, and how the query's Detect PHI step routes them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from voiceassist.models import PhiEntity, PhiResult, QueryRequest
from voiceassist.phi.heard import UNSURE_SPEECH, with_unsure_speech
from voiceassist.phi.name_titles import TITLES
from voiceassist.query.planning import detect_phi
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings
from voiceassist.speech import TranscribedWord, Transcript
from voiceassist.speech.phi_doubt import NAME_CUES, detector_text, identifier_runs, phi_doubted_words
from voiceassist.speech.unsure import spoken_question


def heard(*words: tuple[str, float]) -> Transcript:
    return Transcript(text=" ".join(w for w, _ in words), language="en", duration_seconds=4.0, confidence=0.8,
                      engine="test", words=[TranscribedWord(word=f" {w}", start=n, end=n + 0.4, confidence=p)
                                            for n, (w, p) in enumerate(words)])


@pytest.mark.parametrize(("transcript", "typed"), [
    ("Mister Okoro, M R N four eight two one nine three seven, on warfarin?",
     "Mister Okoro, MRN 4821937, on warfarin?"),
    ("call her son on 617, 254, 339, 0 today", "call her son on 6172543390 today"),
    ("call 2,468, 1,357 please", "call 24681357 please"),
    ("born on the third of March nineteen fifty", "born on the 3rd of March 1950"),
    ("born 3 March 19 50, on lisinopril", "born 3 March 1950, on lisinopril"),
    ("she is 100, and 3 years old", "she is 103 years old"),
])
def test_a_transcript_is_written_as_the_question_would_be_typed(transcript: str, typed: str) -> None:
    assert detector_text(transcript) == typed


@pytest.mark.parametrize("text", [
    "Is it 130 over 80 or 140 over 90?", "the 1 in 10, 0, 0, 0 ampoule", "a CURB-65 of 2, which antibiotic?",
    "eGFR 28, potassium 6.1, what now?", "give 2 to 3 litres", "born 6-28-1939, on 11-10-2024 seen",
])
def test_clinical_numbers_stay_as_heard(text: str) -> None:
    assert detector_text(text) == text
    assert identifier_runs(text) == []


def test_a_long_number_is_identifier_shaped_unless_it_is_a_round_quantity() -> None:
    assert identifier_runs("MRN 4821937 and 6172543390") == ["4821937", "6172543390"]
    assert identifier_runs("benzathine penicillin 1200000 units, dose 2.4") == []


def test_an_unsure_word_after_a_title_or_patient_is_doubted() -> None:
    assert phi_doubted_words(heard(("Is", 0.9), ("the", 0.9), ("patient", 0.9), ("tremble", 0.3), ("on", 0.9),
                                   ("metformin?", 0.9))) == ["tremble"]
    assert phi_doubted_words(heard(("Mr.", 0.9), ("Leeks,", 0.42), ("on", 0.9), ("warfarin?", 0.9))) == ["leeks"]
    # the same words heard surely, or a drug heard unsure after the cue, are not doubted
    assert phi_doubted_words(heard(("Is", 0.9), ("the", 0.9), ("patient", 0.9), ("tremble", 0.8), ("on", 0.9))) == []
    assert phi_doubted_words(heard(("patient", 0.9), ("metformin", 0.2), ("dose?", 0.9))) == []


def test_a_name_shaped_word_heard_unsure_is_doubted_where_a_name_sits() -> None:
    # inside a sentence with a capital; at its start before another capitalised word; a Census name at its start
    assert phi_doubted_words(heard(("Ask", 0.9), ("about", 0.9), ("Quenbey", 0.12))) == ["quenbey"]
    assert phi_doubted_words(heard(("Alicin", 0.23), ("Spoon", 0.6), ("was", 0.9), ("born", 0.9))) == ["alicin"]
    assert phi_doubted_words(heard(("Patrick", 0.38), ("is", 0.9), ("allergic", 0.9))) == ["patrick"]
    # a capital at a sentence's start that is no name, a stop word, an abbreviation in capitals: not doubted
    assert phi_doubted_words(heard(("Harerizactica", 0.1), ("sedosis", 0.2), ("how", 0.9), ("rare?", 0.9))) == []
    assert phi_doubted_words(heard(("So", 0.2), ("what", 0.9), ("dose?", 0.9))) == []
    assert phi_doubted_words(heard(("the", 0.9), ("CURB", 0.3), ("score", 0.9))) == []


def test_a_word_beside_a_month_and_a_long_number_are_doubted() -> None:
    assert phi_doubted_words(heard(("born", 0.9), ("fort", 0.3), ("March", 0.9), ("1950", 0.9))) == ["fort"]
    assert phi_doubted_words(heard(("call", 0.9), ("617,", 0.9), ("254,", 0.9), ("3390", 0.9))) == ["6172543390"]


def test_the_name_cues_are_the_detectors_titles_and_words_that_introduce_a_person() -> None:
    assert NAME_CUES - {"patient", "named", "called", "name"} <= TITLES


def test_the_spoken_question_carries_the_typed_text_and_the_doubted_words() -> None:
    request = spoken_question(heard(("Patient", 0.9), ("tremble,", 0.3), ("M", 0.9), ("R", 0.9), ("N", 0.9),
                                    ("four", 0.9), ("two", 0.9), ("one", 0.9), ("eight", 0.9), ("six", 0.9),
                                    ("zero", 0.9), ("nine.", 0.9)))
    assert request.query == "Patient tremble, MRN 4218609."
    assert request.phi_unsure_words == ["tremble", "4218609"]


@pytest.mark.parametrize("words", [["two words"], ["x" * 65], ["<b>"]])
def test_phi_unsure_words_that_are_not_words_are_refused(words: list[str]) -> None:
    with pytest.raises(ValidationError) as raised:
        QueryRequest(query="Is metformin safe?", phi_unsure_words=words)
    assert "two words" not in str(raised.value.errors()[0]["msg"])


def test_unsure_words_are_redacted_as_phi_and_fail_closed_when_not_found() -> None:
    question = "Is the patient tremble on metformin?"
    result = with_unsure_speech(PhiResult(contains_phi=False, redacted_text=question), question, ["tremble"])
    assert result.contains_phi and result.entity_types == [UNSURE_SPEECH]
    assert "tremble" not in result.redacted_text and "<UNSURE_SPEECH>" in result.redacted_text
    kept = PhiResult(contains_phi=True, entities=[PhiEntity(entity_type="PERSON", start=0, end=2)], redacted_text="x")
    assert with_unsure_speech(kept, question, []) is kept
    absent = with_unsure_speech(PhiResult(contains_phi=False, redacted_text=question), question, ["okafor"])
    assert absent.contains_phi and absent.redacted_text == question


class _NoPhi:
    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=False, redacted_text=text)


@pytest.mark.parametrize("enabled", [True, False])
def test_detect_phi_routes_doubted_words_as_phi_when_the_setting_is_on(enabled: bool) -> None:
    ctx = SimpleNamespace(settings=Settings(voice_phi_doubt=enabled), phi_detector_for=lambda mode: _NoPhi())
    state = QueryState(user_id="u", request=QueryRequest(query="Is the patient tremble on metformin?",
                                                         phi_unsure_words=["tremble"]))
    detect_phi(ctx, state)  # type: ignore[arg-type]
    assert state.phi_detected is enabled
    assert (UNSURE_SPEECH in state.phi.entity_types) is enabled  # type: ignore[union-attr]
    assert any("heard unsure" in w for w in state.warnings) is enabled


def test_the_transcript_lists_its_phi_unsure_words_for_a_client_that_shows_it() -> None:
    transcript = heard(("Is", 0.9), ("the", 0.9), ("patient", 0.9), ("tremble", 0.3), ("on", 0.9), ("it?", 0.9))
    assert transcript.model_dump()["phi_unsure_words"] == ["tremble"]
    # and a client that sends them with the reviewed question gets the question kept as PHI (the model validates)
    assert QueryRequest(query=transcript.text, phi_unsure_words=transcript.phi_unsure_words).phi_unsure_words == [
        "tremble"]


def test_a_failed_detection_keeps_hiding_the_whole_question_when_words_were_heard_unsure() -> None:
    from voiceassist.phi.detection import WITHHELD, failed_result
    text = "Patient Ann Lowe, record number 4417823. Metformin dose?"
    result = with_unsure_speech(failed_result("PHI detector busy: no detection could start"), text, ["4417823"])
    assert result.contains_phi and result.redacted_text == WITHHELD and "Lowe" not in result.redacted_text
