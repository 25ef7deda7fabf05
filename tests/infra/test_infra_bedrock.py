"""The in-boundary model per environment (decision 0016): where llm.provider is bedrock (dev) there is no
SageMaker endpoint, model or Models stack, the functions that call the model (query_generate, query_tools, api
and stream) may invoke only the configured Llama model or inference profile, and bedrock-runtime is reached
through an interface endpoint; where it is sagemaker (staging, prod) nothing of Bedrock exists and the endpoint
is as before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import App, Environment, Stack
from aws_cdk import aws_lambda as lambda_
from aws_cdk.assertions import Template
from conftest import REPO_ROOT, Synthesized, app_functions, resources

from infra.config import ENVIRONMENT_NAMES, EnvironmentConfig, load_environment
from infra.stacks.environment import in_boundary_environment
from infra.stacks.grants import GrantTargets, grant_access
from voiceassist.admin.config import in_boundary_choice
from voiceassist.composition.chat_models import build_local_chat
from voiceassist.constants.environment import (
    ENV_BEDROCK_MODEL_ID,
    ENV_IN_BOUNDARY_ALTERNATES,
    ENV_IN_BOUNDARY_PROVIDER,
    ENV_SAGEMAKER_ENDPOINT,
    InBoundaryProvider,
)
from voiceassist.constants.functions import FUNCTIONS_BY_NAME, Access
from voiceassist.settings import Settings, settings_from_env

CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
CONFIGS = {name: load_environment(CONTEXT, name) for name in ENVIRONMENT_NAMES}
BEDROCK = tuple(name for name, config in CONFIGS.items() if config.llm.on_bedrock)
SAGEMAKER = tuple(name for name, config in CONFIGS.items() if config.llm.on_sagemaker)
INVOKE = {"bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"}
FOUNDATION_MODEL = "meta.llama3-1-8b-instruct-v1:0"


def _statements(template: dict[str, Any], prefix: str) -> dict[str, list[dict[str, Any]]]:
    """Role logical id -> the policy statements with an action starting with `prefix`."""
    found: dict[str, list[dict[str, Any]]] = {}
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if any(str(action).startswith(prefix) for action in actions):
                for role in policy["Roles"]:
                    found.setdefault(role["Ref"], []).append(statement)
    return found


def _endpoint_services(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Interface endpoints by service: com.amazonaws.us-east-1.sagemaker.runtime -> sagemaker.runtime."""
    return {props["ServiceName"].split(".", 3)[3]: props
            for props in resources(template, "AWS::EC2::VPCEndpoint").values() if isinstance(props["ServiceName"], str)}


def test_dev_runs_bedrock_and_staging_and_prod_run_the_sagemaker_endpoint() -> None:
    assert BEDROCK == ("dev",) and SAGEMAKER == ("staging", "prod")
    assert CONFIGS["dev"].llm.bedrock.model_id == f"us.{FOUNDATION_MODEL}"


@pytest.mark.parametrize("env", BEDROCK)
def test_a_bedrock_environment_has_no_sagemaker_endpoint_model_or_models_stack(synthesized: Synthesized,
                                                                               env: str) -> None:
    assert f"VoiceAssist-{env}-Models" not in synthesized.templates
    types = {resource["Type"] for resource in synthesized.main(env)["Resources"].values()}
    assert not {t for t in types if t.startswith("AWS::SageMaker::")}
    assert _statements(synthesized.main(env), "sagemaker:") == {}
    assert "sagemaker.runtime" not in _endpoint_services(synthesized.main(env))


