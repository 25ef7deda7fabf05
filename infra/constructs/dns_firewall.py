"""Route 53 Resolver DNS Firewall: the VPC resolves only AWS's names and the few outside services the app
calls; every other name gets no answer, so nothing in the VPC can reach an arbitrary host through the NAT.

The outside services are OpenAI (query_generate), NCBI E-utilities (query_retrieve, where PubMed is on),
Cognito's JWKS (stream_authorizer), the WebSocket @connections API (stream), and where configured the
workspace servers (CalDAV, WebDAV) and the web search API (api, mcp); only those functions have a
route to the NAT at all (their security group), the others reach AWS through VPC endpoints only.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from aws_cdk import Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53resolver as resolver
from constructs import Construct

from infra.config import EnvironmentConfig

OPENAI_HOST = "api.openai.com"


def allowed_domains(config: EnvironmentConfig, region: str) -> list[str]:
    domains = [
        "amazonaws.com",  # VPC endpoints' private names, S3, DynamoDB, OpenSearch, Cognito, execute-api
        "*.amazonaws.com",
        OPENAI_HOST,
    ]
    if config.pubmed.enabled:
        domains.append(str(urlsplit(config.pubmed.base_url).hostname))
    # the workspace servers (CalDAV, WebDAV) and the web search API, where configured (api and mcp run them)
    domains += [host for host in [*config.workspace.hosts, *config.web_search.hosts] if host not in domains]
    return domains


class DnsFirewall(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig, vpc: ec2.IVpc) -> None:
        super().__init__(scope, construct_id)
        region = Stack.of(self).region
        allowed = resolver.CfnFirewallDomainList(
            self, "Allowed", name=f"{config.prefix}-allowed", domains=allowed_domains(config, region)
        )
        everything = resolver.CfnFirewallDomainList(self, "Everything", name=f"{config.prefix}-all", domains=["*"])
        self.rule_group = resolver.CfnFirewallRuleGroup(
            self,
            "Rules",
            name=f"{config.prefix}-egress",
            firewall_rules=[
                resolver.CfnFirewallRuleGroup.FirewallRuleProperty(
                    firewall_domain_list_id=allowed.attr_id, priority=100, action="ALLOW",
                    # An allowed name that is a CNAME (NCBI's hosts, CDNs) resolves through names not on the
                    # list; the default (INSPECT_REDIRECTION_DOMAIN) checks each of them against the BLOCK * rule
                    # and answers NXDOMAIN. Trusting the chain keeps the allow-list to the names the app calls.
                    firewall_domain_redirection_action="TRUST_REDIRECTION_DOMAIN",
                ),
                resolver.CfnFirewallRuleGroup.FirewallRuleProperty(
                    firewall_domain_list_id=everything.attr_id, priority=200, action="BLOCK", block_response="NXDOMAIN"
                ),
            ],
        )
        resolver.CfnFirewallRuleGroupAssociation(
            self,
            "Association",
            firewall_rule_group_id=self.rule_group.attr_id,
            vpc_id=vpc.vpc_id,
            priority=101,
            name=f"{config.prefix}-egress",
            mutation_protection="DISABLED",
        )
