"""Every function gets the shared defaults and every setting voiceassist.settings requires on AWS."""

from __future__ import annotations

import json

import pytest
from conftest import Synthesized, allowed_targets, app_functions, resources

from voiceassist.constants.environment import ENV_PHI_DETECTOR_FUNCTION, ENV_TOOL_RUNNER_FUNCTION
from voiceassist.constants.functions import (
    FUNCTIONS,
    FUNCTIONS_BY_NAME,
    PHI_DETECTOR_FUNCTION,
    TOOL_RUNNER,
    Access,
)
from voiceassist.ingest.stages import INCOMING_PREFIX
from voiceassist.settings import (
    AWS_REQUIRED_ENV,
    ENV_ENVIRONMENT,
    ENV_INGEST_STATE_MACHINE_ARN,
    ENV_OPENAI_API_KEY,
    ENV_OPENAI_SECRET_ARN,
    ENV_PUBMED_API_KEY,
    ENV_QUERY_STATE_MACHINE_ARN,
    ENV_RUNTIME,
    ENV_SAGEMAKER_ENDPOINT,
    settings_from_env,
)


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_catalogued_function_is_deployed(synthesized: Synthesized, env: str) -> None:
    assert set(app_functions(synthesized, env)) == {spec.name for spec in FUNCTIONS}


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_function_environment_carries_every_required_setting(
    synthesized: Synthesized, env: str
) -> None:
    for name, props in app_functions(synthesized, env).items():
        variables = props["Environment"]["Variables"]
        missing = [setting for setting in AWS_REQUIRED_ENV if not variables.get(setting)]
        assert missing == [], f"{name} lacks {missing}"
        assert variables[ENV_RUNTIME] == "aws" and variables[ENV_ENVIRONMENT] == env
        assert ENV_OPENAI_API_KEY not in variables, "the OpenAI key must come from Secrets Manager"
        assert ENV_PUBMED_API_KEY not in variables, "the NCBI key must come from Secrets Manager"


def test_function_environments_parse_as_aws_settings(synthesized: Synthesized) -> None:
    for name, props in app_functions(synthesized, "dev").items():
        # Tokens (references to resources) stand in as placeholder text; the parser must accept every value.
        variables = {
            k: v if isinstance(v, str) else f"resolved-{k.lower()}"
            for k, v in props["Environment"]["Variables"].items()
        }
        settings = settings_from_env(variables)
        assert settings.environment == "dev", name


def test_only_workflow_starters_know_the_state_machines(synthesized: Synthesized) -> None:
    specs = {spec.name: spec for spec in FUNCTIONS}
    for name, props in app_functions(synthesized, "dev").items():
        variables = props["Environment"]["Variables"]
        assert (ENV_INGEST_STATE_MACHINE_ARN in variables) is (Access.START_INGEST in specs[name].access), (
            name
        )
        assert (ENV_QUERY_STATE_MACHINE_ARN in variables) is (Access.START_QUERY in specs[name].access), name
    generate = app_functions(synthesized, "prod")["query_generate"]["Environment"]["Variables"]
    assert generate[ENV_OPENAI_SECRET_ARN] and generate[ENV_SAGEMAKER_ENDPOINT] == "voiceassist-prod-llm"


def test_functions_share_runtime_architecture_tracing_and_vpc(synthesized: Synthesized) -> None:
    specs_by_name = {spec.name: spec for spec in FUNCTIONS}
    for name, props in app_functions(synthesized, "prod").items():
        assert props["Architectures"] == ["arm64"], name
        assert props["TracingConfig"] == {"Mode": "Active"}, name
        assert props["VpcConfig"]["SubnetIds"], name
        assert props["KmsKeyArn"], name
        assert props["LoggingConfig"]["LogFormat"] == "JSON", name
        if specs_by_name[name].container_image:
            assert props["PackageType"] == "Image"
        else:
            assert props["Runtime"] == "python3.12" and props["Handler"] == "handler.lambda_handler", name
            assert len(props["Layers"]) >= 2, name


def test_no_function_role_carries_a_managed_policy(synthesized: Synthesized) -> None:
    roles = resources(synthesized.main("dev"), "AWS::IAM::Role")
    function_roles = {k: v for k, v in roles.items() if k.startswith("Functions")}
    assert function_roles and all("ManagedPolicyArns" not in v for v in function_roles.values())


