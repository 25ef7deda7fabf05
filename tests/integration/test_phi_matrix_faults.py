"""The fault matrix's second half: the failures of issue 17 (a store down or slow on the query path, a hanging
PHI detector, a model's 429 and malformed 200s, an embedder failure, a search index failing mid-query, PubMed's
malformed XML), PHI near-misses, and bad input at the REST API.

Every fault row asks a question with PHI and one without, through service.answer and again through the REST
API (POST /v1/query, the API function's handler), on the real query.asl.json with stub model servers
(tests/stubs/query_stack.py; the faults are tests/stubs/query_faults.py). Each checks:

- no 500 and no unhandled error: an answer (perhaps degraded, with its warning), or a clean error envelope
  (503 with Retry-After for a store that is down) with a trace id;
- the documented behaviour of that failure (docs/operations.md, "The fault matrix");
- the PHI assertion: no PHI value in what the cloud model or PubMed received, in the logs, the X-Ray metadata,
  the audit log, the session's stored messages, or the error body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from tests.stubs.openai_stub import StubReply
from tests.stubs.query_faults import (
    FailingEmbedder,
    FaultyStore,
    HangingDetector,
    PartialIndex,
    SlowStore,
    ThrottledDynamoDb,
    dynamodb_outage,
    sqlite_outage,
)
from tests.stubs.query_stack import (
    CLOUD_ANSWER,
    CLOUD_MODEL,
    IN_BOUNDARY_ANSWER,
    SAGEMAKER_MODEL,
    USER,
    CrashingDetector,
    QueryStack,
    find_phi,
    query_stack,
    recorded_logs,
)
from tests.support.pubmed_stub import StubResponse
from voiceassist.adapters.aws.dynamodb_audit import DynamoDbAuditLog
from voiceassist.adapters.aws.dynamodb_sessions import DynamoDbSessionStore
from voiceassist.adapters.local.sqlite_audit import SqliteAuditLog
from voiceassist.adapters.local.sqlite_sessions import SqliteSessionStore
from voiceassist.adapters.local.sqlite_state import SqliteKeyValueState
from voiceassist.errors import VoiceAssistError
from voiceassist.models import QueryResponse, SourcePreferences
from voiceassist.phi import FailClosedDetector
from voiceassist.query.answering import (
    DEGRADED_WARNING,
    FALLBACK_WARNING,
    NOT_SAVED_WARNING,
    UNREAD_WARNING,
)
from voiceassist.query.retrieval import EMBEDDER_FAILED, SOURCES_UNAVAILABLE_REPLY

PHI_QUESTION = ("Patient John Smith, MRN 4417823, DOB 03/14/1956, phone 617-555-0199: what is the metformin dose "
                "for eGFR 40?")
PHI_VALUES = ("John Smith", "John", "Smith", "4417823", "03/14/1956", "617-555-0199")
PHI_ECHO = IN_BOUNDARY_ANSWER.replace("this case", "Smith's case (4417823)")  # a model naming the patient
FREE_QUESTION = "What is the metformin dose for eGFR 40?"
QUESTIONS = {"phi": PHI_QUESTION, "phi_free": FREE_QUESTION}
FALLBACK = FALLBACK_WARNING.format(model=SAGEMAKER_MODEL)
DETECTOR_FAILED = "PHI detection failed; the question was treated as containing PHI"
NOT_SAVED = NOT_SAVED_WARNING  # the session store refused the write; the answer still stands
WITH_PUBMED = SourcePreferences.model_validate({"prioritize": ["guidelines", "drug_references", "pubmed"]})


# --------------------------------------------------------------------------- the rows


@dataclass(frozen=True)
class Outcome:
    """What the clinician gets: an answer by `model` (warnings must include `warnings`), or an error."""

    model: str = ""
    warnings: tuple[str, ...] = ()
    degraded: bool = False
    answer: str | None = None  # the exact answer, when the row fixes it
    error_status: int | None = None  # an error envelope instead of an answer
    error_code: str = ""


IN_BOUNDARY = Outcome(SAGEMAKER_MODEL, answer=PHI_ECHO)
CLOUD = Outcome(CLOUD_MODEL, answer=CLOUD_ANSWER)
STORE_DOWN = Outcome(error_status=503, error_code="store_unavailable")


@dataclass(frozen=True)
class Fault:
    """One failure, how to inject it into a stack, and what each question then gets."""

    phi: Outcome
    phi_free: Outcome
    inject: Callable[[QueryStack, Path], list[Any]] = lambda stack, tmp: []  # the injected fakes (with .calls)
    cloud: tuple[StubReply, ...] = (StubReply(text=CLOUD_ANSWER),)
    sagemaker: tuple[StubReply, ...] = ()  # () = the in-boundary answer for the question
    detector: str = "real"  # real, hanging
    pubmed: dict[str, list[StubResponse]] = field(default_factory=dict)
    sources: SourcePreferences | None = None
    rest: bool = True  # also ask through the REST API
    attempts: int | None = None  # how often service.answer's question met the fault (the pipeline's retries)


def sqlite_down(attribute: str, store_class: type, *methods: str) -> Callable[[QueryStack, Path], list[Any]]:
    def inject(stack: QueryStack, tmp: Path) -> list[Any]:
        faulty = FaultyStore(getattr(stack.deps, attribute), methods, sqlite_outage(store_class, tmp / "gone.db"))
        setattr(stack.deps, attribute, faulty)
        return [faulty]

    return inject


def dynamodb_down(attribute: str, store_class: type, *methods: str) -> Callable[[QueryStack, Path], list[Any]]:
    def inject(stack: QueryStack, tmp: Path) -> list[Any]:
        client = ThrottledDynamoDb()
        setattr(stack.deps, attribute, FaultyStore(getattr(stack.deps, attribute), methods,
                                                   dynamodb_outage(store_class, client)))
        return [client]

    return inject


def slow_stores(stack: QueryStack, tmp: Path) -> list[Any]:
    slow = [SlowStore(getattr(stack.deps, attribute), delay_s=0.05) for attribute in ("sessions", "audit", "state")]
    stack.deps.sessions, stack.deps.audit, stack.deps.state = slow  # type: ignore[misc]
    return slow


def failing_embedder(stack: QueryStack, tmp: Path) -> list[Any]:
    stack.deps.embedder = embedder = FailingEmbedder(stack.deps.embedder)  # type: ignore[misc]
    return [embedder]


def index_down_after_a_first_answer(stack: QueryStack, tmp: Path) -> list[Any]:
    """The session's first question is answered; then the search cluster goes down."""
    stack.deps.index = index = PartialIndex(stack.deps.index, answered=1)  # type: ignore[misc]
    assert stack.ask(PHI_QUESTION, sources=WITH_PUBMED).metadata.model == SAGEMAKER_MODEL
    return [index]


