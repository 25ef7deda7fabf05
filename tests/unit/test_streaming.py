"""The WebSocket conversation: the same query pipeline as REST, pushed as events to the connection."""

from __future__ import annotations

import json
from typing import Any

from voiceassist.composition import Dependencies
from voiceassist.conversation import streaming


class RecordingPublisher:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def publish(self, connection_id: str, event: dict[str, Any]) -> None:
        assert connection_id == "conn-1"
        self.events.append(event)


def test_stream_ask_pushes_accepted_then_the_answer(local_deps: Dependencies) -> None:
    publisher = RecordingPublisher()
    reply = streaming.handle_message(local_deps, publisher, connection_id="conn-1", user_id="u1",
                                     body=json.dumps({"action": "ask", "query": "What is the dose of metformin?"}))
    assert reply == {"statusCode": 200}
    assert [e["type"] for e in publisher.events] == ["accepted", "answer"]
    response = publisher.events[1]["response"]
    assert response["metadata"]["phi_detected"] is False and response["answer"]  # empty index: a clarification


def test_stream_bad_message_gets_an_error_event_not_a_crash(local_deps: Dependencies) -> None:
    publisher = RecordingPublisher()
    for body in ("{not json", json.dumps({"action": "ask"}), json.dumps({"action": "ask", "query": "  "})):
        reply = streaming.handle_message(local_deps, publisher, connection_id="conn-1", user_id="u1", body=body)
        assert reply == {"statusCode": 400}
    assert [e["type"] for e in publisher.events] == ["error"] * 3
    assert "not valid JSON" in publisher.events[0]["message"] and "query" in publisher.events[1]["message"]