def test_uploads_trigger_ingestion_with_no_queue_keeping_their_raw_keys(synthesized: Synthesized) -> None:
    """An upload's event names its raw key (a file name that may be PHI): neither the rule's target nor the
    function's asynchronous invocation keeps a failed one (decision 0028); the reconciler's sweep of incoming/
    starts the upload, and the events EventBridge/Lambda drop raise an alarm."""
    template = synthesized.main("dev")
    (rule,) = (r for r in resources(template, "AWS::Events::Rule").values() if "EventPattern" in r)
    assert rule["EventPattern"]["detail"]["object"] == {"key": [{"prefix": INCOMING_PREFIX}]}
    (target,) = rule["Targets"]
    assert "DeadLetterConfig" not in target and target["RetryPolicy"]["MaximumRetryAttempts"] == 4
    (trigger,) = (v for k, v in resources(template, "AWS::Lambda::Function").items() if "IngestTrigger" in k)
    assert "DeadLetterConfig" not in trigger
    invoke_configs = resources(template, "AWS::Lambda::EventInvokeConfig").values()
    assert not [c for c in invoke_configs if "DestinationConfig" in c]
    (dropped,) = (a for a in resources(template, "AWS::CloudWatch::Alarm").values()
                  if a.get("MetricName") == "AsyncEventsDropped")
    assert "IngestTrigger" in str(dropped["Dimensions"]) and dropped["Threshold"] == 1


