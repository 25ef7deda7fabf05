"""Asking by voice on the local stack: a spoken sample-corpus question through the local server returns the
cited answer (and, asked for, the answer as audio); a spoken question that names a patient is transcribed in
this process and routed as PHI like a typed one: nothing heard reaches the cloud model, a log or a store.

Whisper loads once per test process (adapters/local/whisper_stt.shared_model); these tests are the few that
transcribe through the API."""

from __future__ import annotations

import io
import json
import re
import urllib.request
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from tests.stubs.openai_stub import StubReply
from tests.stubs.query_stack import (
    CLOUD_ANSWER,
    CLOUD_MODEL,
    IN_BOUNDARY_ANSWER,
    SAGEMAKER_MODEL,
    USER,
    QueryStack,
    find_phi,
    query_stack,
    recorded_logs,
)
from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech

# every test that decodes speech with Whisper runs on one xdist worker: the model loads once per run there and a
# recording decoded twice is decoded once (tests/support/whisper_memo.py, tests/support/xdist_order.py)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("whisper")]

QUESTION = "What is the maximum daily dose of metformin?"
PHI_QUESTION = "Patient John Smith, medical record number 4417823. What is the metformin dose for eGFR 40?"
PHI_VALUES = ("John Smith", "Smith", "4417823")


def post(url: str, path: str, body: bytes, content_type: str, accept: str = "application/json"
         ) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url + path, data=body, method="POST",
                                     headers={"Content-Type": content_type, "Accept": accept})
    with urllib.request.urlopen(request, timeout=300) as reply:  # noqa: S310 - 127.0.0.1
        return reply.status, reply.headers.get("Content-Type", ""), reply.read()


def test_voice_query_answers_a_spoken_sample_question_with_its_citation(kb_server_url: str) -> None:
    audio = EspeakTextToSpeech().synthesize(QUESTION)
    status, content_type, body = post(kb_server_url, "/v1/voice/query", audio, "audio/wav")
    assert status == 200 and content_type.startswith("application/json")
    answer = json.loads(body)
    assert "metformin" in answer["metadata"]["transcript"]["text"].lower()
    assert answer["metadata"]["transcript"]["words"]
    assert answer["metadata"]["phi_detected"] is False
    assert answer["citations"] and answer["citations"][0]["doc_key"] == "sample-metformin"
    assert "[1]" in answer["answer"] and answer["audio_wav_base64"] is None


def test_voice_query_reads_the_answer_aloud_when_asked_for_audio(kb_server_url: str) -> None:
    audio = EspeakTextToSpeech().synthesize(QUESTION)
    status, content_type, body = post(kb_server_url, "/v1/voice/query", audio, "audio/wav", accept="audio/wav")
    assert status == 200 and content_type == "audio/wav"
    with wave.open(io.BytesIO(body)) as played:
        assert played.getnframes() / played.getframerate() > 2.0  # a cited answer, not a beep


@pytest.fixture
def phi_stack(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              shared_embedder: Any, shared_phi_detector: Any) -> Iterator[QueryStack]:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector, cloud_script=[StubReply(text=CLOUD_ANSWER)],
                     sagemaker_script=[StubReply(text=IN_BOUNDARY_ANSWER)]) as stack:
        yield stack


def test_a_spoken_patient_name_is_transcribed_inside_and_routed_as_phi(
        phi_stack: QueryStack, capfd: pytest.CaptureFixture[str]) -> None:
    audio = EspeakTextToSpeech().synthesize(PHI_QUESTION)
    event = to_api_gateway_event("POST", f"/v1/voice/query?session_id={phi_stack.session_id}",
                                 {"content-type": "audio/wav"}, audio)
    event["requestContext"]["authorizer"]["claims"]["sub"] = USER  # the session's owner
    with recorded_logs() as logs:
        reply = invoke("api", event)
    assert reply["statusCode"] == 200, reply["body"]
    answer = json.loads(reply["body"])
    heard = answer["metadata"]["transcript"]["text"]
    assert "Smith" in heard and "4417823" in heard.replace(",", "").replace(" ", "")  # the clinician sees it
    # Then the transcript was detected and routed like a typed question with PHI: the in-boundary model answered
    assert answer["metadata"]["phi_detected"] is True
    assert answer["metadata"]["model"] == SAGEMAKER_MODEL
    assert find_phi(PHI_VALUES, *(r.path + r.body for r in phi_stack.cloud.raw_requests)) == []
    assert find_phi(PHI_VALUES, *(r.raw_text for r in phi_stack.pubmed.requests)) == []
    out, err = capfd.readouterr()
    assert find_phi(PHI_VALUES, *logs, out, err) == [], "what was heard reached a log"
    assert find_phi(PHI_VALUES, *phi_stack.traces.entries) == []
    assert find_phi(PHI_VALUES, *phi_stack.stored_text()) == [], "what was heard was stored raw"
    assert "voice.query" in {r.action for r in phi_stack.deps.audit.list(user_id=USER, limit=100)}


