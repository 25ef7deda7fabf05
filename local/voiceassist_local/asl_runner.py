"""PipelineRunner in-process: the same ASL files as on AWS, run by moto's Step Functions interpreter.

moto's interpreter (a port of LocalStack's) is an independent implementation of ASL: Choice, Parallel, Map,
Retry, Catch, TimeoutSeconds, ResultSelector and intrinsics behave as on AWS without our own copy of the
semantics. We call it directly instead of through `mock_aws`: mock_aws costs ~100 ms per execution (a boto3
client and an HTTP round trip per task) and patches botocore for the whole process, while the direct call
costs ~3 ms for six Lambda tasks (each JSONPath evaluated adds ~0.3 ms: jsonpath_ng rebuilds its parser) and
patches nothing. The seam is per parsed program: every Lambda task of OUR program
gets an invoke that calls a Python handler with Lambda's contract (JSON in, JSON out, an exception becomes a
function error whose errorType is the exception's class name, so `"ErrorEquals": ["ExtractionError"]` works).
Bulky fields that no path of the definition reads travel between tasks by reference (state_references.py).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for_futures
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# isort: split
from voiceassist_local import moto_interpreter  # noqa: F401 - first: moto's interpreter without its Batch backend

# isort: split
from botocore.exceptions import ClientError
from moto.stepfunctions.parser.api import StateMachineType
from moto.stepfunctions.parser.asl.component.common.retry.retrier_decl import RetrierDecl
from moto.stepfunctions.parser.asl.component.component import Component
from moto.stepfunctions.parser.asl.component.eval_component import EvalComponent
from moto.stepfunctions.parser.asl.component.state.exec.state_task.lambda_eval_utils import (
    LambdaFunctionErrorException,
    to_payload_type,
)
from moto.stepfunctions.parser.asl.component.state.exec.state_task.service.resource import Resource
from moto.stepfunctions.parser.asl.component.state.exec.state_task.service.state_task_service_lambda import (
    StateTaskServiceLambda,
)
from moto.stepfunctions.parser.asl.component.state.exec.state_task.state_task_lambda import StateTaskLambda
from moto.stepfunctions.parser.asl.eval.environment import Environment
from moto.stepfunctions.parser.asl.eval.evaluation_details import AWSExecutionDetails
from moto.stepfunctions.parser.asl.eval.event.event_manager import EventHistoryContext
from moto.stepfunctions.parser.asl.eval.program_state import (
    ProgramEnded,
    ProgramError,
    ProgramStopped,
    ProgramTimedOut,
)
from moto.stepfunctions.parser.asl.eval.states import ContextObjectData, ExecutionData, StateMachineData
from moto.stepfunctions.parser.asl.parse.asl_parser import AmazonStateLanguageParser
from moto.stepfunctions.parser.utils import TMP_THREADS

from voiceassist.adapters.aws.stepfunctions_pipeline import (
    ABORTED,
    FAILED,
    RUNNING,
    SUCCEEDED,
    TIMED_OUT,
    ExecutionRecord,
    failure_of,
)
from voiceassist.errors import Conflict, NotFound
from voiceassist_local.interpreter_shortcuts import json_round_trip
from voiceassist_local.state_references import StateReferences, names_read_by

LambdaHandler = Callable[[Any, Any], Any]

_REGION = "us-east-1"
_ACCOUNT = "000000000000"
_ROLE_ARN = f"arn:aws:iam::{_ACCOUNT}:role/local-pipeline-runner"
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
_LAMBDA_TIMEOUT_SECONDS = 900  # Lambda's maximum: what a handler's context reports as its budget
# moto logs every task error, even one a Retry or Catch handles, at ERROR with a dump of the state tree, once
# per enclosing component; our runner reports failures itself (ExecutionRecord, PipelineExecutionFailed).
_INTERPRETER_ERROR_LOGGER = "moto.stepfunctions.parser.asl.component.eval_component"


def execution_arn(pipeline: str, name: str) -> str:
    """An execution's id, as Step Functions derives it from the state machine and the execution's name."""
    return f"arn:aws:states:{_REGION}:{_ACCOUNT}:execution:{pipeline}:{name}"


_tracing_lock = threading.Lock()
_tracing = 0  # executions being traced: while any is, the history records each state's data (JSON)


def history_records_state_data() -> bool:
    """Whether a state's input and output go into the execution history as JSON (as on AWS): while a trace()
    runs. Other runs read no history, and the local speedups leave the serializing out then."""
    return _tracing > 0


def function_arn(name: str) -> str:
    return f"arn:aws:lambda:{_REGION}:{_ACCOUNT}:function:{name}"


@dataclass(frozen=True)
class LocalLambdaContext:
    """The attributes of Lambda's context object that handlers and Powertools read."""

    function_name: str
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    memory_limit_in_mb: int = 1024
    function_version: str = "$LATEST"
    deadline: float = field(default_factory=lambda: time.monotonic() + _LAMBDA_TIMEOUT_SECONDS)

    @property
    def invoked_function_arn(self) -> str:
        return function_arn(self.function_name)

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return f"local/{self.aws_request_id}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


