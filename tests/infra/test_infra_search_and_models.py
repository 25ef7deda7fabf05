"""OpenSearch stays inside the VPC and encrypted; the models run network-isolated and autoscale."""

from __future__ import annotations

import pytest
from conftest import Synthesized, resources

from voiceassist.composition import Dependencies
from voiceassist.constants.search import CHUNK_MAPPING_DIGEST
from voiceassist.settings import Settings


def _domain(synthesized: Synthesized, env: str) -> dict:
    (props,) = resources(synthesized.main(env), "AWS::OpenSearchService::Domain").values()
    return props


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_search_domain_is_in_the_vpc_and_encrypted_everywhere(synthesized: Synthesized, env: str) -> None:
    domain = _domain(synthesized, env)
    assert domain["VPCOptions"]["SubnetIds"] and domain["VPCOptions"]["SecurityGroupIds"]
    assert (
        domain["EncryptionAtRestOptions"]["Enabled"] is True and domain["EncryptionAtRestOptions"]["KmsKeyId"]
    )
    assert domain["NodeToNodeEncryptionOptions"] == {"Enabled": True}
    assert domain["DomainEndpointOptions"]["EnforceHTTPS"] is True
    assert domain["AdvancedSecurityOptions"]["Enabled"] is True
    assert domain["AdvancedSecurityOptions"]["InternalUserDatabaseEnabled"] is False


def test_prod_search_spreads_across_zones_with_dedicated_masters(synthesized: Synthesized) -> None:
    cluster = _domain(synthesized, "prod")["ClusterConfig"]
    assert cluster["ZoneAwarenessEnabled"] is True
    assert cluster["DedicatedMasterEnabled"] is True and cluster["DedicatedMasterCount"] == 3
    assert len(_domain(synthesized, "prod")["VPCOptions"]["SubnetIds"]) == 3
    # CreateDomain: a 3-AZ domain spreads its data nodes evenly, so at least 3 and a multiple of 3
    assert cluster["ZoneAwarenessConfig"]["AvailabilityZoneCount"] == 3
    assert cluster["InstanceCount"] >= 3 and cluster["InstanceCount"] % 3 == 0
    assert _domain(synthesized, "dev")["ClusterConfig"]["ZoneAwarenessEnabled"] is False


def test_search_bootstrap_maps_the_function_roles(synthesized: Synthesized) -> None:
    (bootstrap,) = resources(synthesized.main("dev"), "Custom::SearchBootstrap").values()
    assert bootstrap["IndexAlias"] and bootstrap["PipelineName"]
    assert len(bootstrap["ReaderRoleArns"]) == 3  # query_retrieve, api (the passage behind a citation), query_tools
    assert len(bootstrap["WriterRoleArns"]) == 4  # ingest_index, ingest_finalize, ingest_fail, ingest_reconcile
    # the index records whose vectors it holds: the functions' default embedder
    assert bootstrap["EmbeddingModel"] == Dependencies(Settings()).embedder.model_id
    # a changed chunk mapping changes the properties, so the deploy runs the bootstrap, which adds the new fields
    assert bootstrap["MappingVersion"] == CHUNK_MAPPING_DIGEST


@pytest.mark.parametrize("env", ["staging", "prod"])  # the SageMaker environments (dev is on Bedrock)
def test_llm_runs_network_isolated_in_the_vpc(synthesized: Synthesized, env: str) -> None:
    (model,) = resources(synthesized.models(env), "AWS::SageMaker::Model").values()
    assert model["EnableNetworkIsolation"] is True
    assert model["VpcConfig"]["Subnets"] and model["VpcConfig"]["SecurityGroupIds"]
    source = model["PrimaryContainer"]["ModelDataSource"]["S3DataSource"]
    assert source["CompressionType"] == "None" and source["S3Uri"].startswith(
        f"s3://voiceassist-{env}-models-"
    )
    (endpoint,) = resources(synthesized.models(env), "AWS::SageMaker::Endpoint").values()
    assert endpoint["EndpointName"] == f"voiceassist-{env}-llm"


def test_llm_autoscales_and_no_schedule_pretends_to_scale_down(synthesized: Synthesized) -> None:
    (prod_target,) = resources(
        synthesized.models("prod"), "AWS::ApplicationAutoScaling::ScalableTarget"
    ).values()
    assert (prod_target["MinCapacity"], prod_target["MaxCapacity"]) == (2, 4)
    for env in ("staging", "prod"):
        (target,) = resources(synthesized.models(env), "AWS::ApplicationAutoScaling::ScalableTarget").values()
        for action in target.get("ScheduledActions", []):
            if action["ScheduledActionName"] == "off-hours":
                assert action["ScalableTargetAction"]["MinCapacity"] < target["MinCapacity"], env
    (policy,) = resources(synthesized.models("prod"), "AWS::ApplicationAutoScaling::ScalingPolicy").values()
    metric = policy["TargetTrackingScalingPolicyConfiguration"]["PredefinedMetricSpecification"]
    assert metric["PredefinedMetricType"] == "SageMakerVariantInvocationsPerInstance"


def test_the_llm_endpoint_takes_tool_calls(synthesized: Synthesized) -> None:
    """Every question offers the in-boundary model tools: vLLM refuses `tools` without auto tool choice and a
    parser for the model's format."""
    (model,) = resources(synthesized.models("staging"), "AWS::SageMaker::Model").values()  # dev is on Bedrock
    environment = model["PrimaryContainer"]["Environment"]
    assert environment["OPTION_ROLLING_BATCH"] == "vllm"
    assert (environment["OPTION_ENABLE_AUTO_TOOL_CHOICE"], environment["OPTION_TOOL_CALL_PARSER"]) == (
        "true", "llama3_json")
