"""A spoken question refused on one word the recognizer was unsure of: judged again without it (query/misheard.py);
the words the transcript marks as unsure (speech/unsure.py), and how a request's list of them is read."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from tests.support.passages import passage_hit
from voiceassist.models import AnswerStatus, PhiResult, QueryRequest
from voiceassist.query import misheard
from voiceassist.query.abstention import keep_supported_hits
from voiceassist.query.state import QueryState
from voiceassist.speech import TranscribedWord, Transcript
from voiceassist.speech.unsure import spoken_question, unsure_words

THRESHOLD = 0.55
RENAL = ("Metformin is contraindicated when eGFR is below 30 mL/min/1.73 m2. Do not start it when eGFR is between "
         "30 and 45; if eGFR falls below 45 during treatment, reassess the benefit and reduce the dose.")


def judged(question: str, unsure: list[str], *, phi_error: str | None = None) -> QueryState:
    state = QueryState(user_id="u", request=QueryRequest(query=question, possibly_misheard=unsure),
                       hits=[passage_hit(RENAL, title="Metformin")], sources_searched=["knowledge_base"],
                       phi=PhiResult(contains_phi=False, entities=[], redacted_text=question, error=phi_error))
    keep_supported_hits(state, threshold=THRESHOLD)
    return misheard.judged_without_misheard(state, threshold=THRESHOLD)


QUESTION = "Can I keep metformin going at an eGFR of 38 with the glorbendy?"


def test_a_garbled_word_no_passage_mentions_refuses_a_typed_question() -> None:
    state = judged(QUESTION, [])

    assert state.answer_status is AnswerStatus.NO_EVIDENCE
    assert "glorbendy" in (state.answer or "")


def test_the_same_word_heard_unsure_is_left_out_and_named_as_possibly_misheard() -> None:
    state = judged(QUESTION, ["glorbendy"])

    assert state.answer_status is not AnswerStatus.NO_EVIDENCE
    assert [h.chunk.doc_key for h in state.hits] == ["metformin"]
    assert any("Possibly misheard" in w and '"glorbendy"' in w for w in state.warnings)


def test_an_uncovered_drug_heard_unsure_still_abstains() -> None:
    state = judged("Can I keep apixaban going at an eGFR of 38?", ["apixaban"])

    assert state.answer_status is AnswerStatus.NO_EVIDENCE
    assert not any("Possibly misheard" in w for w in state.warnings)


def test_a_question_left_with_no_topic_still_abstains() -> None:
    state = judged("What is the usual dose of glorbendy?", ["glorbendy"])

    assert state.answer_status is AnswerStatus.NO_EVIDENCE


def test_nothing_is_set_aside_when_the_phi_detector_could_not_check_the_question() -> None:
    state = judged(QUESTION, ["glorbendy"], phi_error="timeout")

    assert misheard.set_aside(state) == []
    assert state.answer_status is AnswerStatus.NO_EVIDENCE


def test_an_unsure_word_a_passage_mentions_is_not_set_aside() -> None:
    state = judged(QUESTION, ["glorbendy", "metformin"])

    assert not any("metformin" in w for w in state.warnings)


def heard(*pairs: tuple[str, float]) -> Transcript:
    words = [TranscribedWord(word=f" {w}", start=n, end=n + 0.4, confidence=p) for n, (w, p) in enumerate(pairs)]
    return Transcript(text=" ".join(w for w, _ in pairs), language="en", duration_seconds=len(pairs) * 0.4,
                      confidence=0.8, words=words, engine="test")


def test_unsure_words_are_the_words_heard_low_or_known_to_no_vocabulary() -> None:
    transcript = heard(("Is", 0.99), ("metformin", 0.31), ("safe", 0.95), ("with", 0.97), ("glorbendy", 0.92),
                       ("-slash", 0.9), ("kidneys?", 0.4))

    assert unsure_words(transcript, 0.5) == ["metformin", "glorbendy", "kidneys"]
    assert unsure_words(transcript, 0.0) == ["glorbendy"]


def test_a_spoken_question_carries_its_unsure_words() -> None:
    request = spoken_question(heard(("Dose", 0.9), ("of", 0.9), ("glorbendy?", 0.9)), None)

    assert request.query == "Dose of glorbendy"
    assert request.possibly_misheard == ["glorbendy"]
    assert QueryRequest(query="Dose of glorbendy?").possibly_misheard == []


def test_the_question_mark_the_recognizer_ends_with_is_not_asked_and_nothing_else_goes() -> None:
    transcript = heard(("Mr", 0.9), ("Hollis", 0.9), ("on", 0.9), ("lisinopril?", 0.9), ("What", 0.9),
                       ("dose??", 0.9))

    request = spoken_question(transcript, None)

    assert request.query == "Mr Hollis on lisinopril? What dose"
    assert transcript.text == "Mr Hollis on lisinopril? What dose??"
    assert spoken_question(heard(("Is", 0.9), ("it", 0.9), ("safe.", 0.9)), None).query == "Is it safe."
    assert spoken_question(heard(("?", 0.9),), None).query == "?"


def test_a_transcript_lists_its_unsure_words_for_a_client_that_shows_it_for_correction() -> None:
    # what POST /v1/voice/transcribe and the WebSockets' transcript event return (the web client sends them back)
    transcript = heard(("Dose", 0.9), ("of", 0.05), ("glorbendy?", 0.9))

    dumped = transcript.model_dump(mode="json")

    assert dumped["possibly_misheard"] == ["of", "glorbendy"] == unsure_words(transcript)
    assert Transcript.model_validate(dumped) == transcript  # read back (the field is computed, never taken in)


@pytest.mark.parametrize("words", [["Harold Quimbey"], ["4417823"], ["glorbendy", "MRN-4417823"], ["é"], [""],
                                   ["x" * 65], ["w"] * 201, [7], "glorbendy"])
def test_possibly_misheard_takes_words_only_and_never_quotes_one_refused(words: object) -> None:
    with pytest.raises(ValidationError) as refused:
        QueryRequest.model_validate({"query": "Dose of glorbendy?", "possibly_misheard": words})

    messages = " ".join(str(e["msg"]) for e in refused.value.errors())
    assert not {"Harold", "Quimbey", "4417823", "glorbendy"} & set(re.findall(r"[A-Za-z0-9]+", messages))


def test_possibly_misheard_words_are_read_in_lower_case_once_each() -> None:
    request = QueryRequest(query="Dose of Glorbendy?", possibly_misheard=["Glorbendy", "glorbendy", "o'neil", "x-ray"])

    assert request.possibly_misheard == ["glorbendy", "o'neil", "x-ray"]
