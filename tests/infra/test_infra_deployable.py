"""The blockers a first deploy would hit, each asserted gone (issue 16): they cannot be seen without deploying."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest
from aws_cdk import App, Stack
from conftest import REPO_ROOT, Synthesized, allowed_targets, app_functions, resources
from pydantic import ValidationError

from infra.config import SourcePaths, load_environment
from infra.constructs.layers import LayerNotBuiltError, Layers
from infra.custom_resources import is_custom_resource
from infra.stacks.key_policy import PUBLISHING_SERVICES
from voiceassist.constants.functions import FUNCTIONS_BY_NAME

CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
ENVIRONMENTS = ["dev", "staging", "prod"]
API_GATEWAY_LIMIT_SECONDS = 29


def _context_with(env: str, section: str, **values: object) -> dict:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"][env][section].update(values)
    return context


@pytest.mark.parametrize(("zones", "nodes"), [(3, 2), (3, 4), (2, 3), (2, 1)])
def test_data_nodes_that_do_not_spread_evenly_over_the_zones_are_rejected(zones: int, nodes: int) -> None:
    context = _context_with("prod", "search", data_node_count=nodes)
    context["voiceassist"]["environments"]["prod"]["network"]["availability_zones"] = [
        f"us-east-1{letter}" for letter in "abc"[:zones]
    ]
    with pytest.raises(ValidationError, match="multiple of it"):
        load_environment(context, "prod")


def test_every_environment_has_zone_consistent_search() -> None:
    for env in ENVIRONMENTS:
        config = load_environment(CONTEXT, env)
        if config.search.zone_awareness:
            zones = len(config.network.availability_zones)
            assert config.search.data_node_count % zones == 0 and config.search.data_node_count >= zones, env


def test_a_scale_down_schedule_that_changes_nothing_is_rejected() -> None:
    context = _context_with("staging", "llm", min_capacity=1, scale_down={"off_hours_capacity": 1})
    with pytest.raises(ValidationError, match="below min_capacity"):
        load_environment(context, "staging")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_key_lets_alarms_and_eventbridge_use_encrypted_topics_and_queues(
    synthesized: Synthesized, env: str
) -> None:
    (key,) = resources(synthesized.main(env), "AWS::KMS::Key").values()
    granted = {}
    for statement in key["KeyPolicy"]["Statement"]:
        services = statement["Principal"].get("Service", []) if isinstance(statement["Principal"], dict) else []
        for service in [services] if isinstance(services, str) else services:
            granted.setdefault(service, set()).update(
                [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
            )
    for service in PUBLISHING_SERVICES:
        assert {"kms:Decrypt", "kms:GenerateDataKey*"} <= granted.get(service, set()), (env, service)
    # and every encrypted topic (the alarms', the cost alerts') uses that key, and each of its publishers may
    # use the key: the alarms through the key policy above, a function through its role (SNS asks the
    # publisher's own kms:GenerateDataKey* and kms:Decrypt on the topic's key)
    template = synthesized.main(env)
    (key_id,) = resources(template, "AWS::KMS::Key")
    key_arn = {"Fn::GetAtt": [key_id, "Arn"]}
    topics = resources(template, "AWS::SNS::Topic")
    assert len(topics) >= 2 and all(topic.get("KmsMasterKeyId") == key_arn for topic in topics.values()), env
    publishers = _topic_publishers(template)
    assert set(publishers) == set(topics), f"{env}: a topic nothing publishes to, or a publisher of another topic"
    assert any("cloudwatch.amazonaws.com" in principals for principals in publishers.values()), env
    roles_with_key = _roles_granted(template, key_arn, {"kms:Decrypt", "kms:GenerateDataKey*"})
    for topic, principals in publishers.items():
        refused = {p for p in principals if p not in PUBLISHING_SERVICES and p not in roles_with_key}
        assert not refused, f"{env}: {refused} publish to {topic} but may not use its key"


def _actions(statement: dict) -> set[str]:
    return {statement["Action"]} if isinstance(statement["Action"], str) else set(statement["Action"])


def _roles_granted(template: dict, resource: object, actions: set[str]) -> set[str]:
    """The role logical ids whose policies allow all of `actions` on `resource`, unconditionally."""
    allowed: dict[str, set[str]] = {}
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            targets = allowed_targets(statement)
            if statement["Effect"] == "Allow" and "Condition" not in statement and resource in targets:
                for role in policy["Roles"]:
                    allowed.setdefault(role["Ref"], set()).update(_actions(statement))
    return {role for role, granted in allowed.items()
            if all(any(fnmatch.fnmatchcase(action, pattern) or action == pattern for pattern in granted)
                   for action in actions)}


def _topic_publishers(template: dict) -> dict[str, set[str]]:
    """Topic logical id -> who publishes to it: cloudwatch.amazonaws.com (an alarm's action),
    events.amazonaws.com (a rule's target), or a role logical id (sns:Publish in its policy)."""
    found: dict[str, set[str]] = {}
    topics = resources(template, "AWS::SNS::Topic").keys()
    for alarm in resources(template, "AWS::CloudWatch::Alarm").values():
        for name in ("AlarmActions", "OKActions", "InsufficientDataActions"):
            for action in alarm.get(name, []):
                if isinstance(action, dict) and action.get("Ref") in topics:
                    found.setdefault(action["Ref"], set()).add("cloudwatch.amazonaws.com")
    for rule in resources(template, "AWS::Events::Rule").values():
        for target in rule.get("Targets", []):
            if isinstance(target["Arn"], dict) and target["Arn"].get("Ref") in topics:
                found.setdefault(target["Arn"]["Ref"], set()).add("events.amazonaws.com")
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            targets = allowed_targets(statement)
            for target in targets:
                if "sns:Publish" in _actions(statement) and isinstance(target, dict) and target.get("Ref") in topics:
                    found.setdefault(target["Ref"], set()).update(role["Ref"] for role in policy["Roles"])
    return found


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_custom_resource_answers_within_a_service_timeout(synthesized: Synthesized, env: str) -> None:
    for template in synthesized.stacks(env):
        custom = {k: r for k, r in template["Resources"].items() if is_custom_resource(r["Type"])}
        for logical_id, resource in custom.items():
            assert 0 < int(resource["Properties"]["ServiceTimeout"]) <= 3600, logical_id
    assert any(r["Type"] == "Custom::SearchBootstrap" for r in synthesized.main(env)["Resources"].values())


def test_an_unbuilt_layer_fails_synth(tmp_path: Path) -> None:
    stack = Stack(App(), "LayerCheck")
    with pytest.raises(LayerNotBuiltError, match="make layers"):
        Layers(stack, "Layers", paths=SourcePaths(deps_layer_dir=tmp_path / "missing"))


def test_a_built_layer_synthesizes(tmp_path: Path) -> None:
    names = ("deps", "ml", "auth", "mcp", "documents", "workspace", "voice")
    for name in names:
        (tmp_path / name / "python").mkdir(parents=True)
    paths = SourcePaths(**{f"{name}_layer_dir": tmp_path / name for name in names})
    layers = Layers(Stack(App(), "LayerCheck"), "Layers", paths=paths)
    assert "NOT BUILT" not in str(layers.deps.node.default_child.description)  # type: ignore[union-attr]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_model_endpoints_reach_s3_through_its_prefix_list(synthesized: Synthesized, env: str) -> None:
    prefix_list = load_environment(CONTEXT, env).network.s3_prefix_list_id
    groups = resources(synthesized.main(env), "AWS::EC2::SecurityGroup")
    (model_group,) = (k for k, g in groups.items() if g["GroupDescription"].startswith("SageMaker endpoints"))
    rules = [(r["DestinationPrefixListId"], r["FromPort"], r["ToPort"])
             for r in resources(synthesized.main(env), "AWS::EC2::SecurityGroupEgress").values()
             if r["GroupId"] == {"Fn::GetAtt": [model_group, "GroupId"]} and "DestinationPrefixListId" in r]
    assert rules == [(prefix_list, 443, 443)]


def _asl(name: str) -> dict:
    return json.loads((REPO_ROOT / "statemachines" / f"{name}.asl.json").read_text())


def test_both_workflows_carry_an_overall_timeout_inside_the_api_limit() -> None:
    # DefinitionBody.from_file drops the CDK `timeout`: the limit lives in the ASL files themselves.
    api_timeout = FUNCTIONS_BY_NAME["api"].timeout_seconds
    assert api_timeout is not None and _asl("query")["TimeoutSeconds"] < api_timeout < API_GATEWAY_LIMIT_SECONDS
    assert _asl("ingest")["TimeoutSeconds"] == 2 * 60 * 60


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_the_deployed_definitions_keep_the_timeouts(synthesized: Synthesized, env: str) -> None:
    machines = resources(synthesized.main(env), "AWS::StepFunctions::StateMachine")
    staged = {props["StateMachineType"]: json.loads((synthesized.outdir / f"asset.{location['Key']}").read_text())
              for props in machines.values() for location in [props["DefinitionS3Location"]]}
    assert staged["EXPRESS"]["TimeoutSeconds"] == _asl("query")["TimeoutSeconds"]
    assert staged["STANDARD"]["TimeoutSeconds"] == _asl("ingest")["TimeoutSeconds"]


def test_a_phi_detection_timeout_fails_closed_with_a_clear_error() -> None:
    states = _asl("query")["States"]
    (catch,) = [c for c in states["Detect PHI"]["Catch"] if "States.Timeout" in c["ErrorEquals"]]
    failed = states[catch["Next"]]
    assert failed["Type"] == "Fail" and failed["Error"] == "PhiDetectionTimeout"
    assert "fail closed" in failed["Cause"] and "nothing left the boundary" in failed["Cause"]


def test_the_api_function_answers_before_api_gateway_gives_up(synthesized: Synthesized) -> None:
    (api,) = [p for p in resources(synthesized.main("prod"), "AWS::Lambda::Function").values()
              if p.get("Description") == FUNCTIONS_BY_NAME["api"].description]
    assert api["Timeout"] < API_GATEWAY_LIMIT_SECONDS


def test_prod_keeps_the_phi_functions_on_the_query_path_warm(synthesized: Synthesized) -> None:
    template = synthesized.main("prod")
    aliases = resources(template, "AWS::Lambda::Alias")
    assert len(aliases) == 6
    assert all(a["ProvisionedConcurrencyConfig"] == {"ProvisionedConcurrentExecutions": 2} for a in aliases.values())
    (query,) = [m for m in resources(template, "AWS::StepFunctions::StateMachine").values()
                if m["StateMachineType"] == "EXPRESS"]
    substitutions = query["DefinitionSubstitutions"]
    for placeholder in ("QueryDetectPhiFunctionArn", "QueryClassifyFunctionArn", "QueryRankFunctionArn",
                        "QueryGenerateFunctionArn", "QueryToolsFunctionArn", "QueryAssembleFunctionArn"):
        assert substitutions[placeholder]["Ref"] in aliases, placeholder  # the workflow calls the warm alias
    assert "Fn::GetAtt" in substitutions["QueryRetrieveFunctionArn"]
    assert resources(synthesized.main("dev"), "AWS::Lambda::Alias") == {}


def test_debug_logging_is_refused_everywhere() -> None:
    context = _context_with("prod", "functions", log_level="DEBUG")
    with pytest.raises(ValidationError, match="DEBUG may log PHI"):
        load_environment(context, "prod")
    assert {load_environment(CONTEXT, env).functions.log_level for env in ENVIRONMENTS} == {"INFO"}


@pytest.mark.parametrize("env", ["staging", "prod"])  # the SageMaker environments (dev is on Bedrock)
def test_log_groups_aws_would_create_are_created_encrypted_with_retention(synthesized: Synthesized, env: str) -> None:
    models = synthesized.models(env)
    (llm_logs_id, llm_logs), = [(k, r["Properties"]) for k, r in models["Resources"].items()
                                if r["Type"] == "AWS::Logs::LogGroup"]
    assert llm_logs["LogGroupName"] == f"/aws/sagemaker/Endpoints/voiceassist-{env}-llm"
    assert llm_logs["KmsKeyId"] and llm_logs["RetentionInDays"] == load_environment(CONTEXT, env).retention.log_days
    (endpoint,) = [r for r in models["Resources"].values() if r["Type"] == "AWS::SageMaker::Endpoint"]
    assert llm_logs_id in endpoint["DependsOn"]
    main = synthesized.main(env)["Resources"]
    (execution_id,) = [k for k, r in main.items() if r["Type"] == "AWS::Logs::LogGroup"
                       and "API-Gateway-Execution-Logs_" in json.dumps(r["Properties"].get("LogGroupName", ""))]
    assert main[execution_id]["Properties"]["KmsKeyId"]
    (stage,) = [r for r in main.values() if r["Type"] == "AWS::ApiGateway::Stage"]
    assert execution_id in stage["DependsOn"]


def test_function_log_groups_mask_hipaa_identifiers(synthesized: Synthesized) -> None:
    functions = app_functions(synthesized, "prod").values()  # every catalogued function, search_bootstrap too
    groups = resources(synthesized.main("prod"), "AWS::Logs::LogGroup")
    function_groups = [groups[f["LoggingConfig"]["LogGroup"]["Ref"]] for f in functions]
    assert len(function_groups) == len(FUNCTIONS_BY_NAME)
    for group in function_groups:
        statements = group["DataProtectionPolicy"]["Statement"]
        identifiers = statements[0]["DataIdentifier"]
        assert any(i.endswith("/Name") for i in identifiers) and any(i.endswith("/Ssn-US") for i in identifiers)
        assert any("Deidentify" in s["Operation"] for s in statements)


def test_ingestion_functions_reserve_their_concurrency(synthesized: Synthesized) -> None:
    reserved = {name: props.get("ReservedConcurrentExecutions")
                for name, props in app_functions(synthesized, "prod").items()}
    assert {name for name, value in reserved.items() if value == 10} == {
        name for name in FUNCTIONS_BY_NAME if name.startswith("ingest_")}
    assert reserved["api"] is None and reserved["query_generate"] is None


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_custom_resources_wait_at_least_as_long_as_their_handler_runs(synthesized: Synthesized, env: str) -> None:
    """ServiceTimeout below a handler's own timeout fails a slow but healthy deploy (CDK's handlers: 900 s)."""
    template = synthesized.main(env)
    checked = 0
    for resource in template["Resources"].values():
        token = resource.get("Properties", {}).get("ServiceToken")
        if not (resource["Type"].startswith("Custom::") or resource["Type"] == "AWS::CloudFormation::CustomResource"):
            continue
        handler = template["Resources"].get(token["Fn::GetAtt"][0]) if isinstance(token, dict) else None
        if handler is None or handler["Type"] != "AWS::Lambda::Function":
            continue  # a provider framework's own function answers for it
        assert int(resource["Properties"]["ServiceTimeout"]) >= handler["Properties"].get("Timeout", 3)
        checked += 1
    assert checked >= 3  # the bucket deployment, the auto-delete and the default security group handlers
