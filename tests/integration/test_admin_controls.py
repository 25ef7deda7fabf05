"""The operator's controls on the real query pipeline (stub model servers on 127.0.0.1): a per-user monthly cost
limit stops that user's cloud-model calls at the limit, the answer says so and the 80 % alert fires; a routing
mode changed through the API applies to the next question, without a restart, and is audited. The billing
events name the principal and the model, never the question."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from tests.stubs.query_stack import (
    BEDROCK_MODEL_ID,
    CLOUD_MODEL,
    SAGEMAKER_ENDPOINT,
    SAGEMAKER_MODEL,
    USER,
    QueryStack,
    query_stack,
)
from tests.support.clock import clear_of_month_end
from voiceassist import service
from voiceassist.admin.ledger import month_of
from voiceassist.models import AuditOutcome, QueryRequest, RoutingMode, utc_now
from voiceassist.settings import InBoundaryProvider

QUESTION = "What is the metformin dose for eGFR 40?"
CALL_COST = 0.000027  # the stub's 100 prompt and 20 completion tokens at gpt-4o-mini's list price
OTHER_USER = "clinician-2"


class RecordedAlerts:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def publish(self, subject: str, message: str) -> None:
        self.sent.append((subject, message))


@pytest.fixture
def stack(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          shared_embedder: Any, shared_phi_detector: Any) -> Iterator[QueryStack]:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector) as opened:
        opened.deps.alerts = RecordedAlerts()  # type: ignore[misc]
        yield opened


def admin_call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
    raw = json.dumps(body).encode() if body is not None else b""
    event = to_api_gateway_event(method, path, {"content-type": "application/json"} if raw else {}, raw,
                                 groups="admin")
    reply = invoke("api", event)
    return reply["statusCode"], json.loads(reply["body"])


def test_admin_cost_limit_stops_the_users_cloud_calls_and_the_answer_says_so(
        stack: QueryStack, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_of_month_end(monkeypatch)
    status, _ = admin_call("PATCH", "/v1/admin/config", {"cost": {"per_user_monthly_limit_usd": 0.00005}})
    assert status == 200

    first, second = stack.ask(QUESTION), stack.ask(QUESTION)
    assert [first.metadata.model, second.metadata.model] == [CLOUD_MODEL, CLOUD_MODEL]
    assert first.metadata.usage.cost_usd == pytest.approx(CALL_COST)
    alerts: RecordedAlerts = stack.deps.alerts  # type: ignore[assignment]
    assert [subject for subject, _ in alerts.sent] == [
        f"VoiceAssist cost: user:{USER} 80% of its monthly limit",
        f"VoiceAssist cost: user:{USER} reached its monthly limit"]

    capped = stack.ask(QUESTION)

    assert len(stack.cloud.requests) == 2  # the third question never reached the cloud model
    assert capped.metadata.model == SAGEMAKER_MODEL and capped.citations
    assert any("monthly cloud-model budget ($0.00) is used up" in w and SAGEMAKER_MODEL in w
               for w in capped.metadata.warnings)
    other = service.answer(stack.deps, QueryRequest(query=QUESTION), user_id=OTHER_USER)
    assert other.metadata.model == CLOUD_MODEL and len(stack.cloud.requests) == 3  # the limit is per user
    assert len(alerts.sent) == 2  # each alert once a month

    month = month_of(utc_now())
    users = stack.deps.billing.users(month)
    assert (users[USER].calls, users[USER].cost_usd) == (3, pytest.approx(2 * CALL_COST))
    assert users[USER].prompt_tokens == 300 and users[OTHER_USER].calls == 1
    status, report = admin_call("GET", f"/v1/admin/billing?month={month}&user_id={USER}")
    assert status == 200 and [a["threshold"] for a in report["alerts"]] == [0.8, 1.0]
    assert sum(day["calls"] for day in report["days"].values()) == 3
    rows = stack.deps._sqlite.query("SELECT * FROM billing_events")  # type: ignore[attr-defined]
    assert len(rows) == 4 and "metformin" not in json.dumps(rows).lower()


def test_admin_cost_limit_with_an_extractive_fallback_calls_no_model(stack: QueryStack) -> None:
    admin_call("PATCH", "/v1/admin/config", {"cost": {"monthly_limit_usd": 0},
                                            "models": {"cloud": {"fallback": "extractive"}}})

    response = stack.ask(QUESTION)

    assert (len(stack.cloud.requests), len(stack.sagemaker.requests)) == (0, 0)
    assert response.metadata.extractive and response.metadata.model == "extractive"
    assert any("deployment's monthly cloud-model budget" in w and "extractive composer" in w
               for w in response.metadata.warnings)


def test_admin_routing_change_applies_to_the_next_question_and_is_audited(stack: QueryStack) -> None:
    assert stack.ask(QUESTION).metadata.model == CLOUD_MODEL
    assert stack.cloud.requests[-1]["model"] == CLOUD_MODEL

    admin_call("PATCH", "/v1/admin/config", {"models": {"cloud": {"model": "gpt-4.1-mini"}}})
    stack.ask(QUESTION)
    assert stack.cloud.requests[-1]["model"] == "gpt-4.1-mini"  # the cloud route's model, asked by its new id

    status, saved = admin_call("PATCH", "/v1/admin/config", {"routing_mode": "local-only"})
    after = stack.ask(QUESTION)

    assert status == 200 and saved["version"] == 2
    assert after.metadata.model == SAGEMAKER_MODEL and len(stack.cloud.requests) == 2
    audited = [r for r in stack.deps.audit.list(limit=50) if r.action == "config.update"]
    assert sorted((r.outcome, r.target, tuple(r.roles)) for r in audited) == [
        (AuditOutcome.ACCEPTED, "v1: models.cloud.model", ("admin",)),
        (AuditOutcome.ACCEPTED, "v2: routing_mode", ("admin",))]


@pytest.fixture(params=[InBoundaryProvider.SAGEMAKER, InBoundaryProvider.BEDROCK], ids=["sagemaker", "bedrock"])
def aws_stack(request: pytest.FixtureRequest, kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch, shared_embedder: Any, shared_phi_detector: Any
              ) -> Iterator[tuple[QueryStack, str]]:
    """The in-boundary model on SageMaker or Bedrock (real boto3 clients sent to the stub), with one granted
    alternate: an endpoint name or a model id."""
    provider: InBoundaryProvider = request.param
    alternate = ALTERNATES[provider]
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector, routing_mode=RoutingMode.LOCAL_ONLY, in_boundary_provider=provider,
                     settings_overrides={"in_boundary_alternates": f" {alternate} ,"}) as opened:
        yield opened, alternate


ALTERNATES = {InBoundaryProvider.SAGEMAKER: "llama-3-3-70b-endpoint",
              InBoundaryProvider.BEDROCK: "meta.llama3-3-70b-instruct-v1:0"}


def test_admin_switches_the_sagemaker_or_bedrock_model_for_the_next_question(
        aws_stack: tuple[QueryStack, str]) -> None:
    stack, alternate = aws_stack
    first = stack.ask(QUESTION)
    assert first.metadata.model == SAGEMAKER_MODEL  # the deployment's own (both adapters label it so)
    deployed_path = stack.sagemaker.raw_requests[-1].path
    assert SAGEMAKER_ENDPOINT in deployed_path or quote(BEDROCK_MODEL_ID) in deployed_path

    status, saved = admin_call("PATCH", "/v1/admin/config", {"models": {"in_boundary": {"model": alternate}}})
    after = stack.ask(QUESTION)

    assert status == 200 and saved["config"]["models"]["in_boundary"]["model"] == alternate
    assert after.metadata.model == alternate and after.citations  # asked by its new id, without a restart
    assert quote(alternate) in stack.sagemaker.raw_requests[-1].path and len(stack.cloud.requests) == 0
    status, _ = admin_call("PATCH", "/v1/admin/config", {"models": {"in_boundary": {"model": "deployment"}}})
    assert status == 200 and stack.ask(QUESTION).metadata.model == SAGEMAKER_MODEL


@pytest.mark.parametrize(("model", "problem"), [
    (None, "is not one of this deployment's in-boundary models"),  # well formed, not granted
    ("not an id!", "is not a"),
])
def test_admin_in_boundary_model_outside_the_deployments_choices_is_a_422_naming_the_field(
        aws_stack: tuple[QueryStack, str], model: str | None, problem: str) -> None:
    stack, alternate = aws_stack
    model = model or ("meta.some-other-model-v1:0" if "." in alternate else "some-other-endpoint")

    status, body = admin_call("PATCH", "/v1/admin/config", {"models": {"in_boundary": {"model": model}}})

    assert status == 422
    [detail] = body["error"]["details"]
    assert detail["field"] == "models.in_boundary.model" and problem in detail["problem"]
    assert alternate in detail["problem"] or "not a" in detail["problem"]  # the choices are named
    assert admin_call("GET", "/v1/admin/config")[1]["version"] == 0  # nothing saved
