"""Comprehend Medical as the PHI detector (docs/phi.md, "Detectors"): where an environment's phi_detector is
comprehend_medical or both, the functions that run the detector get VOICEASSIST_PHI_DETECTOR, the
comprehendmedical:DetectPHI grant (the only action allowed on '*' for it, acknowledged in cdk-nag) and an
interface endpoint in the VPC; where it is presidio, none of this exists."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REPO_ROOT, Synthesized, app_functions, resources

from infra.config import ENVIRONMENT_NAMES, load_environment
from infra.nag import WILDCARD_ALLOWANCES
from voiceassist.constants.environment import ENV_PHI_DETECTOR, PhiDetectorKind
from voiceassist.constants.functions import FUNCTIONS, Access
from voiceassist.settings import settings_from_env

CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
KINDS = {name: load_environment(CONTEXT, name).phi_detector for name in ENVIRONMENT_NAMES}
COMPREHEND = tuple(name for name, kind in KINDS.items() if kind is not PhiDetectorKind.PRESIDIO)
PRESIDIO_ONLY = tuple(name for name in ENVIRONMENT_NAMES if name not in COMPREHEND)
DETECTING = {spec.name for spec in FUNCTIONS if Access.PHI_COMPREHEND_MEDICAL in spec.access}
ACTION = "comprehendmedical:DetectPHI"


def _roles_with(template: dict[str, Any], action: str) -> dict[str, list[Any]]:
    """Role logical id -> the resources of the statements that allow the action."""
    roles: dict[str, list[Any]] = {}
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if action in actions:
                for role in policy["Roles"]:
                    roles.setdefault(role["Ref"], []).append(statement["Resource"])
    return roles


def test_the_functions_that_run_the_detector_are_catalogued_for_it() -> None:
    assert {"query_detect_phi", "query_generate", "query_assemble", "stream", "ingest_screen"} <= DETECTING
    # the detector's functions ship Presidio (the container image); api and mcp call Comprehend Medical alone,
    # for web_search's arguments where it is the detector (composition/aws.py tool_registry)
    assert {s.name for s in FUNCTIONS if s.name in DETECTING and not s.container_image} == {"api", "mcp"}


def test_one_environment_at_least_runs_comprehend_medical_and_one_does_not() -> None:
    assert COMPREHEND and PRESIDIO_ONLY
    assert KINDS["staging"] is PhiDetectorKind.BOTH and KINDS["prod"] is PhiDetectorKind.PRESIDIO


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_every_function_gets_the_environment_detector_setting(synthesized: Synthesized, env: str) -> None:
    for name, function in app_functions(synthesized, env).items():
        variables = function["Environment"]["Variables"]
        assert variables[ENV_PHI_DETECTOR] == KINDS[env].value, name
        parsed = settings_from_env({k: v if isinstance(v, str) else "resolved" for k, v in variables.items()})
        assert parsed.phi_detector is KINDS[env]


@pytest.mark.parametrize("env", COMPREHEND)
def test_only_the_detecting_functions_may_call_detect_phi_on_star(synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    functions = app_functions(synthesized, env)
    granted = _roles_with(template, ACTION)
    detecting_roles = {functions[name]["Role"]["Fn::GetAtt"][0] for name in DETECTING}
    assert set(granted) == detecting_roles
    assert all(resource == "*" for statements in granted.values() for resource in statements)


@pytest.mark.parametrize("env", PRESIDIO_ONLY)
def test_no_role_may_call_comprehend_medical_where_presidio_runs(synthesized: Synthesized, env: str) -> None:
    assert _roles_with(synthesized.main(env), ACTION) == {}


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_a_comprehendmedical_interface_endpoint_exists_only_where_it_runs(synthesized: Synthesized, env: str
                                                                          ) -> None:
    template = synthesized.main(env)
    endpoints = [props for props in resources(template, "AWS::EC2::VPCEndpoint").values()
                 if "comprehendmedical" in json.dumps(props["ServiceName"])]
    if env in PRESIDIO_ONLY:
        assert endpoints == []
        return
    assert len(endpoints) == 1
    (endpoint,) = endpoints
    assert endpoint["VpcEndpointType"] == "Interface" and endpoint["PrivateDnsEnabled"] is True


def test_the_nag_allowance_names_detect_phi_among_the_star_actions() -> None:
    star = next(a for a in WILDCARD_ALLOWANCES if a.finding.pattern == r"Resource::\*")
    assert star.only_actions is not None and ACTION in star.only_actions
    assert "Comprehend Medical" in star.reason