MALFORMED_200 = {"invalid_json": '{"id": "stub", "choices": [', "no_choices": '{"id": "stub", "object": '
                 '"chat.completion", "model": "stub"}', "empty_content": json.dumps({
                     "id": "stub", "object": "chat.completion", "created": 0, "model": "stub",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": ""},
                                  "finish_reason": "stop"}]})}
MALFORMED_XML = StubResponse(body=b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMI")
THROTTLED = StubReply(status=429, headers=(("Retry-After", "30"),))
PUBMED_MALFORMED = "source pubmed was unavailable (SourceUnavailable); answered without them"
SEARCH_DOWN = "sources guidelines, drug_references were unavailable (DependencyError)"

FAULTS: dict[str, Fault] = {
    # 1. the session and audit stores down on the query path (SQLite and DynamoDB adapters)
    "sqlite_session_read_down": Fault(STORE_DOWN, STORE_DOWN,
                                      sqlite_down("sessions", SqliteSessionStore, "get", "messages")),
    "sqlite_history_read_down": Fault(Outcome(SAGEMAKER_MODEL, (UNREAD_WARNING,), answer=PHI_ECHO),
                                      Outcome(CLOUD_MODEL, (UNREAD_WARNING,), answer=CLOUD_ANSWER),
                                      sqlite_down("sessions", SqliteSessionStore, "messages")),
    "sqlite_message_write_down": Fault(Outcome(SAGEMAKER_MODEL, (NOT_SAVED,), answer=PHI_ECHO),
                                       Outcome(CLOUD_MODEL, (NOT_SAVED,), answer=CLOUD_ANSWER),
                                       sqlite_down("sessions", SqliteSessionStore, "add_message")),
    "sqlite_audit_write_down": Fault(STORE_DOWN, STORE_DOWN, sqlite_down("audit", SqliteAuditLog, "append"),
                                     attempts=3),  # Write Audit Record retries StoreUnavailable twice
    "sqlite_breaker_state_down": Fault(IN_BOUNDARY, CLOUD,
                                       sqlite_down("state", SqliteKeyValueState, "get", "put")),
    "dynamodb_session_read_throttled": Fault(STORE_DOWN, STORE_DOWN,
                                             dynamodb_down("sessions", DynamoDbSessionStore, "get", "messages")),
    "dynamodb_message_write_throttled": Fault(Outcome(SAGEMAKER_MODEL, (NOT_SAVED,), answer=PHI_ECHO),
                                              Outcome(CLOUD_MODEL, (NOT_SAVED,), answer=CLOUD_ANSWER),
                                              dynamodb_down("sessions", DynamoDbSessionStore, "add_message")),
    "dynamodb_audit_write_throttled": Fault(STORE_DOWN, STORE_DOWN,
                                            dynamodb_down("audit", DynamoDbAuditLog, "append"), attempts=3),
    # 2. the stores slow (no timing asserted: the answer arrives, unchanged)
    "stores_slow": Fault(IN_BOUNDARY, CLOUD, slow_stores),
    # 3. the PHI detector hanging past its time budget: fails closed, inside the boundary
    "detector_hangs": Fault(Outcome(SAGEMAKER_MODEL, (DETECTOR_FAILED,)),
                            Outcome(SAGEMAKER_MODEL, (DETECTOR_FAILED,)), detector="hanging", rest=False),
    # 4. the models: 429 with Retry-After, and a 200 that is not a chat completion
    "openai_429": Fault(IN_BOUNDARY, Outcome(SAGEMAKER_MODEL, (FALLBACK,)), cloud=(THROTTLED,), rest=False),
    **{f"openai_200_{kind}": Fault(IN_BOUNDARY, Outcome(SAGEMAKER_MODEL, (FALLBACK,)),
                                   cloud=(StubReply(raw_body=body),), rest=False)
       for kind, body in MALFORMED_200.items()},
    "sagemaker_429": Fault(Outcome("extractive", (DEGRADED_WARNING,), degraded=True), CLOUD,
                           sagemaker=(THROTTLED,), rest=False),
    **{f"sagemaker_200_{kind}": Fault(Outcome("extractive", (DEGRADED_WARNING,), degraded=True), CLOUD,
                                      sagemaker=(StubReply(raw_body=body),), rest=False)
       for kind, body in MALFORMED_200.items()},
    # 5. the embedder failing at query time: keyword (BM25) search only, said so
    "embedder_fails": Fault(Outcome(SAGEMAKER_MODEL, (EMBEDDER_FAILED,), answer=PHI_ECHO),
                            Outcome(CLOUD_MODEL, (EMBEDDER_FAILED,), answer=CLOUD_ANSWER), failing_embedder),
    # 6. the search index failing after its first answer; PubMed answering malformed XML
    "search_down_mid_session": Fault(Outcome("none", answer=SOURCES_UNAVAILABLE_REPLY, degraded=True),
                                     Outcome(CLOUD_MODEL, (SEARCH_DOWN + "; answered without them",),
                                             answer=CLOUD_ANSWER),
                                     index_down_after_a_first_answer, sources=WITH_PUBMED),
    "pubmed_malformed_xml": Fault(IN_BOUNDARY, Outcome(CLOUD_MODEL, (PUBMED_MALFORMED,), answer=CLOUD_ANSWER),
                                  pubmed={"efetch": [MALFORMED_XML, MALFORMED_XML]},  # service, then REST
                                  sources=WITH_PUBMED),
}


# --------------------------------------------------------------------------- the stack and the checks

OpenStack = Callable[..., AbstractContextManager[QueryStack]]
REPLACEABLE = ("sessions", "audit", "state", "index", "embedder", "phi_detector")


@pytest.fixture
def open_stack(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               shared_embedder: Any, shared_phi_detector: Any) -> OpenStack:
    def open_(**options: Any) -> AbstractContextManager[QueryStack]:
        options.setdefault("detector", shared_phi_detector)
        return query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                           **options)

    return open_