class _LambdaInvoker:
    """Lambda's Invoke contract over in-process handlers, in the shape moto's Lambda tasks expect back."""

    def __init__(self, handlers: Mapping[str, LambdaHandler]) -> None:
        self._handlers = dict(handlers)

    def invoke(self, function_name: str, payload: Any, expand: Callable[[str], str] | None = None
               ) -> dict[str, Any]:
        """`expand` rewrites the payload's JSON before the handler reads it (the state references' tokens)."""
        name = function_name.split(":")[6] if function_name.startswith("arn:") else function_name
        handler = self._handlers.get(name)
        if handler is None:
            not_found = {"Code": "ResourceNotFoundException", "Message": f"No function {name}"}
            raise ClientError({"Error": not_found,
                               "ResponseMetadata": {"HTTPStatusCode": 404, "RequestId": "local"}}, "Invoke")
        context = LocalLambdaContext(function_name=name)
        try:
            event = to_payload_type(payload) or b"{}"
            result = handler(json.loads(expand(event.decode()) if expand is not None else event), context)
        except Exception as error:
            raise _function_error(type(error).__name__, str(error), context, error) from error
        try:
            # The round trip is what Lambda does to a result: it must be JSON, and callers get a copy.
            result = json_round_trip(result)
        except (TypeError, ValueError) as error:
            message = f"Unable to marshal response: {error}"
            raise _function_error("Runtime.MarshalError", message, context) from error
        return {"ExecutedVersion": "$LATEST", "Payload": result, "StatusCode": 200}


def _function_error(error_type: str, message: str, context: LocalLambdaContext,
                    error: BaseException | None = None) -> LambdaFunctionErrorException:
    body: dict[str, Any] = {"errorMessage": message, "errorType": error_type,
                            "requestId": context.aws_request_id}
    if error is not None:
        body["stackTrace"] = traceback.format_tb(error.__traceback__)
    return LambdaFunctionErrorException("Unhandled", json.dumps(body))


def _components(root: Component) -> Iterator[Component]:
    """Every component of a parsed program, depth first (Parallel branches and Map processors included)."""
    seen: set[int] = set()
    pending: list[Any] = [root]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Component):
            yield node
            pending.extend(vars(node).values())
        elif isinstance(node, list | tuple | set):
            pending.extend(node)
        elif isinstance(node, dict):
            pending.extend(node.values())


def _execution_id(env: Environment) -> str:
    return str(env.states.context_object.context_object_data["Execution"]["Id"])


def _payload_expander(task: StateTaskLambda | StateTaskServiceLambda, env: Environment,
                      references: StateReferences | None) -> Callable[[str], str] | None:
    """The payload's JSON with this execution's references expanded, checked against the state quota whole."""
    if references is None:
        return None
    execution_id = _execution_id(env)

    def expand(text: str) -> str:
        expanded = references.expand(execution_id, text)
        if len(expanded) != len(text):
            task._verify_size_quota(env=env, value=expanded)  # type: ignore[arg-type]
        return expanded

    return expand


def _bind_direct_lambda_task(task: StateTaskLambda, invoker: _LambdaInvoker,
                             references: StateReferences | None) -> None:
    """"Resource": "<function arn>": the task's result is the function's payload."""

    def eval_execution(env: Environment) -> None:
        parameters = task._eval_parameters(env=env)
        response = invoker.invoke(parameters["FunctionName"], parameters["Payload"],
                                  _payload_expander(task, env, references))
        task._verify_size_quota(env=env, value=response)
        payload = response["Payload"]
        env.stack.append(payload if references is None else references.refer(_execution_id(env), payload))

    setattr(task, "_eval_execution", eval_execution)  # noqa: B010 (instance-level: no other program sees it)


