"""/v1/admin/config: an admin reads, replaces, patches and lists the versions; every change is validated (400 for a
malformed field, 422 for one the PHI boundary refuses, each naming the field), audited, and in force for the next
call without a restart; anyone else gets a 403 (as events, no sockets)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.composition import Dependencies
from voiceassist.models import AuditOutcome

CHADSVASC = {"arguments": {"calculator": "chadsvasc", "parameters": {"age": 75, "sex": "female",
                                                                   "hypertension": True, "diabetes": True}}}


def call(method: str, path: str, body: Any = None, *, groups: str = "admin") -> tuple[int, Any]:
    raw = json.dumps(body).encode() if body is not None else b""
    headers = {"content-type": "application/json"} if raw else {}
    reply = invoke("api", to_api_gateway_event(method, path, headers, raw, groups=groups))
    return reply["statusCode"], json.loads(reply["body"])


@pytest.fixture(autouse=True)
def _stack(local_deps: Dependencies) -> Dependencies:
    return local_deps


def test_admin_config_starts_from_the_deployments_settings(local_deps: Dependencies) -> None:
    status, body = call("GET", "/v1/admin/config")

    assert status == 200 and body["version"] == 0
    config = body["config"]
    assert (config["routing_mode"], config["phi_mode"], config["offer_tools"]) == ("hybrid", "strict", True)
    assert config["models"]["cloud"] == {"model": local_deps.settings.openai_model, "fallback": "in_boundary"}
    assert config["cost"] == {"monthly_limit_usd": None, "per_user_monthly_limit_usd": None, "alert_at": 0.8}


def test_admin_config_is_for_admins_only_and_refusals_are_audited(local_deps: Dependencies) -> None:
    current = call("GET", "/v1/admin/config")[1]["config"]
    refused = [call("GET", "/v1/admin/config", groups="clinician"),
               call("PUT", "/v1/admin/config", current, groups="clinician"),
               call("PATCH", "/v1/admin/config", {"routing_mode": "local-only"}, groups="clinician"),
               call("GET", "/v1/admin/config/history", groups="clinician"),
               call("GET", "/v1/admin/billing", groups="clinician")]

    assert [status for status, _ in refused] == [403] * 5
    assert local_deps.admin_config.routing_mode.value == "hybrid"
    denied = sorted(r.action for r in local_deps.audit.list(limit=20) if r.outcome is AuditOutcome.DENIED)
    assert denied == ["billing.read", "config.history", "config.read", "config.update", "config.update"]


def test_admin_config_patch_saves_an_audited_version_in_force_at_once(local_deps: Dependencies) -> None:
    status, body = call("PATCH", "/v1/admin/config", {"routing_mode": "local-only",
                                                      "tools": {"calculate_medical_score": {"rate_limit": 1}}})

    assert status == 200 and body["version"] == 1 and body["updated_by"] == "local-user"
    assert body["changed"] == ["routing_mode", "tools.calculate_medical_score"]
    assert call("GET", "/v1/admin/config")[1]["config"]["routing_mode"] == "local-only"
    # the tool's new rate limit applies to the very next calls, without a restart
    first, second = (call("POST", "/v1/tools/calculate_medical_score/invoke", CHADSVASC) for _ in range(2))
    assert first[0] == 200
    assert second[0] == 429 and "allows 1 calls a minute" in second[1]["error"]["message"]
    changes = [r for r in local_deps.audit.list(limit=20) if r.action == "config.update"]
    assert [(r.outcome, r.target) for r in changes] == [
        (AuditOutcome.ACCEPTED, "v1: routing_mode, tools.calculate_medical_score")]
    history = call("GET", "/v1/admin/config/history")[1]["versions"]
    assert [v["version"] for v in history] == [1, 0]
    assert history[1]["config"]["routing_mode"] == "hybrid"


def test_admin_config_put_replaces_the_whole_configuration() -> None:
    current = call("GET", "/v1/admin/config")[1]["config"]
    current["offer_tools"] = False
    current["cost"] = {"monthly_limit_usd": 100, "per_user_monthly_limit_usd": 5, "alert_at": 0.8}

    status, body = call("PUT", "/v1/admin/config", current)

    assert status == 200 and body["version"] == 1
    assert body["changed"] == ["cost.monthly_limit_usd", "cost.per_user_monthly_limit_usd", "offer_tools"]


def test_admin_config_a_turned_off_tool_is_refused() -> None:
    call("PATCH", "/v1/admin/config", {"tools": {"calculate_medical_score": {"enabled": False}}})

    status, body = call("POST", "/v1/tools/calculate_medical_score/invoke", CHADSVASC)

    assert status == 403 and "turned off by the administrator" in body["error"]["message"]
    listed = {tool["name"] for tool in call("GET", "/v1/tools")[1]}
    assert "calculate_medical_score" not in listed and "search_pubmed" in listed


@pytest.mark.parametrize(("patch", "field"), [
    ({"routing_mode": "sideways"}, "routing_mode"),
    ({"cost": {"per_user_monthly_limit_usd": -1}}, "cost.per_user_monthly_limit_usd"),
    ({"tools": {"calculate_medical_score": {"rate_limit": 0}}}, "tools.calculate_medical_score.rate_limit"),
    ({"tools": {"order_pizza": {"enabled": True}}}, "tools.order_pizza"),
    ({"models": {"in_boundary": {"model": "llama-3.3-70b"}}}, "models.in_boundary.model"),
    ({"models": {"cloud": {"model": "gpt-4o-whatever"}}}, "models.cloud.model"),
    ({"models": {"cloud": {"model": "claude-3-opus"}}}, "models.cloud.model"),
])
def test_admin_config_an_invalid_change_is_a_422_naming_the_field(patch: dict[str, Any], field: str,
                                                                 local_deps: Dependencies) -> None:
    status, body = call("PATCH", "/v1/admin/config", patch)

    assert status == 422 and body["error"]["code"] == "invalid_configuration"
    assert [d["field"] for d in body["error"]["details"]] == [field]
    assert local_deps.config_store.current().version == 0


def test_admin_config_put_of_a_malformed_body_is_a_400_naming_the_field() -> None:
    current = call("GET", "/v1/admin/config")[1]["config"]
    current["offer_tools"] = "sometimes"

    status, body = call("PUT", "/v1/admin/config", current)

    assert status == 400 and "offer_tools" in body["error"]["message"]


@pytest.mark.parametrize(("patch", "field"), [
    ({"models": {"in_boundary": {"fallback": "cloud"}}}, "models.in_boundary.fallback"),
    ({"phi_mode": "off"}, "phi_mode"),
    ({"phi_mode": "off", "routing_mode": "cloud-only"}, "phi_mode"),
])
def test_admin_config_can_never_route_phi_outside_the_boundary(patch: dict[str, Any], field: str,
                                                               local_deps: Dependencies) -> None:
    status, body = call("PATCH", "/v1/admin/config", patch)

    assert status == 422 and field in [d["field"] for d in body["error"]["details"]]
    assert local_deps.admin_config.models.in_boundary.fallback == "extractive"
    assert local_deps.admin_config.phi_mode.value == "strict"
    refused = [r for r in local_deps.audit.list(limit=20) if r.action == "config.update"]
    assert [r.outcome for r in refused] == [AuditOutcome.REFUSED]


def test_admin_config_only_the_deployment_turns_phi_detection_off() -> None:
    status, body = call("PATCH", "/v1/admin/config", {"phi_mode": "off", "routing_mode": "local-only"})

    assert status == 422 and body["error"]["details"] == [{"field": "phi_mode", "problem": (
        "off detects no PHI, so raw PHI would reach the audit log, the sessions and any model or source; only the "
        "deployment can turn detection off (VOICEASSIST_PHI_MODE): use strict or lenient")}]


def test_the_published_patch_schema_names_the_fields_a_patch_may_change() -> None:
    """It said any field (additionalProperties: true) while the store refuses any other with a 422: schemathesis's
    positive-data check sent {"$...": [null]} as schema-valid."""
    spec = call("GET", "/v1/openapi.json")[1]
    schema = spec["paths"]["/v1/admin/config"]["patch"]["requestBody"]["content"]["application/json"]["schema"]

    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"routing_mode", "phi_mode", "offer_tools", "models", "sources", "tools",
                                         "cost"}
    status, body = call("PATCH", "/v1/admin/config", {"routing_mod": "local-only"})
    assert status in (400, 422) and "routing_mod" in body["error"]["message"]


@pytest.mark.parametrize("number", ["1e309", "-1e309", "Infinity", "NaN"])
@pytest.mark.parametrize("field", ["monthly_limit_usd", "per_user_monthly_limit_usd", "alert_at"])
def test_admin_config_a_cost_beyond_a_float_is_refused_not_stored_as_infinity(field: str, number: str,
                                                                             local_deps: Dependencies) -> None:
    """1e309 parsed as an infinite float and was stored: every reply showing the configuration then held the bare
    token Infinity, which is not JSON (RFC 8259), and browsers' JSON.parse refused it (found by a client probe)."""
    raw = (f'{{"cost": {{"{field}": {number}}}}}').encode()
    reply = invoke("api", to_api_gateway_event("PATCH", "/v1/admin/config", {"content-type": "application/json"},
                                               raw, groups="admin"))
    assert reply["statusCode"] in (400, 422) and f"cost.{field}" in reply["body"], reply["body"]
    assert local_deps.config_store.current().version == 0