def test_a_schedule_runs_the_ingest_reconciler_with_a_dead_letter_queue(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    (rule,) = (r for r in resources(template, "AWS::Events::Rule").values() if "ScheduleExpression" in r)
    assert rule["ScheduleExpression"] == "rate(5 minutes)" and rule["State"] == "ENABLED"
    (target,) = rule["Targets"]
    (reconciler,) = (k for k in resources(template, "AWS::Lambda::Function") if "IngestReconcile" in k)
    assert target["Arn"] == {"Fn::GetAtt": [reconciler, "Arn"]} and target["DeadLetterConfig"]["Arn"]
    policies = [p for k, p in resources(template, "AWS::IAM::Policy").items() if "IngestReconcile" in k]
    statements = [s for p in policies for s in p["PolicyDocument"]["Statement"]]
    describe = [s for s in statements if s["Action"] == "states:DescribeExecution"]
    assert len(describe) == 1 and ":execution:" in str(describe[0]["Resource"])
    # the sweep of incoming/: it lists and reads uploads and claims them by the trigger's idempotency record
    actions = {a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert {"s3:List*", "s3:GetObject*", "states:StartExecution", "dynamodb:PutItem"} <= actions


def _invoke_grants(template: dict, functions: dict[str, dict]) -> dict[str, list[list]]:
    """Function name -> the Resource lists of its role's lambda:InvokeFunction statements."""
    grants: dict[str, list[list]] = {}
    for name, props in functions.items():
        role = props["Role"]["Fn::GetAtt"][0]
        policies = [p for p in resources(template, "AWS::IAM::Policy").values() if {"Ref": role} in p["Roles"]]
        for statement in (s for p in policies for s in p["PolicyDocument"]["Statement"]):
            actions = [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
            if "lambda:InvokeFunction" in actions:
                grants.setdefault(name, []).append(allowed_targets(statement))
    return grants


CALLED = {"api": TOOL_RUNNER, "mcp": TOOL_RUNNER, TOOL_RUNNER: PHI_DETECTOR_FUNCTION}
CALLED_BY_VARIABLE = {TOOL_RUNNER: ENV_TOOL_RUNNER_FUNCTION, PHI_DETECTOR_FUNCTION: ENV_PHI_DETECTOR_FUNCTION}


def test_function_roles_invoke_only_the_tool_runner_and_the_phi_detector_function(synthesized: Synthesized) -> None:
    """Without provisioned concurrency (dev: no alias): api and mcp may invoke query_tools, query_tools may invoke
    query_detect_phi, each by that function's ARN (and its qualified forms) alone, and each knows that ARN."""
    template = synthesized.main("dev")
    assert resources(template, "AWS::Lambda::Alias") == {}
    functions = app_functions(synthesized, "dev")
    ids = {name: next(k for k, v in resources(template, "AWS::Lambda::Function").items() if v == functions[name])
           for name in (TOOL_RUNNER, PHI_DETECTOR_FUNCTION)}
    grants = _invoke_grants(template, functions)
    assert set(grants) == set(CALLED)
    for name, props in functions.items():
        variables = props["Environment"]["Variables"]
        called = CALLED.get(name)
        assert {v for v in CALLED_BY_VARIABLE.values() if v in variables} == (
            {CALLED_BY_VARIABLE[called]} if called else set()), name
        if called is None:
            continue
        (targets,) = grants[name]
        assert all(ids[called] in str(t) for t in targets) and len(targets) == 2, name
        assert variables[CALLED_BY_VARIABLE[called]] == {"Fn::GetAtt": [ids[called], "Arn"]}, name


def test_calls_between_functions_go_through_the_warm_alias_where_one_exists(synthesized: Synthesized) -> None:
    """With provisioned concurrency (prod): api and mcp call query_tools, query_tools calls query_detect_phi, each
    through the `live` alias the workflow calls: the variable carries the alias's ARN and the grant names that ARN
    alone (a grant on the unqualified function would not cover the qualified invoke, and none is left to reach the
    unprovisioned $LATEST)."""
    template = synthesized.main("prod")
    functions = app_functions(synthesized, "prod")
    aliases = resources(template, "AWS::Lambda::Alias")
    ids = {name: next(k for k, v in resources(template, "AWS::Lambda::Function").items() if v == functions[name])
           for name in (TOOL_RUNNER, PHI_DETECTOR_FUNCTION)}
    alias_of = {name: next(k for k, a in aliases.items() if a["FunctionName"] == {"Ref": ids[name]})
                for name in ids}
    assert all(aliases[a]["Name"] == "live" and "ProvisionedConcurrencyConfig" in aliases[a]
               for a in alias_of.values())
    grants = _invoke_grants(template, functions)
    assert set(grants) == set(CALLED)
    for name, called in CALLED.items():
        assert grants[name] == [[{"Ref": alias_of[called]}]], name
        variables = functions[name]["Environment"]["Variables"]
        assert variables[CALLED_BY_VARIABLE[called]] == {"Ref": alias_of[called]}, name


def test_the_tool_runner_is_reached_over_a_lambda_interface_endpoint(synthesized: Synthesized) -> None:
    """api and mcp have no internet egress: their Invoke of query_tools goes through the VPC, never the NAT."""
    template = synthesized.main("dev")
    endpoints = [props for props in resources(template, "AWS::EC2::VPCEndpoint").values()
                 if ".lambda" in json.dumps(props["ServiceName"])]
    assert len(endpoints) == 1 and endpoints[0]["PrivateDnsEnabled"] is True
    assert not any(FUNCTIONS_BY_NAME[name].internet_egress for name in ("api", "mcp"))


def test_an_upload_reaches_the_ingest_workflow_only_through_the_trigger_which_registers_it(
        synthesized: Synthesized) -> None:
    """The execution history keeps an execution's input for 90 days: the upload event (its key, which may be
    a file name with PHI) goes to the trigger function alone, which registers the upload in the documents and
    jobs tables and starts the workflow with the job's ids (decision 0028); no rule hands the event to a state
    machine, and none rewrites it into an input."""
    template = synthesized.main("dev")
    (trigger,) = (k for k in resources(template, "AWS::Lambda::Function") if "IngestTrigger" in k)
    (upload_rule,) = (r for r in resources(template, "AWS::Events::Rule").values() if "EventPattern" in r)
    (target,) = upload_rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [trigger, "Arn"]}
    assert not {"Input", "InputPath", "InputTransformer"} & set(target)
    machines = set(resources(template, "AWS::StepFunctions::StateMachine"))
    for rule in resources(template, "AWS::Events::Rule").values():
        assert not machines & set(json.dumps(rule.get("Targets", [])).split('"')), "a rule starts a workflow"
    policies = [p for k, p in resources(template, "AWS::IAM::Policy").items() if "IngestTrigger" in k]
    statements = [s for p in policies for s in p["PolicyDocument"]["Statement"]]
    writes = json.dumps([s["Resource"] for s in statements if "dynamodb:PutItem" in s["Action"]])
    tables = {k for k, r in template["Resources"].items() if r["Type"].startswith("AWS::DynamoDB::")
              and k.startswith(("StorageDocumentsTable", "StorageJobsTable"))}
    assert len(tables) == 2 and all(table in writes for table in tables), (tables, writes)
    starts = [s for s in statements if "states:StartExecution" in s["Action"]]
    assert len(starts) == 1 and any(machine in json.dumps(starts) for machine in machines)