Leaks = Callable[..., None]


@pytest.fixture
def assert_nothing_leaked(capfd: pytest.CaptureFixture[str]) -> Iterator[Leaks]:
    """No PHI value in what reached the cloud model or PubMed, the logs (ours at DEBUG, every other logger at
    INFO, stdout and stderr), the trace metadata, the audit log, the session's messages, or `also` (error
    bodies). Reads the stores through `healthy`, the deps' stores as they were before the fault."""
    with recorded_logs() as logs:
        def check(stack: QueryStack, phi_values: tuple[str, ...], *also: Any) -> None:
            out, err = capfd.readouterr()
            assert find_phi(phi_values, *(r.path + r.body for r in stack.cloud.raw_requests)) == [], \
                "PHI reached the cloud model"
            assert find_phi(phi_values, *(r.raw_text for r in stack.pubmed.requests)) == [], "PHI reached PubMed"
            assert find_phi(phi_values, *logs, out, err) == [], "PHI in the logs"
            assert find_phi(phi_values, *stack.traces.entries) == [], "PHI in the X-Ray trace metadata"
            assert find_phi(phi_values, *stack.stored_text()) == [], "PHI in the audit log or the session"
            assert find_phi(phi_values, *also) == [], "PHI in an error"
            # every failure is one an adapter or a step expects, not an error nobody mapped
            assert [line for line in logs if "unexpected error" in line] == []

        yield check


