"""The events' shapes and failure paths: a lost event never fails the query; a failed run ends with an error
event that carries no internals; chat messages become a question and its history."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.composition import Dependencies
from voiceassist.conversation import chat_completions as chat
from voiceassist.conversation import events, orchestrator
from voiceassist.errors import DependencyError, InvalidInput
from voiceassist.models import PhiResult, QueryRequest
from voiceassist.query.state import EventTarget, QueryState
from voiceassist.settings import Settings


class BrokenPublisher:
    def __init__(self) -> None:
        self.calls = 0

    def publish(self, connection_id: str, event: dict[str, Any]) -> None:
        self.calls += 1
        raise DependencyError("connection gone")


class Publishing:
    def __init__(self, publisher: Any) -> None:
        self.settings = Settings()
        self.publisher = publisher

    def event_publisher(self, endpoint: str | None) -> Any:
        return self.publisher


def streamed_state(**fields: Any) -> QueryState:
    return QueryState(user_id="u1", request=QueryRequest(query="What is the metformin dose?"),
                      stream=EventTarget(connection_id="c1", endpoint="https://example/ws"), **fields)


def test_a_publisher_failure_is_logged_and_the_step_goes_on() -> None:
    publisher = BrokenPublisher()
    state = streamed_state(phi=PhiResult(contains_phi=False, redacted_text="What is the metformin dose?"))
    events.after_step(Publishing(publisher), "detect_phi", state)  # no exception
    assert publisher.calls == 1


def test_a_run_without_a_target_publishes_nothing() -> None:
    publisher = BrokenPublisher()
    state = QueryState(user_id="u1", request=QueryRequest(query="What is the metformin dose?"))
    events.after_step(Publishing(publisher), "classify", state)
    assert publisher.calls == 0


def test_an_unchecked_question_routes_inside_the_boundary() -> None:
    route = events.route_decision(Settings(), streamed_state())["data"]
    assert route["phi_detected"] is True and route["detector_failed"] is True
    assert route["boundary"] == "in_boundary_only"


def test_a_failed_pipeline_ends_with_an_error_event_without_internals(local_deps: Dependencies) -> None:
    class FailingRunner:
        def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
            raise DependencyError("OpenSearch at 10.0.3.7 refused: What is the metformin dose?")

    local_deps.pipelines = FailingRunner()  # type: ignore[assignment,misc]
    emitted: list[events.Event] = []
    with pytest.raises(DependencyError):
        orchestrator.run(local_deps, QueryRequest(query="What is the metformin dose?"), user_id="u1",
                         trace_id="req-1", emit=emitted.append)
    [error] = emitted
    assert error["type"] == "error" and error["data"]["trace_id"] == "req-1"
    assert error["data"]["error"]["message"] == events.INTERNAL_ERROR and "10.0.3.7" not in str(error)


def test_an_event_type_outside_the_contract_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown event type"):
        events.event("answer", {})
    assert events.sse(events.event("token", {"text": "Hi "})) == b'event: token\ndata: {"text": "Hi "}\n\n'


def test_chat_messages_become_the_question_and_its_history() -> None:
    request, history = chat.to_query(chat.ChatCompletionRequest.model_validate({"messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "What is the first-line treatment for gout?"}]},
        {"role": "assistant", "content": "Colchicine or an NSAID [1]."},
        {"role": "user", "content": "And the dose?", "name": "dr-a"}], "temperature": 0.2}))
    assert request.query == "And the dose?"
    assert [(t.role, t.text) for t in history] == [("user", "What is the first-line treatment for gout?"),
                                                   ("assistant", "Colchicine or an NSAID [1].")]
    with pytest.raises(InvalidInput):
        chat.to_query(chat.ChatCompletionRequest.model_validate(
            {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}))