def test_admin_config_an_unknown_tool_named_with_free_text_is_refused_without_quoting_it() -> None:
    status, body = call("PATCH", "/v1/admin/config", {"tools": {"Zebulon Quartermaine 1961-04-17": {"enabled": False}}})

    assert status == 422 and "no tool" in body["error"]["message"]
    assert "Quartermaine" not in json.dumps(body) and "1961" not in json.dumps(body)


@pytest.mark.parametrize("model", ["Zebulon Quartermaine 1961-04-17", "gpt-4o Zebulon Quartermaine 1961-04-17",
                                   "gpt-4o-Quartermaine", "x" * 190])
def test_admin_config_a_free_text_cloud_model_is_refused_without_quoting_it(model: str) -> None:
    """The cloud model's name is sent to OpenAI as the model: free text there (a name, a note) was stored and sent."""
    status, body = call("PATCH", "/v1/admin/config", {"models": {"cloud": {"model": model}}})

    assert status == 422 and [d["field"] for d in body["error"]["details"]] == ["models.cloud.model"]
    text = json.dumps(body)
    assert "Quartermaine" not in text and "1961" not in text and "x" * 20 not in text
    assert "gpt-4o-mini" in body["error"]["message"]  # the choices are listed


@pytest.mark.parametrize("model", ["gpt-4.1-mini", "gpt-4o-2024-08-06", "gpt-3.5-turbo-0125", "gpt-5"])
def test_admin_config_a_known_cloud_model_or_its_dated_snapshot_is_taken(model: str,
                                                                         local_deps: Dependencies) -> None:
    status, body = call("PATCH", "/v1/admin/config", {"models": {"cloud": {"model": model}}})

    assert status == 200, body
    assert local_deps.admin_config.models.cloud.model == model


