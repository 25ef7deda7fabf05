"""The local PipelineRunner: the real ASL files, executed in-process, with Lambda tasks calling the handlers."""

from __future__ import annotations

import copy
import functools
import pickle
import threading
import types
from collections.abc import Callable
from typing import Any

from voiceassist.models import IndexingJob
from voiceassist.ports import PipelineRunner
from voiceassist_local.api_turns import outside_api_turn
from voiceassist_local.handlers import function_names, load_handler, placeholder_for
from voiceassist_local.interpreter_shortcuts import keep_history_only_while_tracing, read_plain_paths_directly
from voiceassist_local.interpreter_threads import run_interpreter_threads_on_a_pool
from voiceassist_local.resources import statemachine_file

PIPELINES = {"ingest": statemachine_file("ingest"), "query": statemachine_file("query")}
JSONPATH_CACHE_SIZE = 512
_speedups_lock = threading.Lock()
_speedups_installed = False


def local_pipeline_runner() -> PipelineRunner:
    from voiceassist_local.asl_runner import LocalPipelineRunner

    class LocalRunner(LocalPipelineRunner):
        def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
            self.preload(pipeline)
            with outside_api_turn():  # a question does not hold up the server's other requests
                if pipeline == "query":
                    read_ahead_of(payload)
                return super().run(pipeline, payload)

        def preload(self, pipeline: str) -> None:
            """Import the query's handlers before its execution starts: its steps have time-outs of seconds
            (query.asl.json), which an import inside a step could eat. Cached after the first call."""
            if pipeline == "query":
                for name in function_names():
                    if name.startswith("query_"):
                        load_handler(name)

        def job_liveness(self, job: IndexingJob) -> bool:
            """Whether an ingestion execution of this job is queued or running in this process."""
            return job.job_id in running_ingest_jobs(self)

    install_interpreter_speedups()
    # Every handler is imported on first use (an ingestion never imports the query's, a question never the
    # ingestion's or MCP's); the query's before its execution starts (LocalRunner.preload).
    tasks = {placeholder_for(name): lazy_handler(name) for name in function_names() if name != "api"}
    return LocalRunner(PIPELINES, tasks, max_concurrent_executions=4)


def read_ahead_of(payload: dict[str, Any]) -> None:
    """Start work the question's steps will ask for beside them (query/read_ahead.py), in the dependencies its
    handlers use: with the PHI detector in a worker process of its own, the detection and the knowledge-base
    search; with it in this process, the question's embeddings (query/embedding_ahead.py)."""
    from voiceassist.composition import dependencies
    from voiceassist.query.embedding_ahead import embed_ahead
    from voiceassist.query.retrieval import search_ahead
    from voiceassist.query.state import QueryState

    deps = dependencies()
    if deps.settings.phi_worker_process:
        search_ahead(deps.query, QueryState.model_validate(payload))
    elif isinstance(question := payload.get("request", {}).get("query"), str):
        embed_ahead(deps.query, question)


def lazy_handler(function_name: str) -> Callable[[dict[str, Any], Any], Any]:
    """The function's handler, imported on its first invocation: a question never imports the ingestion or MCP
    functions (seconds of start-up for `voiceassist ask`)."""
    def handler(event: dict[str, Any], context: Any) -> Any:
        return load_handler(function_name)(event, context)

    handler.__name__ = f"{function_name}_handler"
    return handler


def running_ingest_jobs(runner: Any) -> set[str]:
    """Job ids of the ingest executions still queued or running: API uploads and retries pass the job id;
    an S3-style trigger's job id is derived from its execution id (voiceassist.ingest.registration)."""
    from voiceassist.ingest.registration import registration_job_id

    jobs: set[str] = set()
    for record in runner.list_executions("ingest", "RUNNING"):
        jobs.add(str(record.input.get("job_id") or registration_job_id(record.execution_id)))
    return jobs


def install_interpreter_speedups() -> None:
    """Halve the CPU cost of moto's ASL interpreter per execution, without changing what it computes.

    moto builds a new ply parser for every JSONPath it evaluates (about a dozen per query) and copies the
    state with copy.deepcopy at every step (a query state with ten hits is ~17 KB: ~45k deepcopy calls per
    execution). Parsed JSONPath expressions are never mutated, so they are cached; state values are JSON, so
    the modules that copy them get a JSON copy (anything that is not JSON still goes to copy.deepcopy). The
    threads it starts per execution, Map iteration and Task come from a pool (interpreter_threads.py).
    Process-wide and idempotent; bench/query.py measures it (--plain-interpreter runs without it).
    """
    global _speedups_installed
    with _speedups_lock:
        if _speedups_installed:
            return
        import jsonpath_ng
        import jsonpath_ng.ext
        from moto.stepfunctions.parser.asl.component.common.path import result_path
        from moto.stepfunctions.parser.asl.component.common.string import string_expression
        from moto.stepfunctions.parser.asl.component.state.exec import execute_state
        from moto.stepfunctions.parser.asl.component.state.exec.state_map import state_map
        from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration import job
        from moto.stepfunctions.parser.asl.component.state.exec.state_parallel import state_parallel
        from moto.stepfunctions.parser.asl.eval import environment, states
        from moto.stepfunctions.parser.asl.utils import json_path

        json_path.parse = functools.lru_cache(maxsize=JSONPATH_CACHE_SIZE)(jsonpath_ng.ext.parse)
        result_path.parse = functools.lru_cache(maxsize=JSONPATH_CACHE_SIZE)(jsonpath_ng.parse)
        json_copy = types.SimpleNamespace(deepcopy=copy_json)
        for module in (states, string_expression, result_path, execute_state, state_parallel, state_map, job,
                       environment):
            setattr(module, "copy", json_copy)  # noqa: B010 - replaces the module's reference only
        _leave_state_data_out_of_history()
        _check_size_quota_by_bound()
        run_interpreter_threads_on_a_pool()
        read_plain_paths_directly()
        from voiceassist_local.asl_runner import history_records_state_data

        keep_history_only_while_tracing(history_records_state_data)
        _speedups_installed = True