def ask(stack: QueryStack, question: str, sources: SourcePreferences | None) -> QueryResponse | VoiceAssistError:
    """service.answer; a domain error is what the caller gets (anything else fails the test: an unhandled
    error is a 500)."""
    try:
        return stack.ask(question, sources=sources)
    except VoiceAssistError as exc:
        return exc


def ask_rest(stack: QueryStack, body: dict[str, Any]) -> dict[str, Any]:
    """POST /v1/query through the API function's handler, as the stack's user."""
    event = to_api_gateway_event("POST", "/v1/query", {"content-type": "application/json"},
                                 json.dumps(body).encode())
    event["requestContext"]["authorizer"]["claims"]["sub"] = USER
    return invoke("api", event)  # type: ignore[no-any-return]


def check_answer(outcome: QueryResponse | VoiceAssistError, want: Outcome) -> None:
    if want.error_status is not None:
        assert isinstance(outcome, VoiceAssistError), outcome
        assert (outcome.status_code, outcome.code) == (want.error_status, want.error_code)
        return
    assert isinstance(outcome, QueryResponse), repr(outcome)
    meta = outcome.metadata
    assert (meta.model, meta.degraded) == (want.model, want.degraded), (meta, outcome.answer)
    for warning in want.warnings:
        assert any(warning in w for w in meta.warnings), (warning, meta.warnings)
    if want.answer is not None:
        assert outcome.answer == want.answer
    assert outcome.citations or want.model == "none"


def check_rest(reply: dict[str, Any], want: Outcome) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(reply["body"])
    if want.error_status is not None:
        assert reply["statusCode"] == want.error_status, body
        error = body["error"]
        assert error["code"] == want.error_code and error["trace_id"], error
        if want.error_status in (503, 504):
            assert int(reply["multiValueHeaders"]["Retry-After"][0]) == error["retry_after"] > 0
        return body
    assert reply["statusCode"] == 200, body
    meta = body["metadata"]
    assert (meta["model"], meta["degraded"]) == (want.model, want.degraded), body
    for warning in want.warnings:
        assert any(warning in w for w in meta["warnings"]), (warning, meta["warnings"])
    return body


