"""Who may invoke the in-boundary LLM: query_generate (answers); query_tools, the query's tool loop, for
generate_differential_diagnosis (it also carries the embedder the tool's knowledge-base search needs); and the
functions that run the orchestrator, api and stream, for the rolling session summary (conversation/memory.py).
Those two never get the cloud model's key, and reach the model's runtime over its interface endpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Synthesized, allowed_targets, app_functions, resources

from voiceassist.constants.environment import (
    ENV_BEDROCK_MODEL_ID,
    ENV_IN_BOUNDARY_PROVIDER,
    ENV_SAGEMAKER_ENDPOINT,
)

LLM_INVOKERS = {"query_generate", "query_tools", "api", "stream"}
SUMMARY_WRITERS = ("api", "stream")


def _ids(references: list[Any]) -> list[str]:
    return sorted(json.dumps(reference, sort_keys=True) for reference in references)


def _roles_allowed(template: dict[str, Any], action: str) -> set[str]:
    allowed = set()
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if action in actions:
                allowed |= {role["Ref"] for role in policy["Roles"]}
    return allowed


@pytest.mark.parametrize(("env", "action"), [("staging", "sagemaker:InvokeEndpoint"),  # a SageMaker environment
                                            ("dev", "bedrock:InvokeModel")])  # a Bedrock one (decision 0016)
def test_only_generate_the_tool_loop_and_the_summary_writers_invoke_the_in_boundary_llm(
        synthesized: Synthesized, env: str, action: str) -> None:
    roles_by_function = {name: f["Role"]["Fn::GetAtt"][0] for name, f in app_functions(synthesized, env).items()}
    assert _roles_allowed(synthesized.main(env), action) == {roles_by_function[name] for name in LLM_INVOKERS}


@pytest.mark.parametrize("env", ["staging", "dev"])
def test_the_summary_writers_never_read_the_cloud_models_key(synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    (secret_id,) = [logical_id for logical_id, props in resources(template, "AWS::SecretsManager::Secret").items()
                    if props.get("Description", "").startswith("OpenAI API key")]
    readers = set()
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            targets = allowed_targets(statement)
            if "secretsmanager:GetSecretValue" in actions and {"Ref": secret_id} in targets:
                readers |= {role["Ref"] for role in policy["Roles"]}
    functions = app_functions(synthesized, env)
    assert readers and not readers & {functions[name]["Role"]["Fn::GetAtt"][0] for name in SUMMARY_WRITERS}


@pytest.mark.parametrize(("env", "service", "variable"), [("staging", "sagemaker.runtime", ENV_SAGEMAKER_ENDPOINT),
                                                          ("dev", "bedrock-runtime", ENV_BEDROCK_MODEL_ID)])
def test_the_summary_writers_know_the_model_and_reach_its_runtime_over_privatelink(
        synthesized: Synthesized, env: str, service: str, variable: str) -> None:
    template = synthesized.main(env)
    (endpoint,) = [props for props in resources(template, "AWS::EC2::VPCEndpoint").values()
                   if isinstance(props["ServiceName"], str) and props["ServiceName"].endswith(f".{service}")]
    assert endpoint["VpcEndpointType"] == "Interface" and endpoint["PrivateDnsEnabled"] is True
    (group,) = endpoint["SecurityGroupIds"]
    admitted = {rule["SourceSecurityGroupId"]["Fn::GetAtt"][0]
                for rule in resources(template, "AWS::EC2::SecurityGroupIngress").values()
                if rule["GroupId"] == group and rule["FromPort"] == 443}
    generate = app_functions(synthesized, env)["query_generate"]["Environment"]["Variables"]
    for name in SUMMARY_WRITERS:
        function = app_functions(synthesized, env)[name]
        assert {g["Fn::GetAtt"][0] for g in function["VpcConfig"]["SecurityGroupIds"]} <= admitted, name
        # the endpoint's network interfaces sit in the function's subnets (dev keeps them in one zone,
        # `endpoint_zones`; private DNS resolves them VPC-wide, so the function's other zone reaches them too)
        assert set(_ids(endpoint["SubnetIds"])) <= set(_ids(function["VpcConfig"]["SubnetIds"])), name
        variables = function["Environment"]["Variables"]
        assert variables[variable] == generate[variable], name  # the same model query_generate answers with
        assert variables[ENV_IN_BOUNDARY_PROVIDER] == generate[ENV_IN_BOUNDARY_PROVIDER], name
