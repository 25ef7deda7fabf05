"""The remote tool runner (tools/remote.py, adapters/aws/lambda_tool_runner.py): api and mcp hand the tools they
cannot run to query_tools, whose executor runs the whole lifecycle once (validation, authorization, PHI rule,
rate limit, audit) as the caller they authenticated; query_tools checks tool arguments with the detect_phi
function (adapters/aws/lambda_phi_detector.py; a failure is PHI); and on AWS the tools that leave the boundary
are not registered, because no function that runs tools ships the PHI detector."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from tests.unit.tools.executor_fixtures import Harness, RuleDetector, build
from voiceassist.adapters.aws.lambda_phi_detector import LambdaPhiDetector
from voiceassist.adapters.aws.lambda_tool_runner import LambdaToolRunner
from voiceassist.composition.aws import AwsDependencies
from voiceassist.constants.functions import (
    FUNCTIONS_BY_NAME,
    PHI_DETECTOR_FUNCTION,
    TOOL_FUNCTIONS,
    TOOL_RUNNER,
    Access,
)
from voiceassist.errors import DependencyError
from voiceassist.models import AuditOutcome, PhiEntity, PhiResult, ToolCall, ToolResult
from voiceassist.settings import Runtime, Settings
from voiceassist.tools.executor import Caller
from voiceassist.tools.remote import (
    EMBEDDING_TOOLS,
    RemoteToolExecutor,
    caller_from_event,
    runner_event,
    verdict_reply,
)

REMOTE = frozenset({"admin_tool", "web_lookup"})  # stand-ins for the embedding tools
ADMIN = Caller(user_id="admin-1", roles=("admin",), channel="mcp")


class LoopbackLambda:
    """A Lambda client whose Invoke runs the payload as functions/query_tools/handler.py does, in `runner`."""

    def __init__(self, runner: Harness, *, fail: Exception | None = None, function_error: bool = False) -> None:
        self.runner, self.fail, self.function_error = runner, fail, function_error
        self.payloads: list[dict[str, Any]] = []
        self.replies: list[str] = []

    def invoke(self, **params: Any) -> dict[str, Any]:
        assert params["InvocationType"] == "RequestResponse"
        payload = json.loads(params["Payload"])
        self.payloads.append(payload)
        if self.fail is not None:
            raise self.fail
        if self.function_error:
            body = json.dumps({"errorType": "KeyError", "errorMessage": "'John Smith'"}).encode()
            return {"StatusCode": 200, "FunctionError": "Unhandled", "Payload": io.BytesIO(body)}
        if "screen" in payload:  # a tool argument's input screen, read by the runner (tools/remote.py)
            self.replies.append(json.dumps(verdict_reply(self.runner.executor.screen_verdict(payload["screen"]))))
            return {"StatusCode": 200, "Payload": io.BytesIO(self.replies[-1].encode())}
        result = self.runner.executor.execute(ToolCall.model_validate(payload["call"]),
                                              caller_from_event(payload["caller"]))
        return {"StatusCode": 200, "Payload": io.BytesIO(result.model_dump_json().encode())}


def invoker(tmp_path: Path, client: LoopbackLambda) -> tuple[RemoteToolExecutor, Harness]:
    (tmp_path / "invoker").mkdir()
    local = build(tmp_path / "invoker")
    executor = RemoteToolExecutor(local.executor.registry, env=local.executor._env, detector=RuleDetector(),
                                  limiter=local.executor._limiter, actions=local.executor.actions,
                                  audit=local.audit, runner=LambdaToolRunner("pk-query-tools", client=client),
                                  remote=REMOTE)
    return executor, local


@pytest.fixture
def runner(tmp_path: Path) -> Harness:
    (tmp_path / "runner").mkdir()
    return build(tmp_path / "runner")


def audited(harness: Harness) -> list[tuple[str | None, int | None, str | None]]:
    return [(r.tool, r.tool_status, r.model) for uid in ("admin-1", "clinician-1")
            for r in harness.audit.list(user_id=uid, limit=100)]


def test_a_remote_tool_runs_its_lifecycle_once_in_the_runner_as_the_caller(tmp_path: Path, runner: Harness) -> None:
    client = LoopbackLambda(runner)
    executor, local = invoker(tmp_path, client)

    result = executor.execute(ToolCall(name="admin_tool", arguments={"text": "hello"}), ADMIN)

    assert (result.status, result.content) == (200, "echo: hello")
    assert client.payloads[0]["caller"] == {"user_id": "admin-1", "roles": ["admin"], "channel": "mcp",
                                            "turn_has_phi": False, "budget_seconds": None, "session_id": None}
    assert audited(runner) == [("admin_tool", 200, "mcp")] and audited(local) == []  # audited once, there


def test_the_runner_authorizes_and_applies_the_phi_rule(tmp_path: Path, runner: Harness) -> None:
    client = LoopbackLambda(runner)
    executor, local = invoker(tmp_path, client)
    clinician = Caller(user_id="clinician-1", channel="api")

    forbidden = executor.execute(ToolCall(name="admin_tool", arguments={"text": "hello"}), clinician)
    phi = executor.execute(ToolCall(name="web_lookup", arguments={"text": "notes on John Smith"}), clinician)
    invalid = executor.execute(ToolCall(name="web_lookup", arguments={"txt": "x"}), clinician)

    assert [r.status for r in (forbidden, phi, invalid)] == [403, 422, 400] and phi.error == "phi_refused"
    assert sorted(s for _, s, _ in audited(runner)) == [400, 403, 422] and audited(local) == []


def test_other_tools_stay_in_the_invoking_function(tmp_path: Path, runner: Harness) -> None:
    client = LoopbackLambda(runner)
    executor, local = invoker(tmp_path, client)

    result = executor.execute(ToolCall(name="calculate_medical_score", arguments={
        "calculator": "bmi", "parameters": {"weight_kg": 70, "height_cm": 175}}), Caller(user_id="clinician-1"))

    assert result.status == 200 and client.payloads == []
    assert audited(local) == [("calculate_medical_score", 200, "api")] and audited(runner) == []


@pytest.mark.parametrize("failure", [
    {"fail": ClientError({"Error": {"Code": "TooManyRequestsException", "Message": "Rate exceeded"}}, "Invoke")},
    {"function_error": True},
])
def test_a_runner_that_does_not_answer_is_a_502_audited_where_it_was_asked(
        tmp_path: Path, runner: Harness, failure: dict[str, Any]) -> None:
    client = LoopbackLambda(runner, **failure)
    executor, local = invoker(tmp_path, client)

    result = executor.execute(ToolCall(name="web_lookup", arguments={"text": "John Smith"}),
                              Caller(user_id="clinician-1", turn_has_phi=True))

    assert (result.status, result.error, result.ok, result.carries_phi) == (502, "tool_runner_unavailable", False,
                                                                          True)
    assert "John Smith" not in result.content
    records = local.audit.list(user_id="clinician-1", limit=10)
    assert [(r.tool, r.tool_status, r.outcome) for r in records] == [("web_lookup", 502, AuditOutcome.ERROR)]
    assert "John Smith" not in records[0].query_redacted  # the arguments were not checked here: not written


def test_the_lambda_adapter_invokes_the_runner_once_request_response() -> None:
    client = boto3.client("lambda", region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    call = ToolCall(call_id="call_1", name="search_knowledge_base", arguments={"query": "metformin"})
    caller = Caller(user_id="clinician-1", channel="api")
    answer = ToolResult(name=call.name, call_id="call_1", ok=True, content="(1) Metformin: ...").model_dump_json()
    with Stubber(client) as stub:
        stub.add_response("invoke", {"StatusCode": 200, "Payload": StreamingBody(io.BytesIO(answer.encode()),
                                                                                   len(answer))},
                          {"FunctionName": "pk-query-tools", "InvocationType": "RequestResponse",
                           "Payload": json.dumps(runner_event(call, caller)).encode()})
        result = LambdaToolRunner("pk-query-tools", client=client).run(call, caller)

    assert (result.ok, result.content) == (True, "(1) Metformin: ...")


def test_on_aws_api_and_mcp_hand_the_embedding_tools_to_the_runner_and_no_tool_leaves_the_boundary() -> None:
    deps = AwsDependencies(Settings(runtime=Runtime.AWS, region="us-east-1", tool_runner_function="pk-query-tools"))

    names = {d.name for d in deps.tool_registry.definitions()}

    assert names == {"calculate_medical_score", "search_knowledge_base", "search_guidelines",
                     "generate_differential_diagnosis"}
    assert all(d.requires_phi for d in deps.tool_registry.definitions())
    assert isinstance(deps.tool_runner, LambdaToolRunner) and deps.tool_runner.function_name == "pk-query-tools"
    assert AwsDependencies(Settings(runtime=Runtime.AWS, region="us-east-1")).tool_runner is None  # query_tools
    assert names >= EMBEDDING_TOOLS


def test_the_catalogue_keeps_the_premises_of_the_aws_tool_registry() -> None:
    """If a tool function gains Presidio, search_pubmed and web_search can be registered there under any detector:
    revisit composition/aws.py tool_registry. If api or mcp gains the ML layer, it no longer needs the runner."""
    for name in TOOL_FUNCTIONS:
        spec = FUNCTIONS_BY_NAME[name]
        # query_tools is the PHI image since session 20 (spaCy's parse for the tool arguments' screen) but borrows
        # query_detect_phi's detector and has neither the web search key nor PubMed's settings
        assert spec.container_image == (name == TOOL_RUNNER), name
    assert Access.WEB_SEARCH_SECRET not in FUNCTIONS_BY_NAME[TOOL_RUNNER].access
    # only api and mcp may call Comprehend Medical (web_search's PHI check there); query_tools never does
    assert Access.PHI_COMPREHEND_MEDICAL not in FUNCTIONS_BY_NAME[TOOL_RUNNER].access
    assert FUNCTIONS_BY_NAME[TOOL_RUNNER].needs_ml_layer
    for name in ("api", "mcp"):
        spec = FUNCTIONS_BY_NAME[name]
        assert not spec.needs_ml_layer and Access.INVOKE_TOOL_RUNNER in spec.access, name
    assert [s.name for s in FUNCTIONS_BY_NAME.values() if Access.INVOKE_TOOL_RUNNER in s.access] == ["api", "mcp"]


def _invoke_reply(body: dict[str, Any], **extra: Any) -> dict[str, Any]:
    data = json.dumps(body).encode()
    return {"StatusCode": 200, "Payload": StreamingBody(io.BytesIO(data), len(data)), **extra}


def test_query_tools_checks_tool_arguments_with_the_detect_phi_function() -> None:
    client = boto3.client("lambda", region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    found = PhiResult(contains_phi=True, redacted_text="notes on <PERSON>",
                      entities=[PhiEntity(entity_type="PERSON", start=9, end=19, score=0.9)])
    with Stubber(client) as stub:
        stub.add_response("invoke", _invoke_reply({"user_id": "tool-arguments", "phi": found.model_dump(mode="json")}))
        stub.add_response("invoke", _invoke_reply({"errorType": "RuntimeError", "errorMessage": "x"},
                                                  FunctionError="Unhandled"))
        stub.add_client_error("invoke", "TooManyRequestsException")
        detector = LambdaPhiDetector("pk-query-detect-phi", client=client)

        assert detector.detect("notes on John Smith") == found
        for _ in range(2):  # a function error, a refused invocation: raised, which the executor counts as PHI
            with pytest.raises(DependencyError):
                detector.detect("notes on John Smith")


def test_a_failing_remote_detector_fails_the_tool_call_closed(tmp_path: Path) -> None:
    harness = build(tmp_path)
    harness.executor._detector = LambdaPhiDetector("pk-query-detect-phi", client=LoopbackLambda(  # type: ignore[arg-type]
        harness, fail=ClientError({"Error": {"Code": "ServiceException", "Message": "down"}}, "Invoke")))

    result = harness.executor.execute(ToolCall(name="web_lookup", arguments={"text": "aspirin"}),
                                      Caller(user_id="clinician-1"))

    assert (result.status, result.error) == (422, "phi_refused")


def test_on_aws_query_tools_borrows_the_detect_phi_functions_detector() -> None:
    deps = AwsDependencies(Settings(runtime=Runtime.AWS, region="us-east-1",
                                    phi_detector_function="pk-query-detect-phi"))

    assert isinstance(deps.phi_detector, LambdaPhiDetector)
    assert deps.phi_detector.function_name == "pk-query-detect-phi"
    assert not isinstance(AwsDependencies(Settings(runtime=Runtime.AWS, region="us-east-1")).phi_detector,
                          LambdaPhiDetector)
    assert Access.INVOKE_PHI_DETECTOR in FUNCTIONS_BY_NAME[TOOL_RUNNER].access
    assert [s.name for s in FUNCTIONS_BY_NAME.values() if Access.INVOKE_PHI_DETECTOR in s.access] == [TOOL_RUNNER]
    assert FUNCTIONS_BY_NAME[PHI_DETECTOR_FUNCTION].container_image  # it ships Presidio


def test_on_aws_web_search_is_registered_only_where_api_and_mcp_can_check_its_arguments() -> None:
    """Comprehend Medical is an API call api and mcp may make; Presidio ships only in the container image."""
    from voiceassist.settings import PhiDetectorKind

    configured = {"runtime": Runtime.AWS, "region": "us-east-1", "web_search_base_url": "https://search.invalid",
                  "web_search_api_key": "k"}
    names = {kind: {d.name for d in AwsDependencies(Settings(**configured, phi_detector=kind))
                    .tool_registry.definitions()} for kind in PhiDetectorKind}
    assert "web_search" in names[PhiDetectorKind.COMPREHEND_MEDICAL]
    assert "web_search" not in names[PhiDetectorKind.PRESIDIO] | names[PhiDetectorKind.BOTH]
    assert not any("search_pubmed" in found for found in names.values())  # no NCBI settings in these functions


def test_both_adapters_send_the_qualified_alias_arn_they_are_given_as_the_function_name() -> None:
    """In an environment with provisioned concurrency the variables carry the `live` alias's ARN (infra/stacks/
    environment.py): the invoke names it whole, so the call reaches the warm alias and its grant covers it."""
    client = boto3.client("lambda", region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    arn = "arn:aws:lambda:us-east-1:123456789012:function:pk-query-{}:live"
    call = ToolCall(call_id="call_1", name="search_knowledge_base", arguments={"query": "warfarin"})
    caller = Caller(user_id="clinician-1", channel="mcp")
    answer = ToolResult(name=call.name, call_id="call_1", ok=True, content="(1) Warfarin: ...")
    clean = PhiResult(contains_phi=False, redacted_text="warfarin", entities=[])
    with Stubber(client) as stub:
        stub.add_response("invoke", _invoke_reply(answer.model_dump(mode="json")),
                          {"FunctionName": arn.format("tools"), "InvocationType": "RequestResponse",
                           "Payload": json.dumps(runner_event(call, caller)).encode()})
        stub.add_response("invoke", _invoke_reply({"user_id": "tool-arguments", "phi": clean.model_dump(mode="json")}),
                          {"FunctionName": arn.format("detect-phi"), "InvocationType": "RequestResponse",
                           "Payload": ANY})
        assert LambdaToolRunner(arn.format("tools"), client=client).run(call, caller).content == "(1) Warfarin: ..."
        assert LambdaPhiDetector(arn.format("detect-phi"), client=client).detect("warfarin") == clean
        stub.assert_no_pending_responses()
