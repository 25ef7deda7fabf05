"""The workspace tools on AWS (issue 19): the API and MCP functions carry the workspace layer (caldav, lxml),
their settings and the only reads of the per-user account secrets and the web search key; the DNS firewall
resolves the configured servers; nothing of it exists where an environment does not configure it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, Synthesized, app_functions, resources
from pydantic import ValidationError

from infra.config import ENVIRONMENT_NAMES, load_environment
from voiceassist.adapters.aws.secrets_manager import api_key_in
from voiceassist.constants.functions import FUNCTIONS_BY_NAME
from voiceassist.settings import (
    ENV_WEB_SEARCH_BASE_URL,
    ENV_WEB_SEARCH_SECRET_ARN,
    ENV_WORKSPACE_SECRET_PREFIX,
    settings_from_env,
)

CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
RUNNERS = {"api", "mcp"}  # the functions that run the workspace tools (runs_workspace_tools)
WORKSPACE_VARIABLES = {ENV_WORKSPACE_SECRET_PREFIX, ENV_WEB_SEARCH_BASE_URL, ENV_WEB_SEARCH_SECRET_ARN}


def _statements(template: dict[str, Any]) -> list[tuple[set[str], dict[str, Any]]]:
    """(the roles, the statement) for every statement of every policy."""
    found = []
    for policy in resources(template, "AWS::IAM::Policy").values():
        roles = {role["Ref"] for role in policy["Roles"]}
        found += [(roles, statement) for statement in policy["PolicyDocument"]["Statement"]]
    return found


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _roles_allowed(template: dict[str, Any], action: str, resource: Any) -> set[str]:
    return {role for roles, statement in _statements(template)
            if action in _listed(statement["Action"]) and resource in _listed(statement["Resource"])
            for role in roles}


def _role(function: dict[str, Any]) -> str:
    return str(function["Role"]["Fn::GetAtt"][0])


def _web_search_secrets(template: dict[str, Any]) -> list[str]:
    secrets = resources(template, "AWS::SecretsManager::Secret")
    return [logical_id for logical_id, props in secrets.items() if "Web search" in props.get("Description", "")]


def _web_search_context() -> dict[str, Any]:
    """dev with web search on (no environment enables it: it needs Comprehend Medical as the detector)."""
    context = json.loads(json.dumps(CONTEXT))
    dev = context["voiceassist"]["environments"]["dev"]
    dev["phi_detector"] = "comprehend_medical"
    dev["web_search"] = {"enabled": True}
    return context


@pytest.fixture(scope="module")
def web_search_dev(tmp_path_factory: pytest.TempPathFactory, fixture_functions_dir: Path) -> Synthesized:
    from infra.app import build_app

    outdir = tmp_path_factory.mktemp("cdk.out-web-search")
    unbuilt = str(tmp_path_factory.mktemp("unbuilt-layer"))
    app = build_app(context={**_web_search_context(), "env": "dev", "functions_dir": str(fixture_functions_dir),
                             "allow_unbuilt_layers": "true", "deps_layer_dir": unbuilt, "ml_layer_dir": unbuilt,
                             "auth_layer_dir": unbuilt}, outdir=str(outdir))
    app.synth()
    return Synthesized(outdir=outdir, templates={"VoiceAssist-dev": json.loads(
        (outdir / "VoiceAssist-dev.template.json").read_text())})


def test_the_catalogue_runs_the_workspace_tools_in_the_api_and_mcp_only() -> None:
    assert {name for name, spec in FUNCTIONS_BY_NAME.items() if spec.runs_workspace_tools} == RUNNERS
    assert not FUNCTIONS_BY_NAME["query_tools"].runs_workspace_tools  # the ML layer leaves no room (docs/tools.md)


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_only_the_api_and_mcp_carry_the_workspace_layer_and_settings(synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    config = load_environment(CONTEXT, env)
    (layer_id,) = [k for k, p in resources(template, "AWS::Lambda::LayerVersion").items()
                   if p["Description"].startswith("caldav and lxml")]
    functions = app_functions(synthesized, env)
    assert {name for name, f in functions.items() if {"Ref": layer_id} in f.get("Layers", [])} == RUNNERS
    variables = {name: WORKSPACE_VARIABLES & set(f["Environment"]["Variables"]) for name, f in functions.items()}
    expected = ({ENV_WORKSPACE_SECRET_PREFIX} if config.workspace.enabled else set()) | (
        {ENV_WEB_SEARCH_BASE_URL, ENV_WEB_SEARCH_SECRET_ARN} if config.web_search.enabled else set())
    assert {name: found for name, found in variables.items() if found} == {name: expected for name in RUNNERS}
    api = functions["api"]["Environment"]["Variables"]
    assert api[ENV_WORKSPACE_SECRET_PREFIX] == f"voiceassist-{env}/workspace/"


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_account_secrets_are_readable_by_prefix_from_the_api_and_mcp_only(synthesized: Synthesized,
                                                                              env: str) -> None:
    template = synthesized.main(env)
    functions = app_functions(synthesized, env)
    config = load_environment(CONTEXT, env)
    prefix_arn = (f"arn:aws:secretsmanager:{config.region}:{config.account}:secret:"
                  f"{config.workspace.account_secret_prefix}*")
    readers = _roles_allowed(template, "secretsmanager:GetSecretValue", prefix_arn)
    assert readers == {_role(functions[name]) for name in RUNNERS}
    # no wildcard secret read anywhere else, and the environment key only through Secrets Manager
    wide = [s for _, s in _statements(template) if "secretsmanager:GetSecretValue" in _listed(s["Action"])
            and any(r == "*" for r in _listed(s["Resource"]))]
    assert wide == []
    decrypts = [(roles, s) for roles, s in _statements(template) if s["Action"] == "kms:Decrypt"
                and s.get("Condition", {}).get("StringEquals", {}).get("kms:ViaService")]
    assert {role for roles, _ in decrypts for role in roles} == readers
    assert all(s["Condition"]["StringEquals"]["kms:ViaService"] == f"secretsmanager.{config.region}.amazonaws.com"
               for _, s in decrypts)


def test_the_web_search_key_is_a_secret_only_the_api_and_mcp_read(web_search_dev: Synthesized) -> None:
    template = web_search_dev.main("dev")
    functions = app_functions(web_search_dev, "dev")
    (secret_id,) = _web_search_secrets(template)
    assert _roles_allowed(template, "secretsmanager:GetSecretValue", {"Ref": secret_id}) == {
        _role(functions[name]) for name in RUNNERS}
    for name in RUNNERS:
        variables = functions[name]["Environment"]["Variables"]
        assert variables[ENV_WEB_SEARCH_SECRET_ARN] == {"Ref": secret_id}
        assert variables[ENV_WEB_SEARCH_BASE_URL] == "https://api.search.brave.com"
    others = {name for name, f in functions.items() if name not in RUNNERS
              and WORKSPACE_VARIABLES & set(f["Environment"]["Variables"])}
    assert others == set()
    secret = template["Resources"][secret_id]["Properties"]
    assert secret["KmsKeyId"] and api_key_in(secret["GenerateSecretString"]["SecretStringTemplate"]) is None
    assert template["Outputs"]["WebSearchApiKeySecretArn"]["Value"] == {"Ref": secret_id}
    assert "api.search.brave.com" in _allowed_domains(template)
    settings = _settings(functions["api"])
    assert settings.web_search_base_url == "https://api.search.brave.com" and settings.web_search_secret_arn
    assert settings.web_search_api_key is None  # the key is read from the secret, never an environment variable


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_no_environment_has_a_web_search_secret_grant_or_host(synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    assert _web_search_secrets(template) == [] and "WebSearchApiKeySecretArn" not in template["Outputs"]
    assert "api.search.brave.com" not in _allowed_domains(template)


def test_web_search_needs_comprehend_medical_as_the_detector() -> None:
    context = _web_search_context()
    context["voiceassist"]["environments"]["dev"]["phi_detector"] = "both"
    with pytest.raises(ValidationError, match="comprehend_medical"):
        load_environment(context, "dev")


def _allowed_domains(template: dict[str, Any]) -> list[str]:
    lists = {k: p["Domains"] for k, p in resources(template, "AWS::Route53Resolver::FirewallDomainList").items()}
    (rules,) = resources(template, "AWS::Route53Resolver::FirewallRuleGroup").values()
    allow = next(rule for rule in rules["FirewallRules"] if rule["Action"] == "ALLOW")
    return lists[allow["FirewallDomainListId"]["Fn::GetAtt"][0]]


@pytest.mark.parametrize(("env", "hosts"), [
    ("dev", ["cloud.dev.voiceassist.example.org"]),
    ("prod", ["cloud.voiceassist.example.org"]),
])
def test_the_dns_firewall_resolves_the_configured_servers(synthesized: Synthesized, env: str,
                                                          hosts: list[str]) -> None:
    allowed = _allowed_domains(synthesized.main(env))
    assert all(host in allowed for host in hosts), allowed
    assert len(allowed) == len(set(allowed))


def _settings(function: dict[str, Any]) -> Any:
    """The function's Settings as it would parse them on AWS (tokens stand in as placeholder text)."""
    return settings_from_env({name: value if isinstance(value, str) else f"resolved-{name.lower()}"
                              for name, value in function["Environment"]["Variables"].items()})


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_deployed_api_reads_the_accounts_from_their_secrets(synthesized: Synthesized, env: str) -> None:
    settings = _settings(app_functions(synthesized, env)["api"])
    assert settings.workspace_secret_prefix == f"voiceassist-{env}/workspace/"
    assert settings.workspace_accounts_file is None and settings.web_search_base_url is None


