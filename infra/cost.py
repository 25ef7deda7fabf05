"""Idle monthly cost of an environment, read from its synthesized templates (what runs with nobody using it).

List prices (us-east-1, on-demand, 730 h a month) as docs/operations.md "Idle monthly cost" states them; check the
AWS pricing pages before relying on them. Usage-billed services (Lambda, Step Functions, DynamoDB on demand, S3,
API Gateway, Bedrock tokens) cost nothing idle; the small fixed items (KMS key, secrets, WAF, DNS Firewall,
Cognito, CloudWatch alarms) are one estimate per environment.

    python -m infra.cost cdk.out/VoiceAssist-dev.template.json   # after `make synth`
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HOURS = 730
HOURLY = {
    "nat_gateway": 0.045 + 0.005,  # the gateway and its public IPv4 address
    "interface_endpoint_per_zone": 0.01,
    "t3.medium.search": 0.073, "r7g.large.search": 0.167, "m7g.large.search": 0.137,
    "ml.g5.2xlarge": 1.515,
}
GP3_GB_MONTH = 0.122
PROVISIONED_GB_SECOND = 0.0000033334  # Lambda provisioned concurrency, arm64
FIXED_PER_ENVIRONMENT = {"dev": 40.0, "staging": 40.0, "prod": 100.0}  # KMS, secrets, WAF, DNS Firewall, ...


def _resources(template: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r.get("Properties", {}) for r in template["Resources"].values() if r["Type"] == kind]


def idle_monthly_usd(env: str, templates: list[dict[str, Any]]) -> dict[str, float]:
    """Each idle cost item of the environment's templates (main, and Models where it has one), in USD a month."""
    items: dict[str, float] = {
        "fixed (KMS, secrets, WAF, DNS Firewall, Cognito, CloudWatch)": FIXED_PER_ENVIRONMENT[env]}
    for template in templates:
        nats = len(_resources(template, "AWS::EC2::NatGateway"))
        zones = sum(len(p.get("SubnetIds", [])) for p in _resources(template, "AWS::EC2::VPCEndpoint")
                    if p.get("VpcEndpointType", "Interface") == "Interface")
        items["NAT gateways"] = items.get("NAT gateways", 0) + nats * HOURLY["nat_gateway"] * HOURS
        items["interface endpoints"] = items.get("interface endpoints", 0) + \
            zones * HOURLY["interface_endpoint_per_zone"] * HOURS
        for domain in _resources(template, "AWS::OpenSearchService::Domain"):
            cluster, ebs = domain["ClusterConfig"], domain.get("EBSOptions", {})
            nodes = cluster.get("InstanceCount", 1)
            cost = nodes * HOURLY[cluster["InstanceType"]] * HOURS + nodes * ebs.get("VolumeSize", 0) * GP3_GB_MONTH
            if cluster.get("DedicatedMasterEnabled"):
                cost += cluster["DedicatedMasterCount"] * HOURLY[cluster["DedicatedMasterType"]] * HOURS
            items["OpenSearch"] = items.get("OpenSearch", 0) + cost
        for config in _resources(template, "AWS::SageMaker::EndpointConfig"):
            for variant in config.get("ProductionVariants", []):
                items["SageMaker endpoints"] = items.get("SageMaker endpoints", 0) + \
                    variant.get("InitialInstanceCount", 1) * HOURLY[variant["InstanceType"]] * HOURS
        memory = {k: r["Properties"].get("MemorySize", 128) for k, r in template["Resources"].items()
                  if r["Type"] == "AWS::Lambda::Function"}
        for alias in _resources(template, "AWS::Lambda::Alias"):
            warm = alias.get("ProvisionedConcurrencyConfig", {}).get("ProvisionedConcurrentExecutions", 0)
            function = alias["FunctionName"]["Ref"]
            items["provisioned concurrency"] = items.get("provisioned concurrency", 0) + \
                warm * memory[function] / 1024 * PROVISIONED_GB_SECOND * HOURS * 3600
    return {name: round(value, 2) for name, value in items.items()}


def main(argv: list[str]) -> int:
    """One line per environment: its templates (main and Models) summed."""
    by_env: dict[str, list[dict[str, Any]]] = {}
    for path in map(Path, argv):
        env = path.name.removeprefix("VoiceAssist-").split(".")[0].split("-")[0]
        by_env.setdefault(env, []).append(json.loads(path.read_text()))
    for env, templates in by_env.items():
        items = idle_monthly_usd(env, templates)
        print(json.dumps({"env": env, "items": items, "total_usd": round(sum(items.values()), 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
