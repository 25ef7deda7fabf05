"""The PHI boundary on every path of the real query pipeline, against stub model servers on 127.0.0.1.

Each case asks one question (with PHI or without) under one failure (none, OpenAI down, SageMaker down,
both down, the knowledge base down, PubMed down or slow, the PHI detector crashing) through service.answer,
which runs query.asl.json with the real handlers. Every question asks for the guidelines, the drug
references and PubMed (the sample corpus holds guidelines and a drug reference), so PubMed is searched
whenever the PHI rules allow it. It then checks what the clinician sees (answer, model, degraded,
extractive, warnings, sources) and everything PHI could leak into: the requests the cloud (OpenAI) and
PubMed stubs received, the logs, the X-Ray trace metadata, the audit log and the session's stored messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
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
    PUBMED_BUDGET_S,
    SAGEMAKER_MODEL,
    USER,
    CrashingDetector,
    QueryStack,
    find_phi,
    query_stack,
    recorded_logs,
)
from tests.support.pubmed_stub import StubResponse
from voiceassist.models import AnswerStatus, AuditOutcome, RoutingMode, SourcePreferences
from voiceassist.phi import FailClosedDetector
from voiceassist.query.abstention import NO_EVIDENCE_REPLY
from voiceassist.query.answering import DEGRADED_WARNING, FALLBACK_WARNING
from voiceassist.query.circuit_breaker import BreakerRegistry, BreakerState
from voiceassist.query.planning import SKIPPED_PHI, SKIPPED_UNCHECKED
from voiceassist.query.retrieval import SOURCES_UNAVAILABLE_REPLY


@dataclass(frozen=True)
class Question:
    text: str
    doc_key: str  # the sample document that answers it
    phi: tuple[str, ...] = ()  # the PHI values it carries
    # How the in-boundary model's answer echoes the patient: without the cues ("Patient", "MRN") the detector
    # needs, as models do.
    echo: str = ""

    @property
    def has_phi(self) -> bool:
        return bool(self.phi)


PHI_QUESTIONS = {
    "phi_mrn_dob_phone": Question(
        "Patient John Smith, MRN 4417823, DOB 03/14/1956, phone 617-555-0199: what is the metformin dose for "
        "eGFR 40?", "sample-metformin",
        ("John Smith", "John", "Smith", "4417823", "03/14/1956", "617-555-0199"),
        "Smith's case (4417823)"),
    "phi_address_email_ssn": Question(
        "Mrs. Maria Garcia of 42 Elm Street, email maria.garcia@example.com, SSN 078-05-1120, has "
        "anaphylaxis: what intramuscular epinephrine dose?", "sample-anaphylaxis",
        ("Maria Garcia", "Maria", "Garcia", "42 Elm Street", "maria.garcia@example.com", "078-05-1120"),
        "Maria's case"),
    "phi_name_mrn_birth_date": Question(
        "My patient Robert Chen (MRN 99812345, born 7/2/1948) has community-acquired pneumonia: which "
        "outpatient antibiotic?", "sample-community-acquired-pneumonia",
        ("Robert Chen", "Robert", "99812345", "7/2/1948"), "Robert's case (99812345)"),
}
PHI_FREE_QUESTIONS = {
    "metformin": Question("What is the metformin dose for eGFR 40?", "sample-metformin"),
    "hypertension": Question("What is the first-line treatment for uncomplicated hypertension?",
                             "sample-hypertension-primary-care"),
    "pneumonia_pdf": Question("Which antibiotic is recommended for outpatient community-acquired pneumonia?",
                              "sample-community-acquired-pneumonia"),
    "anaphylaxis": Question("What is the intramuscular epinephrine dose for anaphylaxis in adults?",
                            "sample-anaphylaxis"),
}
QUESTIONS = PHI_QUESTIONS | PHI_FREE_QUESTIONS
ALL_PHI = tuple(value for q in PHI_QUESTIONS.values() for value in q.phi)

DOWN = [StubReply(status=503)]
FALLBACK = FALLBACK_WARNING.format(model=SAGEMAKER_MODEL)
DETECTOR_FAILED = "PHI detection failed; the question was treated as containing PHI"
SOURCES = SourcePreferences.model_validate({"prioritize": ["guidelines", "drug_references", "pubmed"]})
KNOWLEDGE_BASE = ["guidelines", "drug_references"]
WITHOUT_PUBMED = [*KNOWLEDGE_BASE, "textbooks"]  # PubMed's slot goes to the next partition
SEARCH_FAILED = "sources {} were unavailable (DependencyError)"
PUBMED_FAILED = "source pubmed was unavailable (SourceUnavailable)"
ANSWERED_WITHOUT = "; answered without them"


@dataclass(frozen=True)
class Scenario:
    cloud_down: bool = False
    sagemaker_down: bool = False
    search_down: bool = False  # the knowledge base (the search cluster)
    pubmed_faults: tuple[tuple[str, StubResponse], ...] = ()
    detector_fails: bool = False

    @property
    def pubmed_fails(self) -> bool:
        return bool(self.pubmed_faults)


PUBMED_DOWN = tuple(("esearch", StubResponse(status=503)) for _ in range(3))  # the first try and two retries
PUBMED_SLOW = (("esearch", StubResponse(delay_s=PUBMED_BUDGET_S * 3)),)
SCENARIOS = {
    "normal": Scenario(),
    "openai_down": Scenario(cloud_down=True),
    "sagemaker_down": Scenario(sagemaker_down=True),
    "both_down": Scenario(cloud_down=True, sagemaker_down=True),
    "search_down": Scenario(search_down=True),
    "pubmed_down": Scenario(pubmed_faults=PUBMED_DOWN),
    "pubmed_slow": Scenario(pubmed_faults=PUBMED_SLOW),
    "search_and_pubmed_down": Scenario(search_down=True, pubmed_faults=PUBMED_DOWN),
    "detector_failure": Scenario(detector_fails=True),
}


@dataclass(frozen=True)
class Expected:
    model: str
    warnings: tuple[str, ...] = ()
    degraded: bool = False
    cites: str = "knowledge_base"  # where citation [1] comes from: knowledge_base, pubmed or none

    @property
    def extractive(self) -> bool:
        return self.model == "extractive"


def expected(scenario: Scenario, question: Question) -> Expected:
    """What the clinician must see: the routing rules of DESIGN.md section 4, issue 5 items 3 and 4."""
    unchecked = scenario.detector_fails
    if question.has_phi or unchecked:  # PubMed is never searched, and says so
        warning = SKIPPED_UNCHECKED if unchecked else SKIPPED_PHI
        searched_pubmed, source_warnings = False, [warning.format(name="PubMed")]
    else:
        searched_pubmed, source_warnings = True, []
    if searched_pubmed and scenario.pubmed_fails:
        source_warnings.append(PUBMED_FAILED + ("" if scenario.search_down else ANSWERED_WITHOUT))
    if scenario.search_down:
        partitions = ", ".join(KNOWLEDGE_BASE if searched_pubmed else WITHOUT_PUBMED)
        source_warnings.append(SEARCH_FAILED.format(partitions)
                               + (ANSWERED_WITHOUT if searched_pubmed and not scenario.pubmed_fails else ""))
        if not searched_pubmed or scenario.pubmed_fails:  # nothing left to answer from: a clear degraded reply
            return Expected("none", tuple(source_warnings), degraded=True, cites="none")
        if question.doc_key != "sample-metformin":  # the PubMed stub's abstracts are all about metformin
            return Expected("none", tuple(source_warnings), cites="no_evidence")
    cites = "pubmed" if scenario.search_down else "knowledge_base"
    if unchecked:
        return Expected(SAGEMAKER_MODEL, (*source_warnings, DETECTOR_FAILED), cites=cites)  # fail closed
    if question.has_phi:  # in-boundary only, OpenAI's state is irrelevant
        if scenario.sagemaker_down:
            return Expected("extractive", (*source_warnings, DEGRADED_WARNING), degraded=True, cites=cites)
        return Expected(SAGEMAKER_MODEL, tuple(source_warnings), cites=cites)
    if not scenario.cloud_down:
        return Expected(CLOUD_MODEL, tuple(source_warnings), cites=cites)
    if not scenario.sagemaker_down:
        return Expected(SAGEMAKER_MODEL, (*source_warnings, FALLBACK), cites=cites)
    return Expected("extractive", (*source_warnings, DEGRADED_WARNING), degraded=True, cites=cites)


def in_boundary_answer(question: Question) -> str:
    """The SageMaker stub's reply; for PHI it names the patient, as a model answering the question might."""
    return IN_BOUNDARY_ANSWER.replace("this case", question.echo) if question.has_phi else IN_BOUNDARY_ANSWER