def test_voice_recognizer_is_biased_toward_the_indexed_documents_vocabulary(phi_stack: QueryStack) -> None:
    # Given the sample corpus indexed, the vocabulary the route's recognizer can be prompted with names its drug
    # and condition names (VOICEASSIST_VOICE_VOCABULARY_TERMS, 60 by default)
    from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary, indexed_passages

    deps = phi_stack.deps
    prompt = KnowledgeBaseVocabulary(lambda: indexed_passages(deps.documents, deps.index)).prompt() or ""
    assert {"metformin", "amoxicillin", "lisinopril", "epinephrine", "eGFR"} <= set(prompt.rstrip(".").replace(
        "Clinical question. Terms: ", "").split(", "))
    assert len(prompt) <= 700  # inside Whisper's 223-token prompt window


def test_transcript_repair_never_bends_a_patient_surname_into_a_drug_name(phi_stack: QueryStack) -> None:
    # Given the sample corpus indexed (losartan, so its brand Cozaar is a repair term) and a transcript naming a
    # patient whose surname sounds like the brand ("Casarez": a repair without the PHI check writes "Cozaar")
    from voiceassist.conversation import orchestrator
    from voiceassist.models import QueryRequest
    from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary, indexed_passages

    deps = phi_stack.deps
    heard = "Mr Casarez takes lozartan 50 mg, can I add amlodipine?"
    unchecked = KnowledgeBaseVocabulary(lambda: indexed_passages(deps.documents, deps.index))
    assert unchecked.repair(heard).startswith("Mr Cozaar takes losartan")
    # When the route's repair runs (PHI detected on the transcript as heard first)
    question = deps.speech_vocabulary.repair(heard)
    # Then the surname stays as heard, the drug is put back, and the question is routed as PHI
    assert question == "Mr Casarez takes losartan 50 mg, can I add amlodipine?"
    answer = orchestrator.respond(deps, QueryRequest(query=question, session_id=phi_stack.session_id),
                                  user_id=USER, trace_id=None)
    assert answer.metadata.phi_detected is True
    assert answer.metadata.model == SAGEMAKER_MODEL
    assert find_phi(("Casarez",), *(r.path + r.body for r in phi_stack.cloud.raw_requests)) == []


def test_the_correction_of_doubted_words_never_bends_a_doubted_patient_name(phi_stack: QueryStack) -> None:
    # Given the sample corpus indexed (losartan) and a transcript naming a patient whose surname the recognizer
    # doubted and which sounds like the drug ("Lowes Artan": a correction without the PHI check writes "losartan")
    from voiceassist.conversation import orchestrator
    from voiceassist.models import QueryRequest
    from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary, indexed_passages

    deps = phi_stack.deps
    heard = "Mr Lowes Artan takes lows are tan 50 mg, can I add amlodipine?"
    every = [(word.start(), word.end()) for word in re.finditer(r"\S+", heard)]  # every word doubted
    unchecked = KnowledgeBaseVocabulary(lambda: indexed_passages(deps.documents, deps.index))
    assert unchecked.correct(heard, every).text.startswith("Mr losartan takes losartan")
    # When the route's correction runs (PHI detected on the transcript as heard first)
    fixed = deps.speech_vocabulary.correct(heard, every)
    # Then the doubted drug is put back, the doubted name stays as heard, and the question is routed as PHI
    assert fixed.text == "Mr Lowes Artan takes losartan 50 mg, can I add amlodipine?"
    assert fixed.changes == (("lows are tan", "losartan"),)
    answer = orchestrator.respond(deps, QueryRequest(query=fixed.text, session_id=phi_stack.session_id),
                                  user_id=USER, trace_id=None)
    assert answer.metadata.phi_detected is True
    assert answer.metadata.model == SAGEMAKER_MODEL
    assert find_phi(("Lowes", "Artan"), *(r.path + r.body for r in phi_stack.cloud.raw_requests)) == []


