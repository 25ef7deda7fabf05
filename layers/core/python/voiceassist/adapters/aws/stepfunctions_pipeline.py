"""PipelineRunner on AWS Step Functions: Standard workflows start in the background, Express ones run in line.

Also home of the two types both runners share (ExecutionRecord, PipelineExecutionFailed): this module needs
only boto3, so the in-process runner can import it without dragging its interpreter into a Lambda.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from voiceassist.errors import Conflict, DependencyError, NotFound

RUNNING = "RUNNING"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"
TIMED_OUT = "TIMED_OUT"
ABORTED = "ABORTED"

# An Express execution runs for at most five minutes; the sync call must outwait it, not botocore's 60 s.
_SYNC_READ_TIMEOUT_SECONDS = 310


@dataclass(frozen=True)
class ExecutionRecord:
    """One execution as Step Functions' DescribeExecution reports it."""

    execution_id: str
    pipeline: str
    name: str
    status: str  # RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED
    input: Any
    started_at: datetime
    output: Any = None
    error: str | None = None
    cause: str | None = None
    stopped_at: datetime | None = None

    @property
    def finished(self) -> bool:
        return self.status != RUNNING


class PipelineExecutionFailed(DependencyError):
    """An execution ended FAILED, TIMED_OUT or ABORTED; `error` is the ASL error name (ExtractionError)."""

    def __init__(self, pipeline: str, *, error: str, cause: str, execution_id: str | None = None) -> None:
        super().__init__(f"The {pipeline} pipeline failed with {error}: {cause}")
        self.pipeline = pipeline
        self.error = error
        self.cause = cause
        self.execution_id = execution_id


def failure_of(pipeline: str, status: str, error: str | None, cause: str | None,
               execution_id: str | None = None) -> PipelineExecutionFailed:
    """The error for an execution that did not succeed; a time-out without an error name is States.Timeout."""
    default_error = "States.Timeout" if status == TIMED_OUT else f"States.{status.title()}"
    return PipelineExecutionFailed(pipeline, error=error or default_error, cause=cause or "",
                                   execution_id=execution_id)


class StepFunctionsPipelineRunner:
    """Runs pipelines on AWS Step Functions; `state_machine_arns` maps each pipeline name to its ARN."""

    def __init__(self, state_machine_arns: Mapping[str, str], client: Any | None = None) -> None:
        self._state_machine_arns = dict(state_machine_arns)
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            import boto3
            from botocore.config import Config

            self._client = boto3.client(
                "stepfunctions", config=Config(read_timeout=_SYNC_READ_TIMEOUT_SECONDS, connect_timeout=5)
            )
        return self._client

    def start(self, pipeline: str, payload: dict[str, Any], *, name: str | None = None) -> str:
        """StartExecution (Standard workflows); a name already used raises Conflict."""
        from botocore.exceptions import ClientError

        request: dict[str, Any] = {"stateMachineArn": self._arn(pipeline), "input": json.dumps(payload)}
        if name is not None:
            request["name"] = name
        try:
            response = self.client.start_execution(**request)
        except ClientError as error:
            if error.response["Error"]["Code"] == "ExecutionAlreadyExists":
                raise Conflict(f"An execution named {name!r} of {pipeline} already exists") from error
            raise DependencyError(f"Could not start the {pipeline} pipeline: {error}") from error
        return str(response["executionArn"])

    def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
        """StartSyncExecution (Express workflows); raises PipelineExecutionFailed unless it SUCCEEDED."""
        from botocore.exceptions import ClientError

        try:
            response = self.client.start_sync_execution(
                stateMachineArn=self._arn(pipeline), input=json.dumps(payload)
            )
        except ClientError as error:
            raise DependencyError(f"Could not run the {pipeline} pipeline: {error}") from error
        if response["status"] != SUCCEEDED:
            raise failure_of(pipeline, response["status"], response.get("error"), response.get("cause"),
                             response.get("executionArn"))
        output: dict[str, Any] = json.loads(response.get("output") or "null")
        return output

    def describe(self, execution_id: str) -> ExecutionRecord:
        from botocore.exceptions import ClientError

        try:
            response = self.client.describe_execution(executionArn=execution_id)
        except ClientError as error:
            if error.response["Error"]["Code"] == "ExecutionDoesNotExist":
                raise NotFound(f"No execution {execution_id}") from error
            raise DependencyError(f"Could not describe execution {execution_id}: {error}") from error
        pipelines_by_arn = {arn: pipeline for pipeline, arn in self._state_machine_arns.items()}
        return ExecutionRecord(
            execution_id=response["executionArn"],
            pipeline=pipelines_by_arn.get(response["stateMachineArn"], response["stateMachineArn"]),
            name=response["name"],
            status=response["status"],
            input=json.loads(response.get("input") or "null"),
            started_at=response["startDate"],
            output=json.loads(response["output"]) if "output" in response else None,
            error=response.get("error"),
            cause=response.get("cause"),
            stopped_at=response.get("stopDate"),
        )

    def execution_id_for(self, pipeline: str, name: str) -> str:
        """The ARN an execution started with `name` will have (known before StartExecution returns)."""
        return f"{self._arn(pipeline).replace(':stateMachine:', ':execution:', 1)}:{name}"

    def _arn(self, pipeline: str) -> str:
        try:
            return self._state_machine_arns[pipeline]
        except KeyError:
            known = ", ".join(sorted(self._state_machine_arns))
            raise ValueError(f"No state machine for pipeline {pipeline!r}; configured: {known}") from None
