"""A spoken question over API Gateway's WebSocket (the `stream` function's voice.start / voice.chunk / voice.end),
through the real handler, with the AWS adapters behind botocore's Stubber (chunks in S3 with SSE-KMS, the
Transcribe Medical job) and the real query pipeline: what was heard is routed as PHI like a typed question and
reaches no log, audit record, store or cloud client; a failed job or a busy PHI detector fails closed; every
piece of audio is deleted whatever happened."""

from __future__ import annotations

import base64
import io
import json
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.handlers import invoke

from tests.stubs.openai_stub import StubReply
from tests.stubs.query_stack import (
    CLOUD_ANSWER,
    IN_BOUNDARY_ANSWER,
    SAGEMAKER_MODEL,
    USER,
    QueryStack,
    find_phi,
    query_stack,
    recorded_logs,
)
from tests.stubs.voice_aws import VoiceAws
from voiceassist.models import PhiResult
from voiceassist.phi.detection import BUSY, failed_result

CONNECTION = "Abc123connId="
ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/v1"
PHI_QUESTION = "Patient John Smith, medical record number 4417823. What is the metformin dose for eGFR 40?"
PHI_VALUES = ("John Smith", "Smith", "4417823")


class Publisher:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def publish(self, connection_id: str, event: dict[str, Any]) -> None:
        assert connection_id == CONNECTION
        self.events.append(json.loads(json.dumps(event, default=str)))

    def kinds(self) -> list[str]:
        return [e["type"] for e in self.events]


def _recording() -> bytes:
    """The question spoken (espeak-ng, 22,050 Hz): the stream function's no-speech gate (speech/vad.py) hears speech in
    it and starts the job, whose stubbed result is the question's words."""
    from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
    from voiceassist.errors import ModelUnavailable

    try:
        return EspeakTextToSpeech().synthesize(PHI_QUESTION)
    except ModelUnavailable:
        pytest.skip("espeak-ng is not installed (tests/setup.sh installs it)", allow_module_level=True)


def _silence(seconds: float) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as recording:
        recording.setnchannels(1)
        recording.setsampwidth(2)
        recording.setframerate(16_000)
        recording.writeframes(b"\x00\x00" * int(16_000 * seconds))
    return out.getvalue()


AUDIO = _recording()
PIECES = [AUDIO[i:i + 20_000] for i in range(0, len(AUDIO), 20_000)]


@pytest.fixture
def stack(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          shared_embedder: Any, shared_phi_detector: Any) -> Iterator[tuple[QueryStack, VoiceAws, Publisher]]:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector, cloud_script=[StubReply(text=CLOUD_ANSWER)],
                     sagemaker_script=[StubReply(text=IN_BOUNDARY_ANSWER)]) as query, VoiceAws() as aws:
        publisher = Publisher()
        query.deps.audio_chunks = aws.chunks  # type: ignore[misc]
        query.deps.speech_to_text = aws.speech_to_text  # type: ignore[misc]
        query.deps.__dict__.setdefault("_event_publishers", {})[ENDPOINT] = publisher
        yield query, aws, publisher


def send(message: dict[str, Any] | None, route: str = "$default") -> dict[str, Any]:
    event = {"requestContext": {"routeKey": route, "connectionId": CONNECTION, "domainName": "abc123.execute-api."
                                "us-east-1.amazonaws.com", "stage": "v1", "authorizer": {"principalId": USER}},
             "body": json.dumps(message) if message is not None else None}
    reply: dict[str, Any] = invoke("stream", event)
    return reply


def stream_audio(aws: VoiceAws, *, session_id: str | None = None, pieces: list[bytes] = PIECES) -> None:
    assert send({"action": "voice.start", "format": "audio/wav", "session_id": session_id}) == {"statusCode": 200}
    for seq in reversed(range(len(pieces))):  # any order: API Gateway does not order the invocations
        aws.expect_chunk_put()
        assert send({"action": "voice.chunk", "seq": seq, "audio": base64.b64encode(pieces[seq]).decode()}) == {
            "statusCode": 200}
    aws.expect_chunk_gets(pieces)
    aws.expect_chunk_delete(len(pieces))