def test_admin_config_the_deployments_own_cloud_model_is_always_taken(local_deps: Dependencies) -> None:
    """Whatever the deployment configured (VOICEASSIST_OPENAI_MODEL; a stub's name in tests) stays choosable."""
    call("PATCH", "/v1/admin/config", {"models": {"cloud": {"model": "gpt-4.1-mini"}}})
    status, body = call("PATCH", "/v1/admin/config", {"models": {"cloud": {"model": local_deps.settings.openai_model}}})

    assert status == 200, body


@pytest.mark.parametrize(("patch", "field"), [
    ({"routing_mode": None}, "routing_mode"),
    ({"models": {"cloud": {"model": None}}}, "models.cloud.model"),
    ({"models": None, "offer_tools": None}, "models"),
])
def test_admin_config_a_null_in_a_patch_for_a_field_that_must_stay_says_so(patch: dict[str, Any], field: str,
                                                                           local_deps: Dependencies) -> None:
    """Found by schemathesis (every check, admin): null removes a member in a merge patch (RFC 7396), and the 422
    said only 'routing_mode: Field required' to an admin who had sent routing_mode."""
    status, body = call("PATCH", "/v1/admin/config", patch)

    assert status == 422 and body["error"]["code"] == "invalid_configuration"
    problems = {d["field"]: d["problem"] for d in body["error"]["details"]}
    assert "null removes it" in problems[field] and "send a value" in problems[field], problems
    assert "Field required" not in body["error"]["message"]
    assert local_deps.config_store.current().version == 0


def test_admin_config_a_null_in_a_patch_for_an_optional_field_removes_it() -> None:
    assert call("PATCH", "/v1/admin/config", {"cost": {"monthly_limit_usd": 100}})[0] == 200
    status, body = call("PATCH", "/v1/admin/config", {"cost": {"monthly_limit_usd": None}})
    assert status == 200 and body["config"]["cost"]["monthly_limit_usd"] is None