@pytest.mark.parametrize("question_name", list(QUESTIONS))
@pytest.mark.parametrize("fault_name", list(FAULTS))
def test_a_fault_on_the_query_path_is_never_a_500_and_keeps_phi_inside_the_boundary(
    fault_name: str, question_name: str, open_stack: OpenStack, assert_nothing_leaked: Leaks,
    shared_phi_detector: Any, tmp_path: Path,
) -> None:
    fault, question = FAULTS[fault_name], QUESTIONS[question_name]
    want = fault.phi if question_name == "phi" else fault.phi_free
    hanging = HangingDetector() if fault.detector == "hanging" else None
    detector = FailClosedDetector(hanging, timeout_s=0.3) if hanging else shared_phi_detector
    sagemaker = list(fault.sagemaker) or [StubReply(text=PHI_ECHO if question_name == "phi" else IN_BOUNDARY_ANSWER)]
    try:
        with open_stack(detector=detector, cloud_script=list(fault.cloud), sagemaker_script=sagemaker,
                        pubmed_faults=fault.pubmed) as stack:
            healthy = {name: getattr(stack.deps, name) for name in REPLACEABLE}
            injected = fault.inject(stack, tmp_path / "faults")

            # When
            outcome = ask(stack, question, fault.sources)
            met = [calls if isinstance(calls := getattr(fake, "calls", 0), int) else len(calls) for fake in injected]
            reply = ask_rest(stack, {"query": question, "session_id": stack.session_id, **(
                {"sources": fault.sources.model_dump(mode="json")} if fault.sources else {})}) if fault.rest else None

            # Then: an answer, perhaps degraded and saying so, or a clean error envelope; never a 500
            check_answer(outcome, want)
            rest_body = check_rest(reply, want) if reply is not None else {}
            assert all(getattr(fake, "calls", 0) or getattr(fake, "failed", 0) for fake in injected)  # it fired
            if fault.attempts is not None:
                assert met == [fault.attempts]
            if hanging:
                assert hanging.calls >= 1
            if question_name == "phi" or hanging:
                assert [r for r in stack.cloud.raw_requests if question in r.body] == []
            for name, store in healthy.items():
                setattr(stack.deps, name, store)
            if isinstance(outcome, QueryResponse):  # every answer is audited
                audited = {r.response_id for r in stack.deps.audit.list(user_id=USER)}
                assert outcome.metadata.query_id in audited
            errors = [str(outcome)] if isinstance(outcome, Exception) else []
            assert_nothing_leaked(stack, PHI_VALUES, *errors, rest_body.get("error", ""))
    finally:
        if hanging:
            hanging.released.set()


def test_a_detector_hanging_past_the_state_machines_time_limit_fails_closed_with_a_504(
    open_stack: OpenStack, assert_nothing_leaked: Leaks,
) -> None:
    """Without FailClosedDetector's own budget, Detect PHI's TimeoutSeconds (10 s) stops it: the pipeline
    ends in its "PHI Detection Timed Out" Fail state. Through REST only: the case costs those 10 s."""
    hanging = HangingDetector()
    try:
        with open_stack(detector=hanging) as stack:
            reply = ask_rest(stack, {"query": PHI_QUESTION, "session_id": stack.session_id})

            body = check_rest(reply, Outcome(error_status=504, error_code="timed_out"))
            assert "nothing left the boundary" in body["error"]["message"]
            assert (stack.cloud.raw_requests, stack.sagemaker.raw_requests, stack.pubmed.requests) == ([], [], [])
            assert hanging.calls == 1
            assert_nothing_leaked(stack, PHI_VALUES, body)
    finally:
        hanging.released.set()


# --------------------------------------------------------------------------- 7. PHI near-misses


@dataclass(frozen=True)
class NearMiss:
    question: str
    phi: tuple[str, ...]  # the values that must not leave the boundary
    context: str | None = None  # the session's clinical context
    earlier: str | None = None  # a question asked earlier in the session (the follow-up carries no PHI)


NEAR_MISSES = {
    "lowercase_name": NearMiss("patient john smith has an eGFR of 40: what is the metformin dose?",
                               ("john smith",)),
    "lowercase_name_asked_for": NearMiss("what is the metformin dose for john smith with an eGFR of 40?",
                                         ("john smith",)),
    "mrn_after_pt": NearMiss("pt 4417823 has an eGFR of 40: what is the metformin dose?", ("4417823",)),
    "dob_day_month_year": NearMiss("dob 25-Dec-1997, eGFR 40: what is the metformin dose?", ("25-Dec-1997",)),
    "email_in_context_only": NearMiss(FREE_QUESTION, ("maria.garcia@example.com",),
                                      context="Type 2 diabetes, CKD 3b; reach her at maria.garcia@example.com"),
    "phi_in_an_earlier_turn_only": NearMiss("And what is the usual maximum daily dose?", PHI_VALUES,
                                            earlier=PHI_QUESTION),
}
NEAR_MISS_SCENARIOS = ("openai_down", "detector_crash")


