"""PubMed per environment: only query_retrieve reads the NCBI key, only the planner and the searcher see
PubMed's settings, nothing of it exists where it is disabled, and query_retrieve can reach NCBI over HTTPS."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REPO_ROOT, Synthesized, allowed_targets, app_functions, resources
from pydantic import ValidationError

from infra.config import ENVIRONMENT_NAMES, NCBI_EUTILS_URL, load_environment
from voiceassist.adapters.aws.secrets_manager import api_key_in as ncbi_api_key
from voiceassist.composition import Dependencies
from voiceassist.settings import (
    ENV_PUBMED_BASE_URL,
    ENV_PUBMED_BUDGET_SECONDS,
    ENV_PUBMED_EMAIL,
    ENV_PUBMED_SECRET_ARN,
    settings_from_env,
)

CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
ENABLED = tuple(name for name in ENVIRONMENT_NAMES if load_environment(CONTEXT, name).pubmed.enabled)
DISABLED = tuple(name for name in ENVIRONMENT_NAMES if name not in ENABLED)
SEARCHER, PLANNER = "query_retrieve", "query_classify"


def _pubmed_variables(function: dict[str, Any]) -> dict[str, Any]:
    variables = function["Environment"]["Variables"]
    return {name: value for name, value in variables.items() if name.startswith("VOICEASSIST_PUBMED_")}


def _ncbi_secrets(template: dict[str, Any]) -> list[str]:
    secrets = resources(template, "AWS::SecretsManager::Secret")
    return [logical_id for logical_id, props in secrets.items() if "NCBI" in props.get("Description", "")]


def _roles_reading(template: dict[str, Any], secret_id: str) -> set[str]:
    """Roles whose policies allow GetSecretValue on the secret."""
    roles: set[str] = set()
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            targets = allowed_targets(statement)
            if "secretsmanager:GetSecretValue" in actions and {"Ref": secret_id} in targets:
                roles |= {role["Ref"] for role in policy["Roles"]}
    return roles


def _aws_settings(function: dict[str, Any]) -> Any:
    """The function's Settings as it would parse them on AWS (tokens stand in as placeholder text)."""
    variables = {
        name: value if isinstance(value, str) else f"resolved-{name.lower()}"
        for name, value in function["Environment"]["Variables"].items()
    }
    return settings_from_env(variables)


def test_pubmed_is_on_in_dev_and_staging_and_opt_in_for_prod() -> None:
    assert (ENABLED, DISABLED) == (("dev", "staging"), ("prod",))
    assert load_environment(CONTEXT, "dev").pubmed.base_url == NCBI_EUTILS_URL


@pytest.mark.parametrize(
    ("pubmed", "message"),
    [
        ({"enabled": True}, "email"),
        ({"enabled": True, "email": "ops@example.org", "base_url": "http://eutils.example.org"}, "base_url"),
        ({"enabled": True, "email": "ops@example.org", "budget_seconds": 30}, "budget_seconds"),
    ],
)
def test_an_incomplete_pubmed_block_fails_synth(pubmed: dict[str, Any], message: str) -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["prod"]["pubmed"] = pubmed
    with pytest.raises(ValidationError, match=message):
        load_environment(context, "prod")


def test_pubmed_cannot_be_enabled_in_a_local_only_environment() -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["dev"]["routing_mode"] = "local-only"
    with pytest.raises(ValidationError, match="local-only"):
        load_environment(context, "dev")