@pytest.mark.parametrize("heard", [
    # a surname after a short English word sounds like a split term ("Ann Tibiotti": "antibiotic")
    "Can I give Ann Tibiotti and to biotic for her pneumonia? pneumonia.",
    # a date of birth said in words, and a glued term
    "Mrs Lopez, born on the fifth of March nineteen sixty one, is lactocacidosis a risk on metformin?",
])
def test_the_transcript_text_side_keeps_a_spoken_name_and_birth_date_and_routes_them_as_phi(
        phi_stack: QueryStack, heard: str) -> None:
    # Given the sample corpus indexed and a transcript naming a patient, with a term split or glued and the end of
    # the question echoed after it (what the recognizer's text side rewrites)
    from voiceassist.adapters.local.whisper_stt import without_echoed_tail
    from voiceassist.conversation import orchestrator
    from voiceassist.models import QueryRequest
    from voiceassist.speech import TranscribedWord
    from voiceassist.speech.vocabulary import KnowledgeBaseVocabulary, indexed_passages

    deps = phi_stack.deps
    if "Tibiotti" in heard:  # a repair without the PHI check bends the name into the term
        unchecked = KnowledgeBaseVocabulary(lambda: indexed_passages(deps.documents, deps.index))
        assert unchecked.repair(heard).startswith("Can I give antibiotic antibiotic")
    words = [TranscribedWord(word=w, start=n, end=n + 0.5, confidence=0.9) for n, w in enumerate(heard.split())]
    # When the echo is cut and the route's repair runs (PHI detected on the transcript as heard first)
    question = deps.speech_vocabulary.repair(without_echoed_tail(heard, words)[0])
    # Then the terms are put back, the name and the date stay as heard, and the question is routed as PHI
    assert "antibiotic" in question or "lactic acidosis" in question
    assert not question.endswith("? pneumonia.")
    said = ("Ann Tibiotti",) if "Tibiotti" in heard else ("Lopez", "fifth of March nineteen sixty one")
    assert all(value in question for value in said)
    answer = orchestrator.respond(deps, QueryRequest(query=question, session_id=phi_stack.session_id),
                                  user_id=USER, trace_id=None)
    assert answer.metadata.phi_detected is True
    assert answer.metadata.model != CLOUD_MODEL  # answered in-boundary, or abstained without a model
    assert find_phi(said, *(r.path + r.body for r in phi_stack.cloud.raw_requests)) == []