OpenStack = Callable[..., AbstractContextManager[QueryStack]]


@pytest.fixture
def open_stack(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               shared_embedder: Any, shared_phi_detector: Any) -> OpenStack:
    """query_stack on a fresh copy of the seeded corpus (the integration conftest's, seeded once per run);
    options as query_stack's (the real detector unless one is given)."""
    def open_(**options: Any) -> AbstractContextManager[QueryStack]:
        options.setdefault("detector", shared_phi_detector)
        return query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                           **options)

    return open_


@pytest.fixture
def assert_nothing_leaked(capfd: pytest.CaptureFixture[str]) -> Iterator[Callable[[QueryStack], None]]:
    """Checks for any PHI value of the questions in what reached the cloud stub, the logs (ours at DEBUG,
    every other logger at INFO, stdout and stderr), the trace metadata, the audit log and the session."""
    with recorded_logs() as logs:
        def check(stack: QueryStack) -> None:
            out, err = capfd.readouterr()
            cloud_requests = [r.path + r.body for r in stack.cloud.raw_requests]
            assert find_phi(ALL_PHI, *cloud_requests) == [], "PHI reached the cloud model"
            assert find_phi(ALL_PHI, *(r.raw_text for r in stack.pubmed.requests)) == [], "PHI reached PubMed"
            assert find_phi(ALL_PHI, *logs, out, err) == [], "PHI in the logs"
            assert find_phi(ALL_PHI, *stack.traces.entries) == [], "PHI in the X-Ray trace metadata"
            assert find_phi(ALL_PHI, *stack.stored_text()) == [], "PHI in the audit log or the session"

        yield check