@pytest.mark.parametrize("env", ENABLED)
def test_only_the_searcher_reads_the_ncbi_key_and_only_it_and_the_planner_see_pubmed(
    synthesized: Synthesized, env: str
) -> None:
    template = synthesized.main(env)
    (secret_id,) = _ncbi_secrets(template)
    functions = app_functions(synthesized, env)

    searcher = _pubmed_variables(functions[SEARCHER])
    assert searcher[ENV_PUBMED_SECRET_ARN] == {"Ref": secret_id}
    assert searcher[ENV_PUBMED_BASE_URL] == NCBI_EUTILS_URL and searcher[ENV_PUBMED_EMAIL]
    # The planner learns that PubMed exists (and its budget), never the key or the contact address.
    assert set(_pubmed_variables(functions[PLANNER])) == {ENV_PUBMED_BASE_URL, ENV_PUBMED_BUDGET_SECONDS}
    others = {name: _pubmed_variables(f) for name, f in functions.items() if name not in (SEARCHER, PLANNER)}
    assert all(not variables for variables in others.values()), others

    searcher_role = functions[SEARCHER]["Role"]["Fn::GetAtt"][0]
    assert _roles_reading(template, secret_id) == {searcher_role}


@pytest.mark.parametrize("env", ENABLED)
def test_the_deployed_pipeline_plans_pubmed_and_reads_the_key_from_the_secret(
    synthesized: Synthesized, env: str
) -> None:
    functions = app_functions(synthesized, env)
    planner, searcher = _aws_settings(functions[PLANNER]), _aws_settings(functions[SEARCHER])

    assert Dependencies(planner).external_sources != {}  # plan_sources offers PubMed
    assert searcher.pubmed_secret_arn and searcher.pubmed_api_key is None
    assert searcher.pubmed_budget_seconds == planner.pubmed_budget_seconds


@pytest.mark.parametrize("env", ENABLED)
def test_the_ncbi_key_is_encrypted_with_the_environment_key_and_output_for_operators(
    synthesized: Synthesized, env: str
) -> None:
    template = synthesized.main(env)
    (secret_id,) = _ncbi_secrets(template)
    secret = template["Resources"][secret_id]["Properties"]
    assert secret["KmsKeyId"] and "SecretString" not in secret
    assert template["Outputs"]["NcbiApiKeySecretArn"]["Value"] == {"Ref": secret_id}
    # Deployed as an empty key, which the searcher reads as "no key" (keyless PubMed) until an operator puts one.
    assert ncbi_api_key(secret["GenerateSecretString"]["SecretStringTemplate"]) is None


@pytest.mark.parametrize("env", DISABLED)
def test_a_disabled_environment_has_no_pubmed_key_grant_or_settings(synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    functions = app_functions(synthesized, env)

    assert _ncbi_secrets(template) == [] and "NcbiApiKeySecretArn" not in template["Outputs"]
    assert all(not _pubmed_variables(f) for f in functions.values())
    assert Dependencies(_aws_settings(functions[PLANNER])).external_sources == {}  # plan_sources skips PubMed


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_searcher_reaches_the_internet_through_a_nat_gateway_on_https_only(
    synthesized: Synthesized, env: str
) -> None:
    template = synthesized.main(env)
    vpc_config = app_functions(synthesized, env)[SEARCHER]["VpcConfig"]
    subnets = {subnet["Ref"] for subnet in vpc_config["SubnetIds"]}
    route_tables = {
        a["RouteTableId"]["Ref"]
        for a in resources(template, "AWS::EC2::SubnetRouteTableAssociation").values()
        if a["SubnetId"]["Ref"] in subnets
    }
    nat_routes = {
        r["RouteTableId"]["Ref"]
        for r in resources(template, "AWS::EC2::Route").values()
        if r.get("DestinationCidrBlock") == "0.0.0.0/0" and "NatGatewayId" in r
    }
    assert route_tables and route_tables <= nat_routes

    (group_ref,) = vpc_config["SecurityGroupIds"]
    group = template["Resources"][group_ref["Fn::GetAtt"][0]]["Properties"]
    assert [(rule["CidrIp"], rule["IpProtocol"], rule["FromPort"], rule["ToPort"]) for rule in
            group["SecurityGroupEgress"]] == [("0.0.0.0/0", "tcp", 443, 443)]
