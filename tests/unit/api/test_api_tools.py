"""GET /v1/tools, POST /v1/tools/{name}/invoke and the pending actions' confirm and cancel, as events."""

from __future__ import annotations

import json
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from tests.unit.tools.executor_fixtures import TEST_TOOLS
from voiceassist.composition import Dependencies


def call(method: str, path: str, body: Any = None, groups: str | None = None) -> tuple[int, Any, dict[str, str]]:
    raw = json.dumps(body).encode() if body is not None else b""
    event = to_api_gateway_event(method, path, {"content-type": "application/json"} if raw else {}, raw)
    if groups:
        event["requestContext"]["authorizer"]["claims"]["cognito:groups"] = groups
    reply = invoke("api", event)
    headers = {**(reply.get("headers") or {}),
               **{name: values[-1] for name, values in (reply.get("multiValueHeaders") or {}).items()}}
    return reply["statusCode"], json.loads(reply["body"]), headers


@pytest.fixture(autouse=True)
def stack(local_deps: Dependencies) -> Dependencies:
    for tool in TEST_TOOLS:
        local_deps.tool_registry.register(tool)
    return local_deps


def test_tools_are_listed_with_their_json_schemas() -> None:
    status, body, _ = call("GET", "/v1/tools")

    names = [tool["name"] for tool in body]
    assert status == 200 and "calculate_medical_score" in names and "search_pubmed" in names
    calculator = next(tool for tool in body if tool["name"] == "calculate_medical_score")
    assert "chadsvasc" in calculator["parameters"]["properties"]["calculator"]["enum"]


def test_invoking_a_calculator_returns_the_score_and_its_source(stack: Dependencies) -> None:
    status, body, _ = call("POST", "/v1/tools/calculate_medical_score/invoke", {"arguments": {
        "calculator": "chadsvasc", "parameters": {"age": 75, "sex": "female", "hypertension": True,
                                                  "diabetes": True}}})

    assert (status, body["data"]["score"]) == (200, 5)
    assert body["sources"][0]["chunk"]["doc_key"] == "calculator/chadsvasc"
    assert stack.audit.list(user_id="local-user")[0].tool == "calculate_medical_score"


def test_invoking_an_unknown_tool_is_a_404_and_bad_arguments_a_400_naming_them() -> None:
    unknown, body, _ = call("POST", "/v1/tools/order_pizza/invoke", {"arguments": {}})
    invalid, problem, _ = call("POST", "/v1/tools/calculate_medical_score/invoke",
                               {"arguments": {"calculator": "bmi", "parameters": {"weight_kg": 70}}})

    assert (unknown, body["error"]["code"]) == (404, "not_found")
    assert invalid == 400 and "height_cm" in problem["error"]["message"]


def test_a_rate_limited_call_is_a_429_with_retry_after() -> None:
    statuses = [call("POST", "/v1/tools/web_lookup/invoke", {"arguments": {"text": "aspirin"}}) for _ in range(3)]

    status, body, headers = statuses[-1]
    assert [s for s, _, _ in statuses] == [200, 200, 429]
    assert body["error"]["details"]["retry_after"] >= 1 and headers["Retry-After"] == str(
        body["error"]["details"]["retry_after"])


def test_roles_come_from_the_cognito_groups() -> None:
    assert call("POST", "/v1/tools/admin_tool/invoke", {"arguments": {"text": "x"}}, groups="clinician")[0] == 403
    assert call("POST", "/v1/tools/admin_tool/invoke", {"arguments": {"text": "x"}}, groups="[nurses]")[0] == 403
    assert call("POST", "/v1/tools/admin_tool/invoke", {"arguments": {"text": "x"}}, groups="[admin]")[0] == 200


def test_a_tool_needing_confirmation_is_pending_until_confirmed() -> None:
    status, body, _ = call("POST", "/v1/tools/send_letter/invoke", {"arguments": {"text": "see you Monday"}})
    action_id = body["pending_action"]["action_id"]

    confirmed, result, _ = call("POST", f"/v1/actions/{action_id}/confirm")
    again, error, _ = call("POST", f"/v1/actions/{action_id}/confirm")

    assert (status, confirmed, result["content"]) == (202, 200, "echo: see you Monday")
    assert (again, error["error"]["code"]) == (409, "conflict")


