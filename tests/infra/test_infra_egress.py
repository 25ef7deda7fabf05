"""Egress (issue 16): only the functions that call OpenAI, NCBI, Cognito's JWKS or the @connections API (and,
where configured, the workspace tools' servers: issue 19) have a route out, and the VPC resolves only AWS's
names and those services (Route 53 Resolver DNS Firewall)."""

from __future__ import annotations

import pytest
from conftest import Synthesized, app_functions, resources

from voiceassist.constants.functions import FUNCTIONS_BY_NAME
from voiceassist.constants.functions import Access as A

EGRESS = {"query_generate", "query_retrieve", "stream", "stream_authorizer",
          "query_detect_phi", "query_classify", "query_rank"}  # these three post a streamed query's events
WORKSPACE = {"api", "mcp"}  # the workspace tools' servers and web search, where configured (all three envs)


def _groups(synthesized: Synthesized, env: str) -> dict[str, dict]:
    return resources(synthesized.main(env), "AWS::EC2::SecurityGroup")


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_only_the_functions_that_call_outside_services_can_leave_the_vpc(synthesized: Synthesized, env: str) -> None:
    assert {name for name, spec in FUNCTIONS_BY_NAME.items() if spec.internet_egress} == EGRESS
    # posting to a WebSocket connection needs the @connections API, which has no VPC endpoint
    assert all(spec.internet_egress for spec in FUNCTIONS_BY_NAME.values() if A.STREAM_TO_CLIENTS in spec.access)
    groups = _groups(synthesized, env)
    egress_group = next(k for k, g in groups.items() if g["GroupDescription"].startswith("Lambda functions: outbound"))
    internal_group = next(k for k, g in groups.items() if g["GroupDescription"].startswith("Lambda functions without"))
    by_function = {name: props["VpcConfig"]["SecurityGroupIds"]
                   for name, props in app_functions(synthesized, env).items()}
    leaving = EGRESS | WORKSPACE
    assert {name for name, ids in by_function.items() if ids == [{"Fn::GetAtt": [egress_group, "GroupId"]}]} == leaving
    assert {name for name, ids in by_function.items()
            if ids == [{"Fn::GetAtt": [internal_group, "GroupId"]}]} == set(FUNCTIONS_BY_NAME) - leaving
    internal = groups[internal_group]["SecurityGroupEgress"]
    assert not any(rule.get("CidrIp") == "0.0.0.0/0" for rule in internal)
    prefix_rules = [r for r in resources(synthesized.main(env), "AWS::EC2::SecurityGroupEgress").values()
                    if r["GroupId"] == {"Fn::GetAtt": [internal_group, "GroupId"]}]
    assert sorted(r["DestinationPrefixListId"] for r in prefix_rules) == ["pl-02cd2c6b", "pl-63a5400a"]


@pytest.mark.parametrize(("env", "ncbi"), [("dev", True), ("prod", False)])
def test_the_vpc_resolves_only_aws_and_the_allowed_services(synthesized: Synthesized, env: str, ncbi: bool) -> None:
    template = synthesized.main(env)
    lists = {k: p["Domains"] for k, p in resources(template, "AWS::Route53Resolver::FirewallDomainList").items()}
    (rules,) = resources(template, "AWS::Route53Resolver::FirewallRuleGroup").values()
    ordered = sorted(rules["FirewallRules"], key=lambda rule: rule["Priority"])
    assert [rule["Action"] for rule in ordered] == ["ALLOW", "BLOCK"]
    # a CNAME'd allowed host (NCBI) resolves: the chain after an allowed name is trusted, not re-checked
    assert ordered[0]["FirewallDomainRedirectionAction"] == "TRUST_REDIRECTION_DOMAIN"
    allowed = lists[ordered[0]["FirewallDomainListId"]["Fn::GetAtt"][0]]
    assert lists[ordered[1]["FirewallDomainListId"]["Fn::GetAtt"][0]] == ["*"]
    assert "api.openai.com" in allowed and "*.amazonaws.com" in allowed
    assert ("eutils.ncbi.nlm.nih.gov" in allowed) is ncbi
    (association,) = resources(template, "AWS::Route53Resolver::FirewallRuleGroupAssociation").values()
    assert association["VpcId"] == {"Ref": next(k for k in resources(template, "AWS::EC2::VPC"))}
