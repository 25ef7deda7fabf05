"""LocalPipelineRunner: toy ASL files run in-process with Python callables as their Lambda tasks."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.core.models import botocore_stubber
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.pipelines import install_interpreter_speedups

from voiceassist.adapters.aws.stepfunctions_pipeline import PipelineExecutionFailed
from voiceassist.errors import Conflict, DependencyError, ExtractionError
from voiceassist.ports import PipelineRunner

ASL = Path(__file__).parents[1] / "fixtures" / "asl"


class TransientError(Exception):
    pass


Handler = Callable[[Any, Any], Any]


@pytest.fixture
def make_runner() -> Iterator[Callable[..., LocalPipelineRunner]]:
    runners: list[LocalPipelineRunner] = []

    def make(fixture: str, tasks: dict[str, Handler], **options: Any) -> LocalPipelineRunner:
        runner = LocalPipelineRunner({"toy": ASL / fixture}, tasks, retry_interval_scale=0, **options)
        runners.append(runner)
        return runner

    yield make
    for runner in runners:
        runner.close()


def _sequence_tasks(seen_contexts: list[Any] | None = None) -> dict[str, Handler]:
    def normalize(event: dict[str, Any], context: Any) -> dict[str, Any]:
        if seen_contexts is not None:
            seen_contexts.append(context)
        return {"text": " ".join(event["text"].split()).lower()}

    return {
        "NormalizeFunctionArn": normalize,
        "CountWordsFunctionArn": lambda event, context: {"words": len(event["text"].split())},
    }


def test_local_pipeline_runs_tasks_in_sequence_through_both_task_forms(make_runner):
    runner = make_runner("sequence.asl.json", _sequence_tasks())

    output = runner.run("toy", {"document": {"text": "  Aspirin   DOSING in Adults ", "source": "who"}})

    assert output == {"text": "aspirin dosing in adults", "words": 4, "source": "who"}
    assert isinstance(runner, PipelineRunner)


def test_local_pipeline_lambda_invoke_integration_names_errors_by_class(make_runner):
    def count_words(event: dict[str, Any], context: Any) -> dict[str, Any]:
        raise ExtractionError("tokenizer missing")

    runner = make_runner("sequence.asl.json", {**_sequence_tasks(), "CountWordsFunctionArn": count_words})

    with pytest.raises(PipelineExecutionFailed) as failure:
        runner.run("toy", {"document": {"text": "a b", "source": "s"}})

    assert failure.value.error == "ExtractionError"
    assert json.loads(failure.value.cause)["errorMessage"] == "tokenizer missing"


def test_local_pipeline_gives_handlers_a_lambda_context(make_runner):
    contexts: list[Any] = []
    runner = make_runner("sequence.asl.json", _sequence_tasks(contexts))

    runner.run("toy", {"document": {"text": "x", "source": "s"}})

    assert contexts[0].function_name == "NormalizeFunctionArn"
    assert contexts[0].invoked_function_arn.endswith(":function:NormalizeFunctionArn")
    assert contexts[0].get_remaining_time_in_millis() > 0


def test_local_pipeline_choice_routes_by_input(make_runner):
    answer: Handler = lambda event, context: {"reply": "answered"}  # noqa: E731
    runner = make_runner("choice.asl.json", {"AnswerFunctionArn": answer})

    assert runner.run("toy", {"intent": "clarify", "confidence": 0.9}) == {
        "reply": "Which patient population do you mean?"}
    assert runner.run("toy", {"intent": "dosing", "confidence": 0.2})["reply"].startswith("Which")
    assert runner.run("toy", {"intent": "dosing", "confidence": 0.9}) == {"reply": "answered"}


def test_local_pipeline_runs_parallel_branches_and_map_items(make_runner):
    runner = make_runner("parallel_map.asl.json", {
        "SearchGuidelinesFunctionArn": lambda event, context: {"source": "guidelines", "q": event["q"]},
        "SearchPubMedFunctionArn": lambda event, context: {"source": "pubmed", "q": event["q"]},
        "EmbedChunkFunctionArn": lambda event, context: {"at": event["position"], "size": len(event["text"])},
    })

    output = runner.run("toy", {"q": "statins", "chunks": ["a", "bb", "ccc"]})

    assert output["results"] == [{"source": "guidelines", "q": "statins"},
                                 {"source": "pubmed", "q": "statins"}]
    assert output["embedded"] == [{"at": 0, "size": 1}, {"at": 1, "size": 2}, {"at": 2, "size": 3}]


def _retry_catch_tasks(extract: Handler, failures: list[dict[str, Any]]) -> dict[str, Handler]:
    def mark_job_failed(event: dict[str, Any], context: Any) -> dict[str, Any]:
        failures.append(event["failure"])
        return {"job": event["job"], "state": "FAILED"}

    return {"ExtractFunctionArn": extract, "MarkJobFailedFunctionArn": mark_job_failed}


def test_local_pipeline_retries_a_named_error_then_succeeds(make_runner):
    attempts: list[int] = []

    def flaky_extract(event: dict[str, Any], context: Any) -> dict[str, Any]:
        attempts.append(1)
        if len(attempts) < 3:
            raise TransientError("endpoint throttled")
        return {"pages": 2}

    runner = make_runner("retry_catch.asl.json", _retry_catch_tasks(flaky_extract, []))

    output = runner.run("toy", {"job": "j1"})

    assert len(attempts) == 3
    assert output == {"job": "j1", "extracted": {"pages": 2}}


def test_local_pipeline_gives_up_after_max_attempts(make_runner):
    attempts: list[int] = []

    def always_throttled(event: dict[str, Any], context: Any) -> dict[str, Any]:
        attempts.append(1)
        raise TransientError("endpoint throttled")

    runner = make_runner("retry_catch.asl.json", _retry_catch_tasks(always_throttled, []))

    with pytest.raises(PipelineExecutionFailed) as failure:
        runner.run("toy", {"job": "j1"})

    assert len(attempts) == 4  # the first attempt and three retries
    assert failure.value.error == "TransientError"


def test_local_pipeline_catches_python_error_by_class_name(make_runner):
    failures: list[dict[str, Any]] = []

    def unreadable(event: dict[str, Any], context: Any) -> dict[str, Any]:
        raise ExtractionError("scanned PDF without a text layer")

    runner = make_runner("retry_catch.asl.json", _retry_catch_tasks(unreadable, failures))

    output = runner.run("toy", {"job": "j1"})

    assert output == {"job": "j1", "state": "FAILED"}
    assert failures[0]["Error"] == "ExtractionError"
    cause = json.loads(failures[0]["Cause"])
    assert cause["errorType"] == "ExtractionError"
    assert cause["errorMessage"] == "scanned PDF without a text layer"


def test_local_pipeline_raises_dependency_error_for_uncaught_task_error(make_runner):
    def broken(event: dict[str, Any], context: Any) -> dict[str, Any]:
        raise KeyError("pages")

    runner = make_runner("retry_catch.asl.json", _retry_catch_tasks(broken, []))

    with pytest.raises(DependencyError) as failure:
        runner.run("toy", {"job": "j1"})

    assert isinstance(failure.value, PipelineExecutionFailed)
    assert failure.value.error == "KeyError"
    assert json.loads(failure.value.cause)["errorMessage"] == "'pages'"


def test_local_pipeline_fail_state_raises_its_error_and_cause(make_runner):
    runner = make_runner("retry_catch.asl.json",
                         _retry_catch_tasks(lambda event, context: {"pages": 0}, []))

    with pytest.raises(PipelineExecutionFailed) as failure:
        runner.run("toy", {"job": "j1"})

    assert (failure.value.error, failure.value.cause) == ("Document.Empty", "The document has no pages")
    assert "Document.Empty" in str(failure.value)


def test_local_pipeline_reports_unserialisable_result_as_marshal_error(make_runner):
    runner = make_runner("retry_catch.asl.json",
                         _retry_catch_tasks(lambda event, context: {"pages": {1, 2}}, []))

    with pytest.raises(PipelineExecutionFailed) as failure:
        runner.run("toy", {"job": "j1"})

    assert failure.value.error == "Runtime.MarshalError"


def test_local_pipeline_task_timeout_is_caught_as_states_timeout(make_runner):
    release = threading.Event()

    def slow_generate(event: dict[str, Any], context: Any) -> dict[str, Any]:
        release.wait(30)
        return {"answer": "generated"}

    runner = make_runner("timeout.asl.json", {"GenerateFunctionArn": slow_generate})
    try:
        output = runner.run("toy", {"question": "q"})
    finally:
        release.set()

    assert output == {"answer": "extractive", "error": "States.Timeout"}


def test_local_pipeline_execution_timeout_raises_states_timeout(tmp_path):
    definition = {"TimeoutSeconds": 1, "StartAt": "Generate Answer", "States": {
        "Generate Answer": {"Type": "Task", "Resource": "${GenerateFunctionArn}", "End": True}}}
    path = tmp_path / "slow.asl.json"
    path.write_text(json.dumps(definition))
    release = threading.Event()

    with LocalPipelineRunner({"toy": path}, {"GenerateFunctionArn": lambda event, context: release.wait(30)}
                             ) as runner, pytest.raises(PipelineExecutionFailed) as failure:
        try:
            runner.run("toy", {})
        finally:
            release.set()

    assert failure.value.error == "States.Timeout"


def test_local_pipeline_start_runs_in_background_until_waited_on(make_runner):
    entered, release = threading.Event(), threading.Event()

    def blocking_answer(event: dict[str, Any], context: Any) -> dict[str, Any]:
        entered.set()
        release.wait(30)
        return {"reply": f"answer to {event['intent']}"}

    runner = make_runner("choice.asl.json", {"AnswerFunctionArn": blocking_answer})

    execution_id = runner.start("toy", {"intent": "dosing", "confidence": 1}, name="job-1")
    assert entered.wait(30)
    running = runner.describe(execution_id)
    release.set()
    finished = runner.wait(execution_id, timeout=30)

    assert (running.status, running.name) == ("RUNNING", "job-1")
    assert [r.execution_id for r in runner.list_executions(pipeline="toy")] == [execution_id]
    assert finished.status == "SUCCEEDED"
    assert finished.output == {"reply": "answer to dosing"}


def test_local_pipeline_start_records_failure_with_error_name(make_runner):
    def unreadable(event: dict[str, Any], context: Any) -> dict[str, Any]:
        raise ValueError("not a PDF")

    runner = make_runner("retry_catch.asl.json", _retry_catch_tasks(unreadable, []))

    record = runner.wait(runner.start("toy", {"job": "j1"}), timeout=30)

    assert (record.status, record.error) == ("FAILED", "ValueError")
    assert runner.list_executions(status="FAILED") == [record]


def test_local_pipeline_start_reusing_a_finished_name_conflicts(make_runner):
    runner = make_runner("choice.asl.json", {"AnswerFunctionArn": lambda event, context: {}})
    runner.wait(runner.start("toy", {"intent": "clarify"}, name="job-1"), timeout=30)

    with pytest.raises(Conflict):
        runner.start("toy", {"intent": "clarify"}, name="job-1")


def test_local_pipeline_close_finishes_running_and_aborts_queued(make_runner):
    entered, release = threading.Event(), threading.Event()

    def blocking_answer(event: dict[str, Any], context: Any) -> dict[str, Any]:
        entered.set()
        release.wait(30)
        return {"reply": "done"}

    runner = make_runner("choice.asl.json", {"AnswerFunctionArn": blocking_answer},
                         max_concurrent_executions=1)
    running = runner.start("toy", {"intent": "dosing", "confidence": 1})
    queued = runner.start("toy", {"intent": "dosing", "confidence": 1})
    assert entered.wait(30)

    closer = threading.Thread(target=runner.close)
    closer.start()
    release.set()
    closer.join(30)

    assert runner.describe(running).status == "SUCCEEDED"
    assert runner.describe(queued).status == "ABORTED"
    with pytest.raises(RuntimeError):
        runner.start("toy", {"intent": "clarify"})


def test_local_pipeline_concurrent_runs_keep_their_own_data(make_runner):
    runner = make_runner("parallel_map.asl.json", {
        "SearchGuidelinesFunctionArn": lambda event, context: event["q"],
        "SearchPubMedFunctionArn": lambda event, context: event["q"],
        "EmbedChunkFunctionArn": lambda event, context: event["text"],
    })
    outputs: dict[int, Any] = {}

    def run(number: int) -> None:
        outputs[number] = runner.run("toy", {"q": f"q{number}", "chunks": [f"c{number}"] * 3})

    threads = [threading.Thread(target=run, args=(number,)) for number in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert {n: (o["results"], o["embedded"]) for n, o in outputs.items()} == {
        n: ([f"q{n}", f"q{n}"], [f"c{n}"] * 3) for n in range(6)}


def test_local_pipeline_neither_uses_nor_disturbs_moto_mocks(make_runner):
    stubber_states: list[bool] = []

    def normalize(event: dict[str, Any], context: Any) -> dict[str, Any]:
        stubber_states.append(botocore_stubber.enabled)
        return {"text": event["text"]}

    runner = make_runner("sequence.asl.json", {**_sequence_tasks(), "NormalizeFunctionArn": normalize})
    runner.run("toy", {"document": {"text": "a b", "source": "s"}})
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="documents")
        runner.run("toy", {"document": {"text": "a b", "source": "s"}})
        buckets = [bucket["Name"] for bucket in s3.list_buckets()["Buckets"]]

    assert stubber_states == [False, True]  # outside a mock, no interception; inside, the test's own mock
    assert buckets == ["documents"]


def test_local_pipeline_rejects_a_placeholder_without_a_task():
    with pytest.raises(ValueError, match="CountWordsFunctionArn"):
        LocalPipelineRunner({"toy": ASL / "sequence.asl.json"},
                            {"NormalizeFunctionArn": lambda event, context: event})


def test_local_pipeline_rejects_tasks_it_cannot_run_in_process(tmp_path):
    definition = {"StartAt": "Save", "States": {"Save": {
        "Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem",
        "Parameters": {"TableName": "${JobsTableName}", "Item": {}}, "End": True}}}
    path = tmp_path / "dynamodb.asl.json"
    path.write_text(json.dumps(definition))

    with pytest.raises(ValueError, match="dynamodb"):
        LocalPipelineRunner({"toy": path}, {}, substitutions={"JobsTableName": "jobs"})


def test_local_pipeline_trace_names_each_state_entered_with_the_bytes_it_received(make_runner):
    install_interpreter_speedups()  # the trace records state data with the speedups too
    runner = make_runner("sequence.asl.json", _sequence_tasks())
    document = {"document": {"text": "  Aspirin   DOSING in Adults ", "source": "who"}}

    trace = runner.trace("toy", document)

    assert trace.output == runner.run("toy", document)
    assert [visit.name for visit in trace.states] == ["Normalize Text", "Count Words", "Shape Output"]
    assert trace.states and all(visit.input_bytes > 0 for visit in trace.states)
    assert trace.states[0].input_bytes == len(json.dumps(document, separators=(",", ":")))
    assert trace.state_bytes == sum(visit.input_bytes for visit in trace.states)