@pytest.mark.parametrize("scenario", NEAR_MISS_SCENARIOS)
@pytest.mark.parametrize("near_miss_name", list(NEAR_MISSES))
def test_phi_in_an_odd_place_stays_inside_the_boundary_when_the_cloud_is_down_or_the_detector_crashes(
    near_miss_name: str, scenario: str, open_stack: OpenStack, assert_nothing_leaked: Leaks,
) -> None:
    case = NEAR_MISSES[near_miss_name]
    cloud = [StubReply(status=503)] if scenario == "openai_down" else [StubReply(text=CLOUD_ANSWER)]
    with open_stack(cloud_script=cloud, clinical_context=case.context or "Type 2 diabetes") as stack:
        if case.earlier:
            assert stack.ask(case.earlier).metadata.model == SAGEMAKER_MODEL  # the PHI turn, in-boundary
        if scenario == "detector_crash":
            stack.deps.phi_detector = FailClosedDetector(CrashingDetector())  # type: ignore[misc]

        # When
        response = stack.ask(case.question)

        # Then the in-boundary model answers, and says why when the detector could not check the question
        meta = response.metadata
        assert (meta.model, meta.degraded) == (SAGEMAKER_MODEL, False), meta
        assert response.citations
        if scenario == "detector_crash":
            assert DETECTOR_FAILED in meta.warnings and meta.phi_detected
            assert stack.cloud.raw_requests == []  # unchecked: nothing leaves, not even the redacted history
        elif not case.earlier:  # the PHI is in the question or its context: the cloud is never even tried
            assert stack.cloud.raw_requests == []
        else:  # a PHI-free follow-up may try the cloud (down), with the earlier turn redacted
            assert FALLBACK in meta.warnings and "<PERSON>" in stack.cloud.raw_requests[0].body
        assert_nothing_leaked(stack, case.phi)


# --------------------------------------------------------------------------- bad input with PHI at the REST API

PHI_JSON = json.dumps({"query": PHI_QUESTION})
BAD_INPUT = {  # (path, content type, body, status)
    "query_as_text": ("/v1/query", "text/plain", PHI_QUESTION, 415),
    "query_as_form": ("/v1/query", "application/x-www-form-urlencoded", "query=" + PHI_QUESTION, 415),
    "query_json_cut_short": ("/v1/query", "application/json", PHI_JSON[:60], 400),
    "query_phi_in_a_wrong_type": ("/v1/query", "application/json",
                                  json.dumps({"query": PHI_QUESTION, "top_k": "John Smith 4417823"}), 400),
    "query_phi_in_an_unknown_field": ("/v1/query", "application/json",
                                      json.dumps({"query": "metformin dose?", "patient": PHI_QUESTION}), 400),
    "query_phi_nested_deep": ("/v1/query", "application/json",
                              '{"query": ' + "[" * 2000 + json.dumps(PHI_QUESTION) + "]" * 2000 + "}", 400),
    "session_context_as_text": ("/v1/sessions", "text/plain", "clinical_context=" + PHI_QUESTION, 415),
    "session_context_as_a_list": ("/v1/sessions", "application/json",
                                  json.dumps({"clinical_context": [PHI_QUESTION]}), 400),
}


@pytest.mark.parametrize("probe", list(BAD_INPUT))
def test_bad_input_carrying_phi_is_refused_without_echoing_it(probe: str, kb_deps: Any,
                                                               capfd: pytest.CaptureFixture[str]) -> None:
    path, content_type, body, status = BAD_INPUT[probe]
    with recorded_logs() as logs:
        reply = invoke("api", to_api_gateway_event("POST", path, {"content-type": content_type}, body.encode()))
    out, err = capfd.readouterr()

    error = json.loads(reply["body"])["error"]
    assert (reply["statusCode"], bool(error["trace_id"])) == (status, True), error
    assert find_phi(PHI_VALUES, reply["body"]) == [], "PHI echoed in the error body"
    assert find_phi(PHI_VALUES, *logs, out, err) == [], "PHI in the logs"