def leaks(stack: QueryStack, logs: list[str], capfd: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    out, err = capfd.readouterr()
    audio_forms = (base64.b64encode(PIECES[1]).decode()[:40], PIECES[1][:40].decode("latin-1"))
    return {"cloud": find_phi(PHI_VALUES, *(r.path + r.body for r in stack.cloud.raw_requests)),
            "pubmed": find_phi(PHI_VALUES, *(r.raw_text for r in stack.pubmed.requests)),
            "logs": find_phi(PHI_VALUES + audio_forms, *logs, out, err),
            "traces": find_phi(PHI_VALUES + audio_forms, *stack.traces.entries),
            "stored": find_phi(PHI_VALUES + audio_forms, *stack.stored_text())}


def test_voice_over_the_aws_websocket_is_transcribed_inside_and_routed_as_phi(
        stack: tuple[QueryStack, VoiceAws, Publisher], capfd: pytest.CaptureFixture[str]) -> None:
    query, aws, publisher = stack
    with recorded_logs() as logs:
        stream_audio(aws, session_id=query.session_id)
        aws.expect_job(statuses=("IN_PROGRESS", "COMPLETED"), heard=PHI_QUESTION)
        reply = send({"action": "voice.end", "chunks": len(PIECES)})
    assert reply == {"statusCode": 200}, publisher.events[-1]
    kinds = publisher.kinds()
    assert kinds[0] == "voice.ready" and kinds[1] == "transcript" and kinds[-1] == "done"
    assert {"route", "citations"} <= set(kinds) and "error" not in kinds
    assert publisher.events[1]["data"]["text"] == PHI_QUESTION  # the clinician sees what was heard
    answer = publisher.events[-1]["data"]
    assert answer["metadata"]["phi_detected"] is True and answer["metadata"]["model"] == SAGEMAKER_MODEL
    aws.done()  # chunks put SSE-KMS only-if-absent, read, deleted; the job's recording, transcript and job deleted
    assert leaks(query, logs, capfd) == {"cloud": [], "pubmed": [], "logs": [], "traces": [], "stored": []}
    audits = query.deps.audit.list(user_id=USER, limit=100)
    (streamed,) = [r for r in audits if r.action == "voice.stream"]
    assert streamed.outcome == "accepted" and streamed.target == answer["metadata"]["query_id"]


def test_voice_over_the_aws_websocket_failed_transcription_fails_closed_and_deletes_the_audio(
        stack: tuple[QueryStack, VoiceAws, Publisher], capfd: pytest.CaptureFixture[str]) -> None:
    query, aws, publisher = stack
    with recorded_logs() as logs:
        stream_audio(aws)
        aws.expect_job(statuses=("IN_PROGRESS", "FAILED"))
        reply = send({"action": "voice.end", "chunks": len(PIECES)})
    assert reply == {"statusCode": 400}
    assert publisher.kinds() == ["voice.ready", "error"]  # no transcript, no question asked
    assert "could not transcribe" in publisher.events[-1]["data"]["error"]["message"]
    aws.done()
    assert query.cloud.raw_requests == [] and query.sagemaker.raw_requests == []
    assert leaks(query, logs, capfd)["logs"] == []
    outcomes = [r.outcome for r in query.deps.audit.list(user_id=USER, limit=100) if r.action == "voice.stream"]
    assert outcomes == ["error"]


def test_voice_over_the_aws_websocket_with_no_speech_starts_no_job_and_says_so(
        stack: tuple[QueryStack, VoiceAws, Publisher], capfd: pytest.CaptureFixture[str]) -> None:
    """Silence streamed: the chunks are stored and deleted as ever, but no job is started (the VoiceAws stubs have
    none queued) and the client hears what the local server says, "no speech was heard", with nothing asked."""
    query, aws, publisher = stack
    silence = _silence(2.0)
    pieces = [silence[i:i + 20_000] for i in range(0, len(silence), 20_000)]
    with recorded_logs() as logs:
        stream_audio(aws, pieces=pieces)
        reply = send({"action": "voice.end", "chunks": len(pieces)})
    assert reply == {"statusCode": 400}
    assert publisher.kinds() == ["voice.ready", "transcript", "error"]
    assert publisher.events[1]["data"]["speech_heard"] is False and publisher.events[1]["data"]["text"] == ""
    assert "no speech was heard" in publisher.events[-1]["data"]["error"]["message"]
    aws.done()  # chunks put, read and deleted; no recording put for a job, no job started
    assert query.cloud.raw_requests == [] and query.sagemaker.raw_requests == []
    assert leaks(query, logs, capfd) == {"cloud": [], "pubmed": [], "logs": [], "traces": [], "stored": []}
    outcomes = [r.outcome for r in query.deps.audit.list(user_id=USER, limit=100) if r.action == "voice.stream"]
    assert outcomes == ["error"]


class BusyDetector:
    """Every detection finds the detector busy (FailClosedDetector's queue wait ran out)."""

    def detect(self, text: str) -> PhiResult:
        return failed_result(f"{BUSY}: no detection could start within 1 s")


def test_voice_over_the_aws_websocket_with_the_phi_detector_busy_never_reaches_the_cloud(
        stack: tuple[QueryStack, VoiceAws, Publisher], capfd: pytest.CaptureFixture[str]) -> None:
    query, aws, publisher = stack
    query.deps.phi_detector = BusyDetector()  # type: ignore[misc]
    with recorded_logs() as logs:
        stream_audio(aws, session_id=query.session_id)
        aws.expect_job(heard=PHI_QUESTION)
        send({"action": "voice.end", "chunks": len(PIECES)})
    aws.done()
    kinds = publisher.kinds()
    assert kinds[:2] == ["voice.ready", "transcript"] and kinds[-1] == "done" and "error" not in kinds
    # an unscreened transcript counts as PHI: only the in-boundary model may answer it
    answer = publisher.events[-1]["data"]
    assert answer["metadata"]["phi_detected"] is True and answer["metadata"]["model"] == SAGEMAKER_MODEL
    assert query.cloud.raw_requests == []
    assert leaks(query, logs, capfd) == {"cloud": [], "pubmed": [], "logs": [], "traces": [], "stored": []}


def test_voice_over_the_aws_websocket_refuses_a_repeated_chunk_and_cleans_up_on_disconnect(
        stack: tuple[QueryStack, VoiceAws, Publisher]) -> None:
    query, aws, publisher = stack
    send({"action": "voice.start", "format": "audio/wav"})
    aws.expect_chunk_put()
    send({"action": "voice.chunk", "seq": 0, "audio": base64.b64encode(PIECES[0]).decode()})
    reply = send({"action": "voice.chunk", "seq": 0, "audio": base64.b64encode(PIECES[1]).decode()})
    assert reply == {"statusCode": 409}
    error = publisher.events[-1]["data"]["error"]
    assert error["code"] == "conflict" and "chunk 0" in error["message"]
    aws.expect_chunk_delete(1)
    assert send(None, route="$disconnect") == {"statusCode": 200}  # the client left mid-question
    reply = send({"action": "voice.end", "chunks": 1})
    assert reply == {"statusCode": 404} and "voice.start" in publisher.events[-1]["data"]["error"]["message"]
    aws.done()
    assert query.cloud.raw_requests == []