@pytest.mark.parametrize("question_name", list(QUESTIONS))
@pytest.mark.parametrize("scenario_name", list(SCENARIOS))
def test_query_pipeline_keeps_phi_inside_the_boundary_on_every_path(
    scenario_name: str, question_name: str, open_stack: OpenStack, shared_phi_detector: Any,
    assert_nothing_leaked: Callable[[QueryStack], None],
) -> None:
    scenario, question = SCENARIOS[scenario_name], QUESTIONS[question_name]
    want = expected(scenario, question)
    detector = FailClosedDetector(CrashingDetector()) if scenario.detector_fails else shared_phi_detector
    faults: dict[str, list[StubResponse]] = {}
    for route, fault in scenario.pubmed_faults:
        faults.setdefault(route, []).append(fault)
    with open_stack(detector=detector, search_down=scenario.search_down, pubmed_faults=faults,
                    cloud_script=DOWN if scenario.cloud_down else [StubReply(text=CLOUD_ANSWER)],
                    sagemaker_script=DOWN if scenario.sagemaker_down else [
                        StubReply(text=in_boundary_answer(question))]) as stack:
        # When
        response = stack.ask(question.text, sources=SOURCES)

        # Then the clinician gets a sensible answer or a clearly degraded one
        meta = response.metadata
        assert (meta.model, meta.degraded, meta.extractive) == (want.model, want.degraded, want.extractive)
        assert sorted(meta.warnings) == sorted(want.warnings)
        assert meta.phi_detected is (question.has_phi or scenario.detector_fails)
        searched_pubmed = not (question.has_phi or scenario.detector_fails)
        assert meta.sources_searched == ([*KNOWLEDGE_BASE, "pubmed"] if searched_pubmed else WITHOUT_PUBMED)
        if want.cites == "none":
            assert (response.answer, response.citations) == (SOURCES_UNAVAILABLE_REPLY, [])
        elif want.cites == "no_evidence":  # abstained: no passage about the question's topic
            assert (meta.answer_status, response.citations) == (AnswerStatus.NO_EVIDENCE, [])
            assert response.answer.startswith(NO_EVIDENCE_REPLY)
        elif want.cites == "pubmed":
            first = response.citations[0]
            assert first.pmid and first.url == f"https://pubmed.ncbi.nlm.nih.gov/{first.pmid}/"
        else:
            assert question.doc_key in {c.doc_key for c in response.citations}, response.citations
        if want.model == CLOUD_MODEL:
            assert response.answer == CLOUD_ANSWER
        elif want.model == SAGEMAKER_MODEL:
            assert response.answer == in_boundary_answer(question)
            assert question.text in stack.sagemaker.raw_requests[-1].body  # in-boundary: as it was asked
        elif want.extractive:
            assert response.answer.startswith("Extractive answer")

        # and neither OpenAI nor PubMed ever saw a question that carried PHI, or one the detector could not check
        if not searched_pubmed:
            assert (stack.cloud.raw_requests, stack.pubmed.requests) == ([], [])
        else:
            assert stack.pubmed.requests_to("esearch")[0].params["term"] == question.text
            if scenario.cloud_down and want.model != "none":
                assert len(stack.cloud.requests) == 2  # a failed cloud call is retried once, then the fallback
        record = next(r for r in stack.deps.audit.list(user_id=USER) if r.response_id == meta.query_id)
        assert (record.model or "none", record.phi_detected) == (meta.model, meta.phi_detected)
        assert record.outcome is (AuditOutcome.DEGRADED if want.degraded else AuditOutcome.NO_EVIDENCE
                                  if want.cites == "no_evidence" else AuditOutcome.ANSWERED)
        if scenario.detector_fails:
            assert record.query_redacted == "<WITHHELD>"
        assert_nothing_leaked(stack)


