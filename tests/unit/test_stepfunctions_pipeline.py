"""StepFunctionsPipelineRunner against a botocore Stubber: the requests it makes and how it reads replies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from voiceassist.adapters.aws.stepfunctions_pipeline import PipelineExecutionFailed, StepFunctionsPipelineRunner
from voiceassist.errors import Conflict, DependencyError, NotFound
from voiceassist.ports import PipelineRunner

INGEST_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:voiceassist-ingest"
QUERY_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:voiceassist-query"
EXECUTION_ARN = "arn:aws:states:us-east-1:123456789012:execution:voiceassist-ingest:job-1"
STARTED = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def client() -> Any:
    return boto3.client("stepfunctions", region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


@pytest.fixture
def runner(client: Any) -> StepFunctionsPipelineRunner:
    return StepFunctionsPipelineRunner({"ingest": INGEST_ARN, "query": QUERY_ARN}, client=client)


def _sync_reply(status: str, **fields: Any) -> dict[str, Any]:
    return {"executionArn": EXECUTION_ARN, "startDate": STARTED, "stopDate": STARTED, "status": status,
            **fields}


def test_stepfunctions_pipeline_start_sends_named_execution(runner, stubber):
    expected = {"stateMachineArn": INGEST_ARN, "input": json.dumps({"doc_key": "a.pdf"}), "name": "job-1"}
    stubber.add_response("start_execution", {"executionArn": EXECUTION_ARN, "startDate": STARTED}, expected)

    assert runner.start("ingest", {"doc_key": "a.pdf"}, name="job-1") == EXECUTION_ARN


def test_stepfunctions_pipeline_start_with_used_name_raises_conflict(runner, stubber):
    stubber.add_client_error("start_execution", "ExecutionAlreadyExists", "Execution Already Exists")

    with pytest.raises(Conflict):
        runner.start("ingest", {"doc_key": "a.pdf"}, name="job-1")


def test_stepfunctions_pipeline_start_throttled_raises_dependency_error(runner, stubber):
    stubber.add_client_error("start_execution", "ThrottlingException", "Rate exceeded", http_status_code=400)

    with pytest.raises(DependencyError, match="Rate exceeded"):
        runner.start("ingest", {"doc_key": "a.pdf"})


def test_stepfunctions_pipeline_run_returns_express_output(runner, stubber):
    reply = _sync_reply("SUCCEEDED", output=json.dumps({"answer": "42"}))
    stubber.add_response("start_sync_execution", reply,
                         {"stateMachineArn": QUERY_ARN, "input": json.dumps({"question": "q"})})

    assert runner.run("query", {"question": "q"}) == {"answer": "42"}
    assert isinstance(runner, PipelineRunner)


def test_stepfunctions_pipeline_run_failed_raises_error_and_cause(runner, stubber):
    stubber.add_response("start_sync_execution",
                         _sync_reply("FAILED", error="ModelUnavailable", cause="all models down"))

    with pytest.raises(PipelineExecutionFailed) as failure:
        runner.run("query", {"question": "q"})

    assert isinstance(failure.value, DependencyError)
    assert (failure.value.error, failure.value.cause) == ("ModelUnavailable", "all models down")
    assert failure.value.execution_id == EXECUTION_ARN


def test_stepfunctions_pipeline_run_timed_out_raises_states_timeout(runner, stubber):
    stubber.add_response("start_sync_execution", _sync_reply("TIMED_OUT"))

    with pytest.raises(PipelineExecutionFailed) as failure:
        runner.run("query", {"question": "q"})

    assert failure.value.error == "States.Timeout"


def test_stepfunctions_pipeline_describe_maps_the_execution(runner, stubber):
    stubber.add_response("describe_execution", {
        "executionArn": EXECUTION_ARN, "stateMachineArn": INGEST_ARN, "name": "job-1", "status": "FAILED",
        "startDate": STARTED, "stopDate": STARTED, "input": json.dumps({"doc_key": "a.pdf"}),
        "error": "ExtractionError", "cause": "no text layer",
    }, {"executionArn": EXECUTION_ARN})

    record = runner.describe(EXECUTION_ARN)

    assert (record.pipeline, record.name, record.status) == ("ingest", "job-1", "FAILED")
    assert record.finished
    assert (record.input, record.output) == ({"doc_key": "a.pdf"}, None)
    assert (record.error, record.cause) == ("ExtractionError", "no text layer")


def test_stepfunctions_pipeline_describe_unknown_execution_raises_not_found(runner, stubber):
    stubber.add_client_error("describe_execution", "ExecutionDoesNotExist", "Execution Does Not Exist")

    with pytest.raises(NotFound):
        runner.describe(EXECUTION_ARN)


def test_stepfunctions_pipeline_unknown_pipeline_names_the_configured_ones(runner):
    with pytest.raises(ValueError, match="ingest, query"):
        runner.run("reindex", {})


def test_stepfunctions_pipeline_default_client_outwaits_an_express_execution(monkeypatch):
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")

    client = StepFunctionsPipelineRunner({"query": QUERY_ARN}).client

    assert client.meta.region_name == "eu-west-1"
    assert client.meta.config.read_timeout > 300  # Express runs up to 5 minutes; botocore's default is 60 s