def _bind_lambda_invoke_integration(task: StateTaskServiceLambda, invoker: _LambdaInvoker,
                                    references: StateReferences | None) -> None:
    """"Resource": "arn:aws:states:::lambda:invoke": the result is Invoke's response, Payload inside (whole:
    its fields are read through $.Payload)."""

    def eval_service_task(env: Environment, normalised_parameters: dict[str, Any], **_: Any) -> None:
        function_name, payload = normalised_parameters["FunctionName"], normalised_parameters.get("Payload")
        env.stack.append(invoker.invoke(function_name, payload, _payload_expander(task, env, references)))

    setattr(task, "_eval_service_task", eval_service_task)  # noqa: B010


def _scale_retry_intervals(retrier: RetrierDecl, scale: float) -> None:
    """Tests shrink Retry waits; jitter is the last step to touch the interval before the retrier sleeps."""
    jitter = retrier.jitter_strategy
    compute_jitter = jitter._eval_body

    def scaled_jitter(env: Environment) -> None:
        compute_jitter(env)
        env.stack.append(env.stack.pop() * scale)

    setattr(jitter, "_eval_body", scaled_jitter)  # noqa: B010


def compile_definition(definition: str, invoker: _LambdaInvoker, retry_interval_scale: float,
                       references: StateReferences | None = None) -> EvalComponent:
    program: EvalComponent = AmazonStateLanguageParser.parse(definition)[0]
    for component in _components(program):
        if isinstance(component, StateTaskServiceLambda):
            if component.resource.api_action.lower() != "invoke" or component.resource.condition is not None:
                raise ValueError(f"Only lambda:invoke runs locally, not {component.resource.resource_arn}")
            _bind_lambda_invoke_integration(component, invoker, references)
        elif isinstance(component, StateTaskLambda):
            _bind_direct_lambda_task(component, invoker, references)
        elif isinstance(resource := getattr(component, "resource", None), Resource):
            # Any other service integration (a Task, a Distributed Map's ItemReader) would call AWS for real.
            raise ValueError(f"Only Lambda tasks run locally, not {resource.resource_arn}")
        elif isinstance(component, RetrierDecl) and retry_interval_scale != 1:
            _scale_retry_intervals(component, retry_interval_scale)
    return program


