"""The local runner carries bulky state fields by reference between tasks: each task still gets the whole state."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pydantic_core
import pytest
from voiceassist_local import state_references
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.resources import statemachine_file
from voiceassist_local.state_references import StateReferences, names_read_by

from voiceassist.adapters.aws.stepfunctions_pipeline import PipelineExecutionFailed

HITS = [{"chunk_id": f"c{n}", "text": "Metformin: at most 2,550 mg a day \u00e9\"\\", "score": n / 10}
        for n in range(10)]


def _definition(tmp_path: Path, states: dict[str, Any], start: str = "Produce") -> Path:
    path = tmp_path / "toy.asl.json"
    path.write_text(json.dumps({"StartAt": start, "States": states}))
    return path


TOY = {
    "Produce": {"Type": "Task", "Resource": "${ProduceArn}", "Next": "Enough?"},
    "Enough?": {"Type": "Choice", "Choices": [{"Variable": "$.count", "NumericGreaterThan": 5, "Next": "Consume"}],
                "Default": "Nothing"},
    "Consume": {"Type": "Task", "Resource": "${ConsumeArn}", "Parameters": {"state.$": "$", "step": "consume"},
                "End": True},
    "Nothing": {"Type": "Succeed"},
}


def _toy_tasks(seen: list[Any]) -> dict[str, Any]:
    def produce(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return {**event, "hits": HITS, "count": len(HITS), "empty": []}

    def consume(event: dict[str, Any], context: Any) -> dict[str, Any]:
        seen.append(event)
        return {**event["state"], "used": len(event["state"]["hits"])}

    return {"ProduceArn": produce, "ConsumeArn": consume}


def test_state_references_hand_each_task_and_the_caller_the_whole_state(tmp_path: Path) -> None:
    seen: list[Any] = []
    with LocalPipelineRunner({"toy": _definition(tmp_path, TOY)}, _toy_tasks(seen)) as runner:
        output = runner.run("toy", {"question": "metformin dose?"})

    # the next task received the hits exactly as the first returned them (not a token), inside its Parameters
    assert seen == [{"state": {"question": "metformin dose?", "hits": HITS, "count": 10, "empty": []},
                     "step": "consume"}]
    assert output == {"question": "metformin dose?", "hits": HITS, "count": 10, "empty": [], "used": 10}


def test_state_references_keep_the_interpreter_copy_small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a spy on what the interpreter holds after each task
    held: list[Any] = []
    refer = StateReferences.refer

    def spy(self: StateReferences, execution_id: str, result: Any) -> Any:
        held.append(json.loads(json.dumps(refer(self, execution_id, result))))
        return held[-1]

    monkeypatch.setattr(StateReferences, "refer", spy)
    with LocalPipelineRunner({"toy": _definition(tmp_path, TOY)}, _toy_tasks([])) as runner:
        runner.run("toy", {"question": "q"})

    # the hits went by reference; the field the Choice reads, scalars and empty lists stayed in the state
    produced = held[0]
    assert isinstance(produced["hits"], str) and len(produced["hits"]) < 60
    assert (produced["count"], produced["empty"], produced["question"]) == (10, [], "q")


def test_state_references_never_refer_a_field_a_path_reads(tmp_path: Path) -> None:
    states = {**TOY, "Enough?": {"Type": "Choice", "Default": "Nothing", "Choices": [
        {"Variable": "$.hits[0].score", "IsPresent": True, "Next": "Consume"}]}}
    assert names_read_by(json.dumps({"StartAt": "Produce", "States": states})) is None  # a bracket: nothing referred
    seen: list[Any] = []
    with LocalPipelineRunner({"toy": _definition(tmp_path, states)}, _toy_tasks(seen)) as runner:
        assert runner.run("toy", {"question": "q"})["used"] == 10


@pytest.mark.parametrize("path", ["$..hits", "States.JsonToString($)", "States.ArrayLength($.hits)"])
def test_state_references_are_off_for_paths_that_could_read_a_token(path: str) -> None:
    definition = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Parameters": {"x.$": path}, "End": True}}}
    assert names_read_by(json.dumps(definition)) is None


def test_state_references_leave_the_query_definition_fields_its_choices_and_maps_read() -> None:
    read = names_read_by(statemachine_file("query").read_text())
    assert read is not None
    assert {"search_plan", "clarifying_question", "search_again", "tool_calls", "tool_calls_pending",
            "generation_tier", "tool_route", "source", "timeout_seconds"} <= read
    assert not {"hits", "citations", "request", "answer"} & read  # the bulky fields go by reference


def test_state_references_tokens_of_another_execution_are_left_as_text() -> None:
    references = StateReferences(frozenset())
    references.open("a")
    references.open("b")
    token = references.refer("a", {"hits": HITS})["hits"]
    assert json.loads(references.expand("a", json.dumps({"hits": token}))) == {"hits": HITS}
    assert json.loads(references.expand("b", json.dumps({"hits": token}))) == {"hits": token}
    references.close("a")
    assert json.loads(references.expand("a", json.dumps({"hits": token}))) == {"hits": token}
    assert state_references._TOKEN_PREFIX in token


def test_state_references_results_returned_at_once_keep_their_own_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given one execution's Map iterations returning at the same moment on many threads, each one giving way to
    # the others while its field is being serialized
    def slow_to_json(value: Any) -> bytes:
        time.sleep(0.001)
        return pydantic_core.to_json(value)

    monkeypatch.setattr(state_references, "pydantic_core", SimpleNamespace(to_json=slow_to_json))
    references = StateReferences(frozenset())
    references.open("run")
    tokens: dict[int, str] = {}
    start = threading.Barrier(8)

    def iteration(worker: int) -> None:
        start.wait()
        for n in range(20):
            item = worker * 1000 + n
            tokens[item] = references.refer("run", {"hits": [item]})["hits"]

    threads = [threading.Thread(target=iteration, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then every token is its own and expands to its own iteration's field
    assert len(set(tokens.values())) == len(tokens) == 160
    assert all(json.loads(references.expand("run", json.dumps(token))) == [item] for item, token in tokens.items())


def test_state_references_measure_the_whole_result_against_the_state_quota(tmp_path: Path) -> None:
    # Given a task whose hits alone pass Step Functions' 256 KB quota (they would go by reference)
    big = [{"chunk_id": f"c{n}", "text": "x" * 1000} for n in range(300)]
    tasks = {"ProduceArn": lambda event, context: {"hits": big, "count": 1},
             "ConsumeArn": lambda event, context: event}
    with LocalPipelineRunner({"toy": _definition(tmp_path, TOY)}, tasks) as runner, \
            pytest.raises(PipelineExecutionFailed) as failure:
        runner.run("toy", {"question": "q"})
    # Then the execution fails as on AWS, though the interpreter only held a token
    assert failure.value.error == "States.DataLimitExceeded"