@pytest.mark.parametrize("env", BEDROCK)
def test_bedrock_runtime_is_reached_over_privatelink_from_the_functions(synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    endpoint = _endpoint_services(template)["bedrock-runtime"]
    assert endpoint["VpcEndpointType"] == "Interface" and endpoint["PrivateDnsEnabled"] is True
    network = CONFIGS[env].network
    assert len(endpoint["SubnetIds"]) == len(network.availability_zones[:network.endpoint_zones])
    (group,) = endpoint["SecurityGroupIds"]
    ingress = resources(template, "AWS::EC2::SecurityGroupIngress").values()
    admitted = {rule["SourceSecurityGroupId"]["Fn::GetAtt"][0] for rule in ingress
                if rule["GroupId"] == group and rule["FromPort"] == 443}
    generate = app_functions(synthesized, env)["query_generate"]
    assert {g["Fn::GetAtt"][0] for g in generate["VpcConfig"]["SecurityGroupIds"]} <= admitted


@pytest.mark.parametrize("env", BEDROCK)
def test_only_the_models_callers_may_invoke_and_only_the_configured_model(synthesized: Synthesized,
                                                                         env: str) -> None:
    """query_generate answers; query_tools runs generate_differential_diagnosis with the in-boundary model; api
    and stream write the rolling session summary with it (conversation/memory.py)."""
    model = CONFIGS[env].llm.bedrock
    granted = _statements(synthesized.main(env), "bedrock:")
    functions = app_functions(synthesized, env)
    generate_role, *others = (functions[name]["Role"]["Fn::GetAtt"][0]
                              for name in ("query_generate", "query_tools", "api", "stream"))
    assert set(granted) == {generate_role, *others}
    assert all(granted[role] == granted[generate_role] for role in others)
    profile = f"arn:aws:bedrock:{CONFIGS[env].region}:{CONFIGS[env].account}:inference-profile/{model.model_id}"
    by_resource = {json.dumps(s["Resource"], sort_keys=True): s for s in granted[generate_role]}
    direct = by_resource[json.dumps(profile)]
    assert set(direct["Action"]) == INVOKE and "Condition" not in direct
    routed = by_resource[json.dumps(sorted(f"arn:aws:bedrock:{region}::foundation-model/{FOUNDATION_MODEL}"
                                           for region in model.destination_regions))]
    assert set(routed["Action"]) == INVOKE
    assert routed["Condition"] == {"StringEquals": {"bedrock:InferenceProfileArn": profile}}
    assert len(by_resource) == 2 and "*" not in json.dumps(granted)


@pytest.mark.parametrize("env", BEDROCK)
def test_the_functions_are_told_to_use_bedrock_and_build_its_adapter(synthesized: Synthesized, env: str) -> None:
    variables = app_functions(synthesized, env)["query_generate"]["Environment"]["Variables"]
    assert variables[ENV_IN_BOUNDARY_PROVIDER] == "bedrock" and ENV_SAGEMAKER_ENDPOINT not in variables
    settings = settings_from_env({k: v if isinstance(v, str) else "resolved" for k, v in variables.items()})
    model = build_local_chat(settings)
    assert settings.in_boundary_provider is InBoundaryProvider.BEDROCK and model is not None
    assert type(model).__name__ == "BedrockChatModel" and model.in_boundary
    assert variables[ENV_BEDROCK_MODEL_ID] == CONFIGS[env].llm.bedrock.model_id


@pytest.mark.parametrize("env", SAGEMAKER)
def test_a_sagemaker_environment_keeps_its_endpoint_and_has_nothing_of_bedrock(synthesized: Synthesized,
                                                                               env: str) -> None:
    (endpoint,) = resources(synthesized.models(env), "AWS::SageMaker::Endpoint").values()
    assert endpoint["EndpointName"] == f"voiceassist-{env}-llm"
    services = _endpoint_services(synthesized.main(env))
    assert "sagemaker.runtime" in services and "bedrock-runtime" not in services
    assert _statements(synthesized.main(env), "bedrock:") == {}
    generate = app_functions(synthesized, env)["query_generate"]
    (invoke,) = _statements(synthesized.main(env), "sagemaker:")[generate["Role"]["Fn::GetAtt"][0]]
    assert invoke["Resource"] == f"arn:aws:sagemaker:us-east-1:{CONFIGS[env].account}:endpoint/voiceassist-{env}-llm"
    variables = generate["Environment"]["Variables"]
    assert variables[ENV_IN_BOUNDARY_PROVIDER] == "sagemaker" and ENV_BEDROCK_MODEL_ID not in variables


def _granted_alone(model: dict[str, Any]) -> list[dict[str, Any]]:
    """query_generate's bedrock statements for an llm.bedrock block, granted in a stack of its own."""
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["dev"]["llm"]["bedrock"] = model
    return _statements_granted(load_environment(context, "dev"), Access.BEDROCK_INVOKE)


def _statements_granted(config: EnvironmentConfig, access: Access) -> list[dict[str, Any]]:
    """query_generate's statements for one kind of access under `config`, granted in a stack of its own."""
    app = App(context={"@aws-cdk/core:enablePartitionLiterals": True})  # as cdk.json sets it
    stack = Stack(app, "Grants", env=Environment(account=config.account, region=config.region))
    function = lambda_.Function(stack, "Generate", runtime=lambda_.Runtime.PYTHON_3_12, handler="h.h",
                                code=lambda_.Code.from_inline("h = None"))
    targets = GrantTargets(config=config, key=None, storage=None, search=stack, secrets=None,  # type: ignore[arg-type]
                           ingest=None, query=None, websocket_api=None, websocket_stage="v1",  # type: ignore[arg-type]
                           tool_runner=None, phi_detector=None, cost_alerts=None)  # type: ignore[arg-type]
    spec = FUNCTIONS_BY_NAME["query_generate"]
    grant_access(function, type(spec)(name=spec.name, description="", access=frozenset({access})), targets)
    (policy,) = Template.from_stack(stack).find_resources("AWS::IAM::Policy").values()
    return list(policy["Properties"]["PolicyDocument"]["Statement"])


def test_a_foundation_model_id_is_granted_in_the_stack_region_only() -> None:
    (statement,) = _granted_alone({"model_id": FOUNDATION_MODEL})
    assert statement["Resource"] == f"arn:aws:bedrock:us-east-1::foundation-model/{FOUNDATION_MODEL}"
    assert set(statement["Action"]) == INVOKE and "Condition" not in statement


def test_an_inference_profile_without_its_regions_is_refused() -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["dev"]["llm"]["bedrock"] = {"model_id": f"eu.{FOUNDATION_MODEL}",
                                                                       "destination_regions": []}
    with pytest.raises(ValueError, match="destination_regions"):
        load_environment(context, "dev")


def test_bedrock_alternates_are_granted_like_the_model_and_named_to_the_functions() -> None:
    alternate = "meta.llama3-3-70b-instruct-v1:0"
    statements = _granted_alone({"model_id": f"us.{FOUNDATION_MODEL}", "alternates": [alternate]})

    resources = [statement["Resource"] for statement in statements]
    assert f"arn:aws:bedrock:us-east-1::foundation-model/{alternate}" in resources  # the stack's Region only
    assert len(statements) == 3 and all(set(s["Action"]) == INVOKE for s in statements)
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["dev"]["llm"]["bedrock"]["alternates"] = [alternate]
    variables = in_boundary_environment(load_environment(context, "dev"))
    assert variables[ENV_IN_BOUNDARY_ALTERNATES] == alternate
    settings = Settings(in_boundary_provider=variables[ENV_IN_BOUNDARY_PROVIDER],
                        bedrock_model_id=variables[ENV_BEDROCK_MODEL_ID],
                        in_boundary_alternates=variables[ENV_IN_BOUNDARY_ALTERNATES])
    assert in_boundary_choice(settings).choices == (f"us.{FOUNDATION_MODEL}", alternate)  # what the admin may pick


def test_an_alternate_that_is_not_a_model_id_is_refused() -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["dev"]["llm"]["bedrock"]["alternates"] = ["not a model!"]
    with pytest.raises(ValueError, match="alternates"):
        load_environment(context, "dev")


def test_sagemaker_alternate_endpoints_are_granted_and_named_to_the_functions() -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["staging"]["llm"]["alternate_endpoints"] = ["llama-3-3-70b"]
    config = load_environment(context, "staging")

    resources = [s["Resource"] for s in _statements_granted(config, Access.LLM_INVOKE)]
    assert resources == [f"arn:aws:sagemaker:us-east-1:{config.account}:endpoint/voiceassist-staging-llm",
                         f"arn:aws:sagemaker:us-east-1:{config.account}:endpoint/llama-3-3-70b"]
    assert in_boundary_environment(config)[ENV_IN_BOUNDARY_ALTERNATES] == "llama-3-3-70b"