def substitute_placeholders(template: str, values: Mapping[str, str], source: str) -> str:
    missing = sorted(set(_PLACEHOLDER.findall(template)) - set(values))
    if missing:
        raise ValueError(f"{source} uses placeholders without a task or substitution: {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


class LocalPipelineRunner:
    """Runs each pipeline's ASL file in-process; Task resources `${Name}` call `tasks[Name](event, context)`.

    `substitutions` fills any other `${Name}` placeholders (like CDK's definitionSubstitutions).
    `retry_interval_scale` multiplies every Retry wait (tests pass 0 so retries do not sleep).
    """

    def __init__(self, definitions: Mapping[str, Path], tasks: Mapping[str, LambdaHandler], *,
                 substitutions: Mapping[str, str] | None = None, retry_interval_scale: float = 1.0,
                 max_concurrent_executions: int = 2) -> None:
        logging.getLogger(_INTERPRETER_ERROR_LOGGER).setLevel(logging.CRITICAL)
        invoker = _LambdaInvoker(tasks)
        values = {name: function_arn(name) for name in tasks} | dict(substitutions or {})
        self._programs: dict[str, EvalComponent] = {}
        self._references: dict[str, StateReferences | None] = {}
        for pipeline, path in definitions.items():
            definition = substitute_placeholders(Path(path).read_text(encoding="utf-8"), values, str(path))
            try:
                names_read = names_read_by(definition)
                references = StateReferences(names_read) if names_read is not None else None
                self._references[pipeline] = references
                self._programs[pipeline] = compile_definition(definition, invoker, retry_interval_scale, references)
            except Exception as error:  # the parser raises bare exceptions; name the file that failed
                raise ValueError(f"{path} is not a runnable state machine: {error!r}") from error
        self._executor = ThreadPoolExecutor(max_concurrent_executions, thread_name_prefix="local-pipeline")
        self._lock = threading.Lock()
        self._records: dict[str, ExecutionRecord] = {}
        self._futures: dict[str, Future[None]] = {}
        self._closed = False

    def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Runs an Express-style execution in this thread; raises PipelineExecutionFailed if it fails."""
        name = uuid.uuid4().hex
        record = self._execute(self._new_record(pipeline, name, payload), StateMachineType.EXPRESS)
        if record.status != SUCCEEDED:
            raise failure_of(pipeline, record.status, record.error, record.cause, record.execution_id)
        output: dict[str, Any] = record.output
        return output

    def trace(self, pipeline: str, payload: dict[str, Any]) -> ExecutionTrace:
        """Runs an Express-style execution as run() does, and returns the states it entered, in order, with the
        size of the state each one received (its input, as Step Functions' history records it: JSON without
        spaces). Map iterations are states too (an iteration's task is a state of its own on AWS)."""
        global _tracing
        with _tracing_lock:
            _tracing += 1
        try:
            record, env = self._execute_with_env(self._new_record(pipeline, uuid.uuid4().hex, payload),
                                                 StateMachineType.EXPRESS)
        finally:
            with _tracing_lock:
                _tracing -= 1
        if record.status != SUCCEEDED:
            raise failure_of(pipeline, record.status, record.error, record.cause, record.execution_id)
        visits: list[StateVisit] = []
        open_visits: dict[str, list[tuple[int, datetime]]] = {}
        for event in env.event_manager.get_event_history():
            at = datetime.fromisoformat(str(event["timestamp"]))
            if (entered := event.get("stateEnteredEventDetails")) is not None:
                open_visits.setdefault(entered["name"], []).append((len(visits), at))
                visits.append(StateVisit(entered["name"], len(str(entered.get("input") or "").encode())))
            elif (exited := event.get("stateExitedEventDetails")) is not None and open_visits.get(exited["name"]):
                index, since = open_visits[exited["name"]].pop()
                visits[index] = replace(visits[index], milliseconds=(at - since).total_seconds() * 1000)
        return ExecutionTrace(output=record.output, states=visits)

    def start(self, pipeline: str, payload: dict[str, Any], *, name: str | None = None) -> str:
        """Starts a Standard-style execution in the background; a reused name behaves as StartExecution."""
        record = self._new_record(pipeline, name or uuid.uuid4().hex, payload)
        with self._lock:
            if self._closed:
                raise RuntimeError("The local pipeline runner is closed")
            existing = self._records.get(record.execution_id)
            if existing is not None:
                if existing.status == RUNNING and existing.input == record.input:
                    return existing.execution_id  # StartExecution is idempotent for a running twin
                raise Conflict(f"An execution named {record.name!r} of {pipeline} already exists")
            self._records[record.execution_id] = record
            self._futures[record.execution_id] = self._executor.submit(self._execute_recorded, record)
        return record.execution_id

    def execution_id_for(self, pipeline: str, name: str) -> str:
        """The id an execution started with `name` will have, as Step Functions' runner tells it in advance."""
        return execution_arn(pipeline, name)

    def describe(self, execution_id: str) -> ExecutionRecord:
        with self._lock:
            record = self._records.get(execution_id)
        if record is None:
            raise NotFound(f"No execution {execution_id}")
        return record

    def list_executions(self, pipeline: str | None = None, status: str | None = None
                        ) -> list[ExecutionRecord]:
        """Executions started with start(), oldest first."""
        with self._lock:
            records = list(self._records.values())
        return [r for r in records if pipeline in (None, r.pipeline) and status in (None, r.status)]

    def wait(self, execution_id: str, timeout: float | None = None) -> ExecutionRecord:
        """Blocks until the execution finishes; raises TimeoutError if it is still running after `timeout`."""
        self.describe(execution_id)
        if wait_for_futures([self._futures[execution_id]], timeout).not_done:
            raise TimeoutError(f"Execution {execution_id} still running after {timeout} s")
        return self.describe(execution_id)

    def join(self, timeout: float | None = None) -> None:
        """Blocks until every started execution has finished."""
        with self._lock:
            futures = list(self._futures.values())
        if wait_for_futures(futures, timeout).not_done:
            raise TimeoutError(f"Executions still running after {timeout} s")

    def close(self) -> None:
        """Waits for running executions, aborts queued ones, and refuses new starts."""
        with self._lock:
            self._closed = True
        self._executor.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            for execution_id, future in self._futures.items():
                if future.cancelled():
                    self._records[execution_id] = replace(self._records[execution_id], status=ABORTED,
                                                          stopped_at=datetime.now(UTC))

    def __enter__(self) -> LocalPipelineRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _new_record(self, pipeline: str, name: str, payload: dict[str, Any]) -> ExecutionRecord:
        if pipeline not in self._programs:
            known = ", ".join(sorted(self._programs))
            raise ValueError(f"No definition for pipeline {pipeline!r}; configured: {known}")
        return ExecutionRecord(
            execution_id=execution_arn(pipeline, name),
            pipeline=pipeline, name=name, status=RUNNING,
            input=json.loads(json.dumps(payload)),  # JSON as on AWS: a copy the caller cannot mutate
            started_at=datetime.now(UTC),
        )

    def _execute_recorded(self, record: ExecutionRecord) -> None:
        try:
            finished = self._execute(record, StateMachineType.STANDARD)
        except Exception as error:  # an interpreter fault must not leave the record RUNNING forever
            finished = replace(record, status=FAILED, error="States.Runtime", cause=repr(error),
                               stopped_at=datetime.now(UTC))
        with self._lock:
            self._records[record.execution_id] = finished

    def _execute(self, record: ExecutionRecord, execution_type: StateMachineType) -> ExecutionRecord:
        return self._execute_with_env(record, execution_type)[0]

    def _execute_with_env(self, record: ExecutionRecord, execution_type: StateMachineType
                          ) -> tuple[ExecutionRecord, Environment]:
        state_machine_arn = f"arn:aws:states:{_REGION}:{_ACCOUNT}:stateMachine:{record.pipeline}"
        # State, Task and Map are filled in by the interpreter as it enters them, as in moto's own worker.
        context = ContextObjectData(  # type: ignore[typeddict-item]
            Execution=ExecutionData(Id=record.execution_id, Input=record.input, Name=record.name,
                                    RoleArn=_ROLE_ARN, StartTime=record.started_at.isoformat()),
            StateMachine=StateMachineData(Id=state_machine_arn, Name=record.pipeline),
        )
        env = Environment(
            aws_execution_details=AWSExecutionDetails(account=_ACCOUNT, region=_REGION, role_arn=_ROLE_ARN),
            execution_type=execution_type,
            context=context,
            event_history_context=EventHistoryContext.of_program_start(),
            cloud_watch_logging_session=None,
            activity_store={},
        )
        references = None if history_records_state_data() else self._references[record.pipeline]
        if references is not None:  # a trace's history records the states as AWS carries them: whole
            references.open(record.execution_id)
        try:
            self._programs[record.pipeline].eval(env)
            finished = _finished_record(record, env)
            if references is not None and finished.output is not None:
                finished = replace(finished, output=json.loads(
                    references.expand(record.execution_id, json.dumps(finished.output))))
        finally:
            _forget_finished_interpreter_threads()
            if references is not None:
                references.close(record.execution_id)
        return finished, env


@dataclass(frozen=True)
class StateVisit:
    """A state an execution entered, and the bytes of the state it received."""

    name: str
    input_bytes: int
    milliseconds: float | None = None  # entered to exited, as the history records them (to the millisecond)


@dataclass(frozen=True)
class ExecutionTrace:
    """What LocalPipelineRunner.trace saw: the execution's output and every state entered, in order."""

    output: dict[str, Any]
    states: list[StateVisit]

    @property
    def state_bytes(self) -> int:
        return sum(visit.input_bytes for visit in self.states)


def _finished_record(record: ExecutionRecord, env: Environment) -> ExecutionRecord:
    state = env.program_state()
    stopped = replace(record, stopped_at=datetime.now(UTC))
    if isinstance(state, ProgramEnded):
        return replace(stopped, status=SUCCEEDED, output=env.states.get_input())
    if isinstance(state, ProgramError):
        details = state.error or {}
        return replace(stopped, status=FAILED, error=details.get("error"), cause=details.get("cause"))
    if isinstance(state, ProgramTimedOut):
        return replace(stopped, status=TIMED_OUT, error="States.Timeout")
    if isinstance(state, ProgramStopped):
        return replace(stopped, status=ABORTED, error=state.error, cause=state.cause)
    raise RuntimeError(f"Execution ended in an unknown state {state!r}")


def _forget_finished_interpreter_threads() -> None:
    """moto appends every thread it starts to a module list it never reads; drop the finished ones. Executions
    finishing at once sweep together: a thread another sweep removed first is already gone."""
    for thread in list(TMP_THREADS):
        if not thread.is_alive():
            with contextlib.suppress(ValueError):
                TMP_THREADS.remove(thread)