# The JSON moto measures (json.dumps: ", " and ": " separators, non-ASCII as \uXXXX escapes) is at most this many
# times the bytes of the compact UTF-8 JSON of the same value: a character is at most 3x (a 4-byte character
# becomes a 12-byte surrogate pair), each separator adds one byte, a float's or a date's text at most doubles.
_MEASURED_TO_COMPACT = 8


def _check_size_quota_by_bound() -> None:
    """moto checks every state's data and every task's result against the 256 KB quota by serializing it with the
    standard json module (~20 times a query). The compact JSON of pydantic-core (Rust) bounds that size from
    above, so a value far below the quota is passed without the slow dump, and one near it (or one pydantic-core
    will not serialize) is measured exactly as moto does. Same decisions, less CPU."""
    import pydantic_core
    from moto.stepfunctions.parser import quotas
    from moto.stepfunctions.parser.asl.component.state import state
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import state_task_lambda
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import state_task_service

    exact = quotas.is_within_size_quota

    def is_within_size_quota(value: Any) -> bool:
        if not isinstance(value, str):
            try:
                compact = len(pydantic_core.to_json(value))
            except Exception:  # noqa: BLE001 - not plain JSON data: measure it as moto does
                return exact(value)
            if compact * _MEASURED_TO_COMPACT < quotas.MAX_STATE_SIZE_UTF8_BYTES:
                return True
        return exact(value)

    for module in (state, state_task_lambda, state_task_service):
        setattr(module, "is_within_size_quota", is_within_size_quota)  # noqa: B010 - the module's reference


def _leave_state_data_out_of_history() -> None:
    """moto writes every state's input and output into the execution history as JSON, entering and leaving it
    (two copies and two serializations of the whole state per state: ~13 % of the interpreter's CPU, py-spy).
    Nothing reads that data outside LocalPipelineRunner.trace, so it is recorded only while a trace runs; the
    events themselves (state names, order, times) are always recorded."""
    from moto.stepfunctions.parser.api import (
        HistoryEventExecutionDataDetails,
        StateEnteredEventDetails,
        StateExitedEventDetails,
    )
    from moto.stepfunctions.parser.asl.component.state.state import CommonStateField

    from voiceassist_local.asl_runner import history_records_state_data

    entered, exited = (CommonStateField._get_state_entered_event_details,
                       CommonStateField._get_state_exited_event_details)

    def entered_details(state: Any, env: Any) -> Any:
        if history_records_state_data():
            return entered(state, env)
        return StateEnteredEventDetails(name=state.name, input="",
                                        inputDetails=HistoryEventExecutionDataDetails(truncated=False))

    def exited_details(state: Any, env: Any) -> Any:
        if history_records_state_data():
            return exited(state, env)
        details = StateExitedEventDetails(name=state.name, output="",
                                          outputDetails=HistoryEventExecutionDataDetails(truncated=False))
        assigned = env.variable_store.get_assigned_variables()  # as moto's own, the state data aside
        env.variable_store.reset_tracing()
        if assigned:
            details["assignedVariables"] = assigned  # type: ignore[typeddict-unknown-key]
            details["assignedVariablesDetails"] = {"truncated": False}  # type: ignore[typeddict-unknown-key]
        return details

    setattr(CommonStateField, "_get_state_entered_event_details", entered_details)  # noqa: B010
    setattr(CommonStateField, "_get_state_exited_event_details", exited_details)  # noqa: B010


def copy_json(value: Any) -> Any:
    """A deep copy of state values (JSON data: dicts, lists, strings, numbers, booleans, None), through pickle's
    C implementation: about 4.5x faster than a copy in Python and 8x faster than copy.deepcopy on a 14 KB query
    state (68 us against 316 and 557, timeit). Anything pickle refuses is handed to copy.deepcopy."""
    kind = type(value)
    if kind in (str, int, float, bool) or value is None:
        return value
    try:
        return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - not picklable (a lock, a generator): deepcopy decides
        return copy.deepcopy(value)