def test_a_cancelled_action_cannot_be_confirmed_and_an_unknown_one_is_a_404() -> None:
    _, body, _ = call("POST", "/v1/tools/send_letter/invoke", {"arguments": {"text": "x"}})
    action_id = body["pending_action"]["action_id"]

    assert call("POST", f"/v1/actions/{action_id}/cancel")[:2] == (200, {"cancelled": action_id})
    assert call("POST", f"/v1/actions/{action_id}/confirm")[0] == 409
    assert call("POST", "/v1/actions/act_unknown/confirm")[0] == 404


def test_an_expired_action_is_a_410(stack: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import timedelta

    from voiceassist.tools import actions

    _, body, _ = call("POST", "/v1/tools/send_letter/invoke", {"arguments": {"text": "x"}})
    later = actions.utc_now() + timedelta(minutes=11)
    monkeypatch.setattr(stack.tool_executor.actions, "_clock", lambda: later)

    status, error, _ = call("POST", f"/v1/actions/{body['pending_action']['action_id']}/confirm")

    assert (status, error["error"]["code"]) == (410, "action_expired")


def test_an_impossible_patient_is_a_400_naming_the_field_value_and_range() -> None:
    status, body, _ = call("POST", "/v1/tools/calculate_medical_score/invoke", {"arguments": {
        "calculator": "creatinine_clearance",
        "parameters": {"sex": "male", "age": 130, "weight_kg": 700, "creatinine_mg_dl": 0.0000001}}})

    message = body["error"]["message"]
    assert (status, body["error"]["code"]) == (400, "implausible_input")
    assert "age: 130 years is outside the plausible range 0-120 years" in message
    assert "weight_kg: 700 kg" in message and "creatinine_mg_dl: 1e-07 mg/dL" in message


def test_the_tool_list_publishes_each_calculators_fields_and_ranges() -> None:
    _, body, _ = call("GET", "/v1/tools")

    schema = next(tool for tool in body if tool["name"] == "calculate_medical_score")["parameters"]
    age = schema["$defs"]["curb65"]["properties"]["age"]["anyOf"][0]
    assert (age["minimum"], age["maximum"]) == (0, 120) and "bun_mg_dl" in schema["$defs"]["curb65"]["properties"]


def test_the_openapi_document_publishes_the_calculators_arguments() -> None:
    _, spec, _ = call("GET", "/v1/openapi.json")

    arguments = spec["components"]["schemas"]["CalculateMedicalScoreArguments"]
    ckd_epi = arguments["$defs"]["ckd_epi"]
    assert set(ckd_epi["required"]) == {"sex", "age", "creatinine_mg_dl"}
    assert ckd_epi["properties"]["age"]["anyOf"][0]["maximum"] == 120
    assert {"$ref": "#/components/schemas/CalculateMedicalScoreArguments/$defs/ckd_epi"} in \
        arguments["properties"]["parameters"]["anyOf"]
    assert "CalculateMedicalScoreArguments" in spec["paths"]["/v1/tools/{name}/invoke"]["post"]["description"]


def test_a_urea_sent_with_its_unit_marked_is_scored_as_its_nitrogen() -> None:
    """POST /v1/tools/calculate_medical_score/invoke: [40, "mg/dL (urea)"] is BUN 18.7 mg/dL."""
    status, body, _ = call("POST", "/v1/tools/calculate_medical_score/invoke", {"arguments": {
        "calculator": "curb65", "parameters": {"age": 70, "confusion": True, "bun_mg_dl": [40, "mg/dL (urea)"]}}})

    assert (status, body["data"]["score"]) == (200, 2)
    assert body["data"]["parameters_used"]["bun_mg_dl"] == pytest.approx(18.66134)