def test_possibly_misheard_words_go_with_the_spoken_question_and_never_reach_a_log_or_a_store(
        phi_stack: QueryStack, capfd: pytest.CaptureFixture[str]) -> None:
    # Given a transcript naming a patient, heard unsure, with a garbled word no passage mentions
    from voiceassist.conversation import orchestrator
    from voiceassist.speech import TranscribedWord, Transcript
    from voiceassist.speech.unsure import spoken_question

    said = "Patient Harold Quimbey. Can metformin cause lactic glorbendy?"
    words = [TranscribedWord(word=f" {w}", start=n, end=n + 0.4, confidence=0.1 if n in (1, 2) else 0.9)
             for n, w in enumerate(said.split())]
    transcript = Transcript(text=said, language="en", duration_seconds=8.0, confidence=0.8, words=words,
                            engine="test")
    request = spoken_question(transcript, phi_stack.session_id)
    assert {"harold", "quimbey", "glorbendy"} <= set(request.possibly_misheard)
    typed = orchestrator.respond(phi_stack.deps, request.model_copy(update={"possibly_misheard": []}), user_id=USER,
                                 trace_id=None)
    assert typed.metadata.answer_status == "no_evidence"  # typed, the garbled word refuses the question
    # When it is asked as the voice routes ask it
    with recorded_logs() as logs:
        answer = orchestrator.respond(phi_stack.deps, request, user_id=USER, trace_id=None)
    # Then the question is answered, the garbled word named as possibly misheard, the patient's name never
    assert answer.metadata.answer_status == "answered", answer.answer
    notes = [w for w in answer.metadata.warnings if "Possibly misheard" in w]
    assert notes and '"glorbendy"' in notes[0]
    name = ("Harold", "Quimbey")
    assert find_phi(name, *answer.metadata.warnings) == []
    out, err = capfd.readouterr()
    assert find_phi((*name, "glorbendy"), *logs, out, err) == [], "a heard word reached a log"
    assert find_phi(name, *phi_stack.traces.entries) == []
    assert find_phi(name, *phi_stack.stored_text()) == [], "a heard name was stored raw"
    assert find_phi(name, *(r.path + r.body for r in phi_stack.cloud.raw_requests)) == []


def ask_rest(phi_stack: QueryStack, body: dict[str, Any]) -> dict[str, Any]:
    """POST /v1/query through the API function's handler, as the session's owner."""
    event = to_api_gateway_event("POST", "/v1/query", {"content-type": "application/json"}, json.dumps(body).encode())
    event["requestContext"]["authorizer"]["claims"]["sub"] = USER
    return invoke("api", event)  # type: ignore[no-any-return]


def test_a_reviewed_spoken_question_posted_with_its_unsure_words_keeps_them_out_of_logs_and_stores(
        phi_stack: QueryStack, capfd: pytest.CaptureFixture[str]) -> None:
    # Given what the web client sends after the clinician reviewed a transcript: the question, and the words heard
    # unsure that were left as heard (a patient's name among them)
    said = "Patient Harold Quimbey. Can metformin cause lactic glorbendy?"
    body = {"query": said, "session_id": phi_stack.session_id, "possibly_misheard": ["harold", "quimbey", "glorbendy"]}
    with recorded_logs() as logs:
        reply = ask_rest(phi_stack, body)
    assert reply["statusCode"] == 200, reply["body"]
    answer = json.loads(reply["body"])
    # Then it is judged as the voice route judges it: the garbled word set aside and named, the name never
    assert answer["metadata"]["phi_detected"] is True
    assert answer["metadata"]["answer_status"] == "answered", answer["answer"]
    assert any('"glorbendy"' in w for w in answer["metadata"]["warnings"])
    name = ("Harold", "Quimbey")
    assert find_phi(name, *answer["metadata"]["warnings"]) == []
    out, err = capfd.readouterr()
    assert find_phi((*name, "glorbendy"), *logs, out, err) == [], "a heard word reached a log"
    assert find_phi(name, *phi_stack.traces.entries) == []
    assert find_phi(name, *phi_stack.stored_text()) == [], "a heard name was stored raw"
    assert find_phi(name, *(r.path + r.body for r in phi_stack.cloud.raw_requests)) == []


@pytest.mark.parametrize("words", [["Harold Quimbey"], ["harold", "MRN-4417823"], ["x" * 65], [4417823]])
def test_unsure_words_that_are_not_words_are_refused_without_quoting_them(
        phi_stack: QueryStack, capfd: pytest.CaptureFixture[str], words: list[Any]) -> None:
    body = {"query": "Can metformin cause lactic acidosis?", "possibly_misheard": words}
    with recorded_logs() as logs:
        reply = ask_rest(phi_stack, body)
    assert reply["statusCode"] == 400, reply["body"]
    assert json.loads(reply["body"])["error"]["code"] == "invalid_request"
    out, err = capfd.readouterr()
    assert find_phi(("Harold", "Quimbey", "4417823", "x" * 65), reply["body"], *logs, out, err) == []
    assert find_phi(("Harold", "Quimbey", "4417823"), *phi_stack.stored_text()) == []
    assert not phi_stack.cloud.raw_requests  # refused before anything was asked
