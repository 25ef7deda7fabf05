"""Network reachability as AWS enforces it (issue 26): for every function, every AWS service its code calls is
reachable from its subnets and security group in the synthesized template: an interface endpoint (private DNS,
its group admitting the function's on 443, the function's allowing 443 to the VPC), a gateway endpoint on the
function subnets' route tables (egress to the service's prefix list), OpenSearch's group admitting it, or a NAT
route its group allows. A service that carries PHI must be reached over an endpoint, never the NAT.

Which services a function calls comes from its catalogue grants (voiceassist.constants.functions), which the
packaging run (tests/artefacts/test_function_artefacts.py, grants.py) proves equal to the calls its code makes."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable
from typing import Any

import pytest
from conftest import REPO_ROOT, Synthesized, app_functions, resources

from infra.config import EnvironmentConfig, load_environment
from voiceassist.constants.environment import PhiDetectorKind
from voiceassist.constants.functions import FUNCTIONS_BY_NAME, Access, FunctionSpec

A = Access
TABLES = {A.DOCUMENTS_READ, A.DOCUMENTS_WRITE, A.JOBS_READ, A.JOBS_WRITE, A.AUDIT_READ, A.AUDIT_WRITE,
          A.STATE_WRITE, A.IDEMPOTENCY, A.BILLING_READ, A.BILLING_WRITE}
SECRETS = {A.OPENAI_SECRET, A.PUBMED_SECRET, A.WORKSPACE_ACCOUNTS, A.WEB_SEARCH_SECRET}


def _sessions(spec: FunctionSpec, config: EnvironmentConfig) -> set[str]:
    # the clinical context's data keys come from KMS, except for the readers of messages only
    return {"dynamodb"} | (set() if spec.reads_session_messages_only else {"kms"})


Services = Callable[[FunctionSpec, EnvironmentConfig], set[str]]
# Access -> the endpoint service names (com.amazonaws.<region>.<name>) its calls go to (the botocore clients in
# tests/artefacts/grants.py accesses_used), where the environment makes the call at all.
SERVICES: dict[Access, Services] = {
    **{access: (lambda s, c: {"dynamodb"}) for access in TABLES},
    **{access: (lambda s, c: {"secretsmanager"}) for access in SECRETS},
    A.SESSIONS_READ: _sessions,
    A.SESSIONS_WRITE: _sessions,
    A.BUCKET_READ: lambda s, c: {"s3"},
    A.BUCKET_WRITE: lambda s, c: {"s3"},
    A.SEARCH_READ: lambda s, c: {"opensearch"},
    A.SEARCH_WRITE: lambda s, c: {"opensearch"},
    A.LLM_INVOKE: lambda s, c: {"sagemaker.runtime"} if c.llm.on_sagemaker else set(),
    A.EMBEDDING_INVOKE: lambda s, c: {"sagemaker.runtime"} if c.embedding.enabled else set(),
    A.BEDROCK_INVOKE: lambda s, c: {"bedrock-runtime"} if c.llm.on_bedrock else set(),
    A.START_INGEST: lambda s, c: {"states"},
    A.DESCRIBE_INGEST: lambda s, c: {"states"},
    A.START_QUERY: lambda s, c: {"sync-states"},  # StartSyncExecution has its own host (sync-states)
    A.STREAM_TO_CLIENTS: lambda s, c: {"execute-api"},
    A.OCR_TEXTRACT: lambda s, c: {"textract"},
    A.PHI_COMPREHEND_MEDICAL: lambda s, c: set() if c.phi_detector is PhiDetectorKind.PRESIDIO
    else {"comprehendmedical"},
    A.INVOKE_TOOL_RUNNER: lambda s, c: {"lambda"},
    A.INVOKE_PHI_DETECTOR: lambda s, c: {"lambda"},
    A.METRICS_READ: lambda s, c: {"monitoring"},
    A.COST_ALERTS: lambda s, c: {"sns"},
    # Transcribe Medical jobs and Polly; the recording and transcript through the voice bucket (S3's gateway)
    A.VOICE: lambda s, c: {"transcribe", "polly", "s3"},
    # the WebSocket's voice messages: Transcribe Medical jobs; the chunks, recording and transcript in the voice bucket
    A.TRANSCRIBE: lambda s, c: {"transcribe", "s3"},
}
# The one AWS API reached through the NAT: the WebSocket @connections API of a public (regional) API. An
# execute-api interface endpoint with private DNS would capture every *.execute-api name and serves private
# APIs only, so the streamed events leave over TLS through the NAT (the DNS firewall allows *.amazonaws.com).
# CloudWatch's monitoring API (the admin telemetry view reads metric aggregates: names, closed-set dimensions and
# numbers, never PHI) goes through the NAT too: an interface endpoint would cost more than the view is used.
# The cost alerts (voiceassist.admin.billing) carry a principal id and dollars, never PHI: SNS is reached the same
# way, from query_generate, which has the NAT route for OpenAI already (no interface endpoint bought for them).
NAT_ALLOWED = {"execute-api", "monitoring", "sns"}
GATEWAYS = {"s3", "dynamodb"}


def services_called(spec: FunctionSpec, config: EnvironmentConfig) -> set[str]:
    return set().union(*(SERVICES[access](spec, config) for access in spec.access))


def _id(value: Any) -> str:
    """A logical id from a Ref or a Fn::GetAtt."""
    return value["Ref"] if "Ref" in value else value["Fn::GetAtt"][0]


class Network:
    def __init__(self, template: dict[str, Any], config: EnvironmentConfig) -> None:
        self.config = config
        self.template = template
        vpc = next(iter(resources(template, "AWS::EC2::VPC").values()))
        self.vpc_cidr = ipaddress.ip_network(vpc["CidrBlock"])
        self.route_tables = {_id(a["SubnetId"]): _id(a["RouteTableId"])
                             for a in resources(template, "AWS::EC2::SubnetRouteTableAssociation").values()}
        self.nat_tables = {_id(r["RouteTableId"]) for r in resources(template, "AWS::EC2::Route").values()
                           if r.get("DestinationCidrBlock") == "0.0.0.0/0" and "NatGatewayId" in r}
        self.endpoints: dict[str, dict[str, Any]] = {}
        for properties in resources(template, "AWS::EC2::VPCEndpoint").values():
            name = properties["ServiceName"]
            name = name if isinstance(name, str) else "".join(p for p in name["Fn::Join"][1] if isinstance(p, str))
            self.endpoints[name.rsplit(".", 1)[-1] if "sagemaker" not in name else "sagemaker.runtime"] = properties
        self.egress: dict[str, list[dict[str, Any]]] = {}
        self.ingress: dict[str, list[dict[str, Any]]] = {}
        for group_id, group in resources(template, "AWS::EC2::SecurityGroup").items():
            self.egress.setdefault(group_id, []).extend(group.get("SecurityGroupEgress", []))
            self.ingress.setdefault(group_id, []).extend(group.get("SecurityGroupIngress", []))
        for rule in resources(template, "AWS::EC2::SecurityGroupEgress").values():
            self.egress.setdefault(_id(rule["GroupId"]), []).append(rule)
        for rule in resources(template, "AWS::EC2::SecurityGroupIngress").values():
            self.ingress.setdefault(_id(rule["GroupId"]), []).append(rule)

    @staticmethod
    def _https(rule: dict[str, Any]) -> bool:
        return rule.get("IpProtocol") in ("-1", "all") or (
            rule.get("IpProtocol") == "tcp" and rule.get("FromPort", 0) <= 443 <= rule.get("ToPort", 65535))

    def _cidr(self, value: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
        if isinstance(value, str):
            return ipaddress.ip_network(value)
        if isinstance(value, dict) and "Fn::GetAtt" in value and value["Fn::GetAtt"][1] == "CidrBlock":
            return self.vpc_cidr
        return None

    def egress_to_vpc(self, group: str) -> bool:
        return any(self._https(r) and (cidr := self._cidr(r.get("CidrIp"))) is not None
                   and self.vpc_cidr.subnet_of(cidr) for r in self.egress[group])  # type: ignore[arg-type]

    def egress_to_internet(self, group: str) -> bool:
        return any(self._https(r) and r.get("CidrIp") == "0.0.0.0/0" for r in self.egress[group])

    def egress_to_prefix_list(self, group: str, prefix_list: str) -> bool:
        return self.egress_to_internet(group) or any(
            self._https(r) and r.get("DestinationPrefixListId") == prefix_list for r in self.egress[group])

    def admits(self, target_group: str, source_group: str) -> bool:
        return any(self._https(r) and (
            ("SourceSecurityGroupId" in r and _id(r["SourceSecurityGroupId"]) == source_group)
            or ((cidr := self._cidr(r.get("CidrIp"))) is not None and self.vpc_cidr.subnet_of(cidr)))  # type: ignore[arg-type]
            for r in self.ingress.get(target_group, []))

    def reaches(self, service: str, group: str, subnets: list[str]) -> str | None:
        """How the function reaches the service ('interface', 'gateway', 'vpc', 'nat'), or None."""
        endpoint = self.endpoints.get(service)
        if service == "opensearch":
            (domain,) = resources(self.template, "AWS::OpenSearchService::Domain").values()
            groups = [_id(g) for g in domain["VPCOptions"]["SecurityGroupIds"]]
            return "vpc" if self.egress_to_vpc(group) and any(self.admits(g, group) for g in groups) else None
        if endpoint is not None and endpoint.get("VpcEndpointType") == "Gateway":
            tables = {_id(t) for t in endpoint["RouteTableIds"]}
            prefix_list = getattr(self.config.network, f"{service}_prefix_list_id")
            if all(self.route_tables[s] in tables for s in subnets) and self.egress_to_prefix_list(group, prefix_list):
                return "gateway"
        elif endpoint is not None:
            endpoint_groups = [_id(g) for g in endpoint["SecurityGroupIds"]]
            if (endpoint.get("PrivateDnsEnabled") and endpoint["SubnetIds"] and self.egress_to_vpc(group)
                    and any(self.admits(g, group) for g in endpoint_groups)):
                return "interface"
        if all(self.route_tables[s] in self.nat_tables for s in subnets) and self.egress_to_internet(group):
            return "nat"
        return None


def _config(env: str) -> EnvironmentConfig:
    return load_environment(json.loads((REPO_ROOT / "cdk.json").read_text())["context"], env)


def test_reachability_every_grant_names_the_services_it_calls() -> None:
    assert set(SERVICES) == set(Access)


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_reachability_every_function_reaches_every_service_it_calls(synthesized: Synthesized, env: str) -> None:
    config = _config(env)
    network = Network(synthesized.main(env), config)
    unreachable, over_nat = [], []
    for name, function in app_functions(synthesized, env).items():
        vpc = function["VpcConfig"]
        (group,) = [_id(g) for g in vpc["SecurityGroupIds"]]
        subnets = [_id(s) for s in vpc["SubnetIds"]]
        for service in sorted(services_called(FUNCTIONS_BY_NAME[name], config)):
            route = network.reaches(service, group, subnets)
            if route is None:
                unreachable.append(f"{name} -> {service}")
            elif route == "nat" and service not in NAT_ALLOWED:
                over_nat.append(f"{name} -> {service}")
    assert not unreachable, f"{env}: no route (the call times out): {unreachable}"
    assert not over_nat, f"{env}: PHI-carrying AWS APIs through the NAT instead of an endpoint: {over_nat}"


def test_reachability_the_assemble_step_reaches_kms_and_ocr_reaches_textract(synthesized: Synthesized) -> None:
    """The two timeouts of issue 26, by name: query_assemble (internal group) and KMS, ingest_ocr and Textract."""
    config = _config("dev")
    network = Network(synthesized.main("dev"), config)
    functions = app_functions(synthesized, "dev")
    for name, service in (("query_assemble", "kms"), ("ingest_ocr", "textract"), ("api", "kms")):
        vpc = functions[name]["VpcConfig"]
        route = network.reaches(service, _id(vpc["SecurityGroupIds"][0]), [_id(s) for s in vpc["SubnetIds"]])
        assert route == "interface", (name, service, route)
