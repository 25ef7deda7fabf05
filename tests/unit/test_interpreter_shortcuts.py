"""The local interpreter's shortcuts (voiceassist_local/interpreter_shortcuts.py): the same values as moto's own
evaluation and as json's round trip of a task's result, and the execution history kept only while a trace reads
it."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from jsonpath_ng.exceptions import JsonPathParserError
from moto.stepfunctions.parser.api import HistoryEventType
from moto.stepfunctions.parser.asl.eval.event.event_manager import EventHistoryContext, EventManager
from moto.stepfunctions.parser.asl.utils.json_path import NoSuchJsonPathError
from voiceassist_local.interpreter_shortcuts import (
    json_round_trip,
    keep_history_only_while_tracing,
    plain_path_reader,
)

STATE: dict[str, Any] = {
    "source": {"name": "knowledge_base", "timeout_seconds": 6, "nested": {"where": 1, "null": None}},
    "search_plan": [{"name": "pubmed"}, {"name": "web"}],
    "search_again": False,
    "clarifying_question": None,
}


def moto_extract(path: str, data: Any) -> Any:
    """moto's own extract_json, whatever the local speedups installed in this process."""
    from moto.stepfunctions.parser.asl.utils import json_path

    extract = json_path.extract_json
    return getattr(extract, "__wrapped__", extract)(path, data)


@pytest.mark.parametrize("path", [
    "$.source", "$.source.timeout_seconds", "$.search_again", "$.clarifying_question", "$.search_plan",
    "$.source.nested.null", "$.search_plan[0].name", "$.search_plan[*].name",
])
def test_plain_path_reader_gives_what_moto_gives(path: str) -> None:
    read = plain_path_reader(moto_extract)

    assert read(path, STATE) == moto_extract(path, STATE)


def test_plain_path_reader_gives_the_same_object_not_a_copy() -> None:
    read = plain_path_reader(moto_extract)

    assert read("$.source", STATE) is STATE["source"]


@pytest.mark.parametrize("path", ["$.missing", "$.source.missing", "$.search_again.deeper", "$.search_plan.name"])
def test_plain_path_reader_fails_a_missing_path_as_moto_does(path: str) -> None:
    read = plain_path_reader(moto_extract)

    with pytest.raises(NoSuchJsonPathError):
        read(path, STATE)


def test_plain_path_reader_leaves_a_word_of_the_path_grammar_to_moto() -> None:
    read = plain_path_reader(moto_extract)

    with pytest.raises(JsonPathParserError):  # moto reads "where" as a keyword: so does the reader
        read("$.source.nested.where", STATE)


def test_history_outside_a_trace_numbers_events_but_keeps_none() -> None:
    tracing = [False]
    installed = moto_add_event = EventManager.add_event
    while hasattr(moto_add_event, "__wrapped__"):  # moto's own, whatever the local speedups installed before
        moto_add_event = moto_add_event.__wrapped__
    EventManager.add_event = moto_add_event  # type: ignore[method-assign]
    keep_history_only_while_tracing(lambda: tracing[0])
    try:
        events, context = EventManager(), EventHistoryContext.of_program_start()

        first = events.add_event(context, HistoryEventType.PassStateEntered)
        second = events.add_event(context, HistoryEventType.PassStateExited)
        assert (second, context.source_event_id, events.get_event_history()) == (first + 1, second, [])

        tracing[0] = True
        third = events.add_event(context, HistoryEventType.PassStateEntered)
        assert [event["id"] for event in events.get_event_history()] == [third] == [second + 1]
    finally:
        EventManager.add_event = installed  # type: ignore[method-assign]


def test_json_round_trip_copies_a_task_result_as_json_would() -> None:
    result = {"hits": [{"score": 0.1 + 0.2, "text": "café", "ids": [1, 2]}], "flag": True, "none": None}

    copied = json_round_trip(result)

    assert copied == json.loads(json.dumps(result))
    assert copied["hits"][0] is not result["hits"][0]  # the handler's objects are not handed on


@pytest.mark.parametrize("result", [
    {"pairs": (1, 2)}, {1: "a"}, {"ratio": float("nan")}, {"big": float("inf")}, {"nested": {"ids": ({"a": 1},)}},
])
def test_json_round_trip_converts_what_json_converts(result: dict[Any, Any]) -> None:
    assert json.dumps(json_round_trip(result)) == json.dumps(json.loads(json.dumps(result)))


@pytest.mark.parametrize("result", [{"pages": {1, 2}}, {"when": datetime(2026, 1, 1)}, {"raw": b"x"}])
def test_json_round_trip_refuses_what_json_refuses(result: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        json_round_trip(result)