def test_phi_in_the_session_context_keeps_a_phi_free_question_inside_the_boundary(
    open_stack: OpenStack, assert_nothing_leaked: Callable[[QueryStack], None],
) -> None:
    context = "John Smith, MRN 4417823, DOB 03/14/1956: type 2 diabetes, chronic kidney disease stage 3b"
    with open_stack(clinical_context=context) as stack:
        response = stack.ask(PHI_FREE_QUESTIONS["metformin"].text)

        assert (response.metadata.model, response.metadata.warnings) == (SAGEMAKER_MODEL, [FALLBACK])
        assert stack.cloud.raw_requests == []  # the egress guard stopped the prompt that carried the context
        assert context in stack.sagemaker.raw_requests[-1].body
        assert_nothing_leaked(stack)


def test_a_phi_free_follow_up_sends_no_phi_from_the_earlier_answer_to_the_cloud(
    open_stack: OpenStack, assert_nothing_leaked: Callable[[QueryStack], None],
) -> None:
    first = PHI_QUESTIONS["phi_mrn_dob_phone"]
    with open_stack(sagemaker_script=[StubReply(text=in_boundary_answer(first))]) as stack:
        assert stack.ask(first.text).answer == in_boundary_answer(first)  # the clinician sees the echo

        follow_up = stack.ask("And what is the usual maximum daily dose?")

        assert follow_up.metadata.model == CLOUD_MODEL
        assert "fits the cited excerpt" in stack.cloud.raw_requests[0].body  # the history, redacted
        assert_nothing_leaked(stack)


def test_cloud_only_mode_sends_only_the_redacted_question(
    open_stack: OpenStack, assert_nothing_leaked: Callable[[QueryStack], None],
) -> None:
    with open_stack(routing_mode=RoutingMode.CLOUD_ONLY) as stack:
        response = stack.ask(PHI_QUESTIONS["phi_mrn_dob_phone"].text)

        assert (response.metadata.model, response.answer) == (CLOUD_MODEL, CLOUD_ANSWER)
        assert any("redacted" in w for w in response.metadata.warnings)
        assert "Patient <PERSON>, MRN <MEDICAL_RECORD_NUMBER>" in stack.cloud.raw_requests[0].body
        assert stack.sagemaker.raw_requests == []
        assert_nothing_leaked(stack)


def test_local_only_mode_never_calls_the_cloud(open_stack: OpenStack) -> None:
    with open_stack(routing_mode=RoutingMode.LOCAL_ONLY) as stack:
        response = stack.ask(PHI_FREE_QUESTIONS["hypertension"].text)

        assert response.metadata.model == SAGEMAKER_MODEL
        assert stack.cloud.raw_requests == []


def test_circuit_breaker_opens_after_five_cloud_failures_then_skips_the_cloud(open_stack: OpenStack) -> None:
    questions = [q.text for q in PHI_FREE_QUESTIONS.values()]
    with open_stack(cloud_script=DOWN) as stack:
        breaker = BreakerRegistry(stack.deps.state).for_model(CLOUD_MODEL)
        asked = 0
        while len(stack.cloud.requests) < 5:  # each question tries the cloud twice (the pipeline's one retry)
            assert breaker.state() is BreakerState.CLOSED
            response = stack.ask(questions[asked % len(questions)])
            assert (response.metadata.model, response.metadata.degraded) == (SAGEMAKER_MODEL, False)
            asked += 1
        assert (len(stack.cloud.requests), breaker.state()) == (5, BreakerState.OPEN)

        response = stack.ask(PHI_FREE_QUESTIONS["anaphylaxis"].text)

        assert len(stack.cloud.requests) == 5  # straight to the fallback: the open circuit made no call
        assert (response.metadata.model, response.metadata.warnings) == (SAGEMAKER_MODEL, [FALLBACK])
        assert "sample-anaphylaxis" in {c.doc_key for c in response.citations}


def test_the_rest_api_answers_a_phi_question_inside_the_boundary(
    open_stack: OpenStack, assert_nothing_leaked: Callable[[QueryStack], None],
) -> None:
    question = PHI_QUESTIONS["phi_address_email_ssn"]
    with open_stack() as stack:
        body = json.dumps({"query": question.text}).encode()
        reply = invoke("api", to_api_gateway_event("POST", "/v1/query", {"content-type": "application/json"},
                                                   body))

        assert reply["statusCode"] == 200, reply["body"]
        meta = json.loads(reply["body"])["metadata"]
        assert (meta["model"], meta["phi_detected"]) == (SAGEMAKER_MODEL, True)
        assert meta["phi_entity_types"] == ["EMAIL_ADDRESS", "PERSON", "STREET_ADDRESS", "US_SSN"]
        assert stack.cloud.raw_requests == []
        assert_nothing_leaked(stack)