@pytest.mark.parametrize(("workspace", "message"), [
    ({"enabled": True, "calendar_url": "https://cloud.example.org/dav/"}, "account_secret_prefix"),
    ({"enabled": True, "account_secret_prefix": "voiceassist-prod/workspace/"}, "calendar_url or files_url"),
    ({"enabled": True, "calendar_url": "http://cloud.example.org/",
      "account_secret_prefix": "voiceassist-prod/workspace/"}, "calendar_url"),
    ({"enabled": True, "files_url": "https://cloud.example.org/", "account_secret_prefix": "no-slash"}, "prefix"),
    ({"enabled": True, "files_url": "https://cloud.example.org/", "account_secret_prefix": "voiceassist-dev/"},
     "must start with voiceassist-prod/workspace/"),
])
def test_an_incomplete_workspace_block_fails_synth(workspace: dict[str, Any], message: str) -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["prod"]["workspace"] = workspace
    with pytest.raises(ValidationError, match=message):
        load_environment(context, "prod")


def test_web_search_cannot_be_enabled_in_a_local_only_environment() -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["dev"]["routing_mode"] = "local-only"
    context["voiceassist"]["environments"]["dev"]["pubmed"] = {"enabled": False}
    context["voiceassist"]["environments"]["dev"]["web_search"] = {"enabled": True}
    context["voiceassist"]["environments"]["dev"]["phi_detector"] = "comprehend_medical"
    with pytest.raises(ValidationError, match="web_search.enabled needs a routing_mode"):
        load_environment(context, "dev")
