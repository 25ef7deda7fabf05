"""The executor's lifecycle, one step at a time: validate, authorize, PHI rule, rate limit, confirm, time out,
execute, audit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.tools.executor_fixtures import Harness, build
from voiceassist.errors import Conflict, NotFound
from voiceassist.models import AuditOutcome, ToolCall
from voiceassist.tools.errors import ActionExpired
from voiceassist.tools.executor import Caller

CLINICIAN = Caller(user_id="clinician-1")
CHADSVASC = {"calculator": "chadsvasc", "parameters": {"age": 75, "sex": "female", "hypertension": True,
                                                        "diabetes": True}}


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return build(tmp_path)


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def test_executor_runs_a_calculator_and_returns_its_citable_source(harness: Harness) -> None:
    result = harness.executor.execute(call("calculate_medical_score", **CHADSVASC), CLINICIAN)

    assert (result.ok, result.status, result.data["score"]) == (True, 200, 5)
    assert result.content.startswith("CHA2DS2-VASc") and "Source:" in result.content
    assert result.sources[0].chunk.metadata.title.startswith("CHA2DS2-VASc")


def test_executor_unknown_tool_is_a_404_naming_the_known_ones(harness: Harness) -> None:
    result = harness.executor.execute(call("order_pizza", size="large"), CLINICIAN)

    assert (result.ok, result.status, result.error) == (False, 404, "not_found")
    assert "calculate_medical_score" in result.content


def test_executor_invalid_arguments_are_a_400_naming_the_fields(harness: Harness) -> None:
    result = harness.executor.execute(call("calculate_medical_score", calculator="chadsvasc",
                                           parameters={"age": 75, "colour": "red"}), CLINICIAN)

    assert (result.status, result.error) == (400, "invalid_input")
    assert "colour" in result.content and "sex" in result.content


def test_executor_converts_the_units_clinicians_mix(harness: Harness) -> None:
    pounds_inches = harness.executor.execute(call("calculate_medical_score", calculator="bmi", parameters={
        "weight_kg": [154, "lb"], "height_cm": [5, "ft", 10, "in"]}), CLINICIAN)
    metric = harness.executor.execute(call("calculate_medical_score", calculator="bmi", parameters={
        "weight_kg": 69.85317, "height_cm": 177.8}), CLINICIAN)
    creatinine = harness.executor.execute(call("calculate_medical_score", calculator="ckd_epi", parameters={
        "age": 50, "sex": "male", "creatinine_mg_dl": [114.92, "µmol/L"]}), CLINICIAN)

    assert pounds_inches.status == 200 and pounds_inches.data["score"] == metric.data["score"]
    assert creatinine.data["parameters_used"]["creatinine_mg_dl"] == pytest.approx(1.3, abs=1e-3)


def test_executor_impossible_values_and_values_with_units_are_a_400_never_a_number(harness: Harness) -> None:
    impossible = harness.executor.execute(call("calculate_medical_score", calculator="bmi",
                                               parameters={"weight_kg": 70, "height_cm": -1}), CLINICIAN)
    wrong_unit = harness.executor.execute(call("calculate_medical_score", calculator="bmi",
                                               parameters={"weight_kg": [70, "stone"], "height_cm": 170}),
                                          CLINICIAN)

    assert (impossible.status, impossible.data) == (400, {})
    assert wrong_unit.status == 400 and "weight_kg" in wrong_unit.content and "lb" in wrong_unit.content


def test_executor_refuses_a_role_the_tool_does_not_allow(harness: Harness) -> None:
    refused = harness.executor.execute(call("admin_tool", text="x"), CLINICIAN)
    allowed = harness.executor.execute(call("admin_tool", text="x"), Caller(user_id="a", roles=("admin",)))

    assert (refused.status, refused.error, allowed.status) == (403, "forbidden", 200)


def test_executor_never_gives_phi_to_a_tool_outside_the_boundary(harness: Harness) -> None:
    result = harness.executor.execute(call("web_lookup", text="metformin for John Smith"), CLINICIAN)

    assert (result.ok, result.status, result.error) == (False, 422, "phi_refused")
    assert "John Smith" not in result.content


def test_executor_fails_closed_when_the_detector_fails(harness: Harness) -> None:
    result = harness.executor.execute(call("web_lookup", text="crash the detector"), CLINICIAN)

    assert (result.status, result.error) == (422, "phi_refused")


def test_executor_refuses_an_outside_tool_in_a_turn_that_carries_phi(harness: Harness) -> None:
    turn = Caller(user_id="clinician-1", channel="model", turn_has_phi=True)

    assert harness.executor.execute(call("web_lookup", text="metformin dosing"), turn).status == 422
    assert harness.executor.execute(call("web_lookup", text="metformin dosing"), CLINICIAN).status == 200


def test_executor_marks_a_result_from_phi_arguments_as_carrying_phi(harness: Harness) -> None:
    inside = harness.executor.execute(call("broken_tool", text="x"), CLINICIAN)
    with_phi = harness.executor.execute(call("send_letter", text="to John Smith"), CLINICIAN)

    assert (inside.carries_phi, with_phi.carries_phi) == (False, True)


def test_executor_rate_limits_per_user_and_tool_with_retry_after(harness: Harness) -> None:
    results = [harness.executor.execute(call("web_lookup", text="aspirin"), CLINICIAN) for _ in range(3)]
    other_user = harness.executor.execute(call("web_lookup", text="aspirin"), Caller(user_id="clinician-2"))

    assert [r.status for r in results] == [200, 200, 429]
    assert (results[2].error, results[2].retry_after) == ("rate_limited", 30)
    assert other_user.status == 200
    harness.clock.advance(seconds=30)
    assert harness.executor.execute(call("web_lookup", text="aspirin"), CLINICIAN).status == 200


def test_executor_proposes_a_pending_action_and_runs_it_once_confirmed(harness: Harness) -> None:
    pending = harness.executor.execute(call("send_letter", text="see you Monday"), CLINICIAN)

    assert (pending.status, pending.pending_action is not None) == (202, True)
    assert pending.pending_action and pending.pending_action.summary == "send a letter saying 'see you Monday'"
    done = harness.executor.confirm(pending.pending_action.action_id, CLINICIAN)
    assert (done.status, done.content) == (200, "echo: see you Monday")
    with pytest.raises(Conflict):
        harness.executor.confirm(pending.pending_action.action_id, CLINICIAN)


def test_executor_cancelled_action_never_runs(harness: Harness) -> None:
    pending = harness.executor.execute(call("send_letter", text="x"), CLINICIAN)
    assert pending.pending_action

    harness.executor.cancel(pending.pending_action.action_id, CLINICIAN)

    with pytest.raises(Conflict):
        harness.executor.confirm(pending.pending_action.action_id, CLINICIAN)
    assert [r.tool_status for r in harness.audit.list(user_id="clinician-1")] == [202]


def test_executor_expired_action_is_a_410(harness: Harness) -> None:
    pending = harness.executor.execute(call("send_letter", text="x"), CLINICIAN)
    assert pending.pending_action
    harness.clock.advance(minutes=11)

    with pytest.raises(ActionExpired) as raised:
        harness.executor.confirm(pending.pending_action.action_id, CLINICIAN)
    assert raised.value.status_code == 410


def test_executor_another_users_action_is_not_found(harness: Harness) -> None:
    pending = harness.executor.execute(call("send_letter", text="x"), CLINICIAN)
    assert pending.pending_action

    with pytest.raises(NotFound):
        harness.executor.confirm(pending.pending_action.action_id, Caller(user_id="clinician-2"))


def test_executor_times_out_a_slow_tool(harness: Harness) -> None:
    result = harness.executor.execute(call("slow_tool", text="x"), CLINICIAN)

    assert (result.ok, result.status, result.error) == (False, 504, "tool_timeout")
    assert "0.05 s" in result.content


def test_executor_turn_budget_shortens_the_time_out(harness: Harness) -> None:
    result = harness.executor.execute(call("slow_tool", text="x"), Caller(user_id="clinician-1", budget_seconds=0.02))

    assert (result.status, "0.02 s" in result.content) == (504, True)


def test_executor_a_tool_that_raises_is_a_500_without_its_message(harness: Harness) -> None:
    result = harness.executor.execute(call("broken_tool", text="John Smith"), CLINICIAN)

    assert (result.status, result.error) == (500, "tool_failed")
    assert "John Smith" not in result.content


def test_executor_audits_every_call_with_redacted_arguments_and_their_hash(harness: Harness) -> None:
    harness.executor.execute(call("send_letter", text="to John Smith, MRN 4417823"), CLINICIAN)
    harness.executor.execute(call("order_pizza"), CLINICIAN)

    records = harness.audit.list(user_id="clinician-1")
    stored = json.dumps([r.model_dump(mode="json") for r in records])
    assert "John Smith" not in stored and "4417823" not in stored
    letter = next(r for r in records if r.tool == "send_letter")
    assert (letter.tool_status, letter.outcome, letter.phi_detected) == (202, AuditOutcome.CLARIFY, True)
    assert "<PERSON>" in letter.query_redacted and len(letter.query_sha256) == 64
    assert next(r for r in records if r.tool == "order_pizza").tool_status == 404


def test_executor_emits_a_call_and_a_result_event_without_arguments(harness: Harness) -> None:
    harness.executor.execute(call("calculate_medical_score", **CHADSVASC), CLINICIAN)

    assert [(e.kind, e.name, e.status) for e in harness.events] == [
        ("tool_call", "calculate_medical_score", None), ("tool_result", "calculate_medical_score", 200)]
    assert "female" not in json.dumps([e.as_dict() for e in harness.events])


def test_an_unknown_tool_named_with_free_text_is_neither_audited_nor_quoted(harness: Harness) -> None:
    """An MCP client's tools/call with a patient's name as the tool name: the audit log stored it as it came
    (query_redacted and tool), and the 404 quoted it back."""
    result = harness.executor.execute(call("Zebulon Quartermaine 1961-04-17"), CLINICIAN)

    assert result.status == 404 and "no tool of that name" in result.content
    stored = json.dumps([r.model_dump(mode="json") for r in harness.audit.list(user_id="clinician-1")])
    assert "Quartermaine" not in stored and "1961" not in stored
    assert "Quartermaine" not in result.content


def test_an_unknown_tool_named_with_free_text_is_not_in_the_result_nor_its_events(harness: Harness) -> None:
    """The whole result, not only its text: MCP's tools/call returns it as structuredContent, and its `name` was
    the free text as sent (found by an MCP client probe)."""
    result = harness.executor.execute(call("Zebulon Quartermaine 1961-04-17"), CLINICIAN)

    shown = json.dumps([result.model_dump(mode="json"), [e.as_dict() for e in harness.events]])
    assert result.status == 404 and "Quartermaine" not in shown and "1961" not in shown
    assert harness.executor.execute(call("order_pizza"), CLINICIAN).name == "order_pizza"  # a tool's shape: kept
