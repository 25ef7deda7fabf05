"""The WebSocket conversation: the same orchestrator as REST, its events pushed to the connection."""

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


def test_stream_ask_pushes_the_run_events_then_done(local_deps: Dependencies) -> None:
    publisher = RecordingPublisher()
    reply = streaming.handle_message(local_deps, publisher, connection_id="conn-1", user_id="u1",
                                     body=json.dumps({"action": "ask", "query": "What is the dose of metformin?"}))
    assert reply == {"statusCode": 200}
    kinds = [e["type"] for e in publisher.events]
    assert kinds[-3:] == ["citations", "critique", "done"] and "token" in kinds
    response = publisher.events[-1]["data"]
    assert response["metadata"]["phi_detected"] is False and response["answer"]  # empty index: a clarification


def test_stream_steps_publish_to_the_connection_through_the_event_publisher(local_deps: Dependencies) -> None:
    """Locally (no endpoint) the steps publish to the in-process hub, which this connection's reader opened."""
    from voiceassist.adapters.local.event_hub import HUB

    channel = HUB.open("conn-1")
    publisher = RecordingPublisher()
    streaming.handle_message(local_deps, publisher, connection_id="conn-1", user_id="u1",
                             body=json.dumps({"action": "ask", "query": "What is the dose of metformin?"}))
    HUB.close("conn-1")
    step_events = [channel.get_nowait()["type"] for _ in range(channel.qsize())]
    assert step_events[:2] == ["route", "plan"]


def test_stream_bad_message_gets_an_error_event_not_a_crash(local_deps: Dependencies) -> None:
    publisher = RecordingPublisher()
    for body in ("{not json", json.dumps({"action": "ask"}), json.dumps({"action": "ask", "query": "  "}),
                 "[1]"):
        reply = streaming.handle_message(local_deps, publisher, connection_id="conn-1", user_id="u1", body=body)
        assert reply == {"statusCode": 400}
    assert [e["type"] for e in publisher.events] == ["error"] * 4
    messages = [e["data"]["error"]["message"] for e in publisher.events]
    assert "not valid JSON" in messages[0] and "query" in messages[1]
    assert publisher.events[0]["data"]["error"]["code"] == "invalid_input"


def test_with_an_endpoint_the_steps_post_to_the_connection_through_its_publisher(local_deps: Dependencies) -> None:
    """On AWS the steps run in other Lambdas: they post to the connection through the management API at the
    endpoint that travels in the state (here its publisher records instead of posting)."""
    endpoint = "https://abc.execute-api.us-east-1.amazonaws.com/v1"
    publisher = RecordingPublisher()
    assert local_deps.event_publisher(endpoint).endpoint_url == endpoint  # type: ignore[attr-defined]
    local_deps.__dict__["_event_publishers"][endpoint] = publisher
    reply = streaming.handle_message(local_deps, publisher, connection_id="conn-1", user_id="u1", endpoint=endpoint,
                                     body=json.dumps({"action": "ask", "query": "What is the dose of metformin?"}))
    kinds = [e["type"] for e in publisher.events]
    assert reply == {"statusCode": 200}
    assert kinds[:3] == ["route", "plan", "retrieval"] and kinds[-3:] == ["citations", "critique", "done"]


def test_stream_disconnect_without_voice_configured_is_quiet(caplog: Any) -> None:
    """An AWS environment without a voice bucket: $disconnect has no voice stream to forget, and logs nothing."""
    from voiceassist.conversation.voice_messages import forget_connection
    from voiceassist.settings import Runtime, Settings

    deps = Dependencies(Settings(runtime=Runtime.AWS))
    forget_connection(deps, "conn-1")
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


class HeardQuestion:
    """A recognizer that hears one question (the transcription itself is tested in test_speech_contract.py)."""

    name = "heard"

    def __init__(self) -> None:
        self.recordings: list[bytes] = []

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Any:
        from voiceassist.speech import Transcript

        self.recordings.append(audio)
        return Transcript(text="What is the dose of metformin?", language="en", duration_seconds=1.0,
                          confidence=0.9, engine=self.name)


def test_stream_voice_messages_on_the_local_runtime_keep_the_pieces_in_memory_and_answer(
        local_deps: Dependencies) -> None:
    import base64

    recognizer = HeardQuestion()
    local_deps.speech_to_text = recognizer  # type: ignore[misc]
    publisher = RecordingPublisher()
    pcm = b"\x01\x02" * 8_000

    def send(message: dict[str, Any]) -> dict[str, Any]:
        return streaming.handle_message(local_deps, publisher, connection_id="conn-1", user_id="u1",
                                        body=json.dumps(message))

    assert send({"action": "voice.start", "format": "audio/pcm"}) == {"statusCode": 200}
    for seq in (1, 0):
        piece = pcm[seq * 8_000:(seq + 1) * 8_000]
        assert send({"action": "voice.chunk", "seq": seq, "audio": base64.b64encode(piece).decode()}) == {
            "statusCode": 200}
    assert send({"action": "voice.end", "chunks": 2}) == {"statusCode": 200}
    kinds = [e["type"] for e in publisher.events]
    assert kinds[:2] == ["voice.ready", "transcript"] and kinds[-1] == "done"
    assert recognizer.recordings[0][44:] == pcm  # joined in order, wrapped as WAV
    assert len(local_deps.audio_chunks) == 0  # type: ignore[arg-type]

