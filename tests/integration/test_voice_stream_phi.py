"""A spoken patient name over the voice WebSocket (GET /v1/voice/stream), with Whisper and espeak-ng for real:
transcribed in this process, routed as PHI like a typed question, and nothing heard reaches the cloud model, a
log, a trace or a store, also when the stream fails after a partial transcript already heard the name (the
client disconnects; the recording is too long).

Whisper tests share one xdist worker (the model loads once a run; tests/support/xdist_order.py)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from socket import SHUT_RDWR
from typing import Any

import pytest
from voiceassist_local import voice_stream
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.server import make_server
from websockets.sync.client import connect

from tests.stubs.openai_stub import StubReply
from tests.stubs.query_stack import (
    CLOUD_ANSWER,
    IN_BOUNDARY_ANSWER,
    SAGEMAKER_MODEL,
    QueryStack,
    find_phi,
    query_stack,
    recorded_logs,
)
from tests.support.socket_messages import messages_until_close
from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("whisper")]

PHI_QUESTION = "Patient John Smith, medical record number 4417823. What is the metformin dose for eGFR 40?"
PHI_VALUES = ("John Smith", "Smith", "4417823")
LOCAL_USER = "local-user"
WAIT_S = 600.0  # Whisper on a loaded 2-core machine
CHUNK = 8192


@pytest.fixture
def phi_stack(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              shared_embedder: Any, shared_phi_detector: Any) -> Iterator[QueryStack]:
    with query_stack(kb_seed_dir, tmp_path, monkeypatch, runner=kb_runner, embedder=shared_embedder,
                     detector=shared_phi_detector, cloud_script=[StubReply(text=CLOUD_ANSWER)],
                     sagemaker_script=[StubReply(text=IN_BOUNDARY_ANSWER)]) as stack:
        yield stack


@pytest.fixture
def ws_url(phi_stack: QueryStack) -> Iterator[str]:
    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"ws://127.0.0.1:{server.server_address[1]}{voice_stream.PATH}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def spoken_phi() -> bytes:
    return EspeakTextToSpeech().synthesize(PHI_QUESTION)


def everything_kept(stack: QueryStack) -> list[str]:
    """What the stack kept: the local user's audit records, the cloud model's and PubMed's requests, the traces,
    and every file of the data folder."""
    audits = [r.model_dump_json() for r in stack.deps.audit.list(user_id=LOCAL_USER, limit=1000)]
    files = [path.read_bytes().decode("latin-1") for path in Path(stack.deps.settings.data_dir).rglob("*")
             if path.is_file()]
    return [*audits, *(r.path + r.body for r in stack.cloud.raw_requests),
            *(r.raw_text for r in stack.pubmed.requests), *map(str, stack.traces.entries), *files]


def stream_threads_end() -> list[str]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        left = [t.name for t in threading.enumerate() if t.name.startswith(("voice-", "query-"))]
        if not left:
            return []
        time.sleep(0.1)
    return left


def test_voice_stream_routes_a_spoken_patient_name_as_phi_inside_the_boundary(
        phi_stack: QueryStack, ws_url: str, spoken_phi: bytes, capfd: pytest.CaptureFixture[str]) -> None:
    with recorded_logs() as logs, connect(ws_url, open_timeout=60) as socket:
        socket.send(json.dumps({"type": "start", "format": "audio/wav", "partials": False}))
        for offset in range(0, len(spoken_phi), CHUNK):
            socket.send(spoken_phi[offset:offset + CHUNK])
        socket.send(json.dumps({"type": "end"}))
        received, code = messages_until_close(socket, WAIT_S)
    assert code == 1000, received[-1]
    heard = received[0]["data"]["text"]
    assert received[0]["type"] == "transcript" and "Smith" in heard  # the clinician sees what was heard
    route = next(item["data"] for item in received if item["type"] == "route")
    assert route["phi_detected"] is True and route["boundary"] == "in_boundary_only"
    done = received[-1]
    assert done["type"] == "done" and done["data"]["metadata"]["model"] == SAGEMAKER_MODEL
    assert find_phi(PHI_VALUES, *(item for item in received[1:] if item["type"] != "done")) == [], \
        "the steps' events carry no question"
    out, err = capfd.readouterr()
    assert find_phi(PHI_VALUES, *logs, out, err) == [], "what was heard reached a log"
    assert find_phi(PHI_VALUES, *everything_kept(phi_stack)) == [], "what was heard left the boundary or was kept"
    assert "voice.stream" in {r.action for r in phi_stack.deps.audit.list(user_id=LOCAL_USER, limit=100)}


@pytest.mark.parametrize("failure", ["disconnect", "too-long"])
def test_voice_stream_failing_after_a_partial_heard_the_name_keeps_it_inside(
        phi_stack: QueryStack, ws_url: str, spoken_phi: bytes, capfd: pytest.CaptureFixture[str],
        failure: str) -> None:
    # Given a partial transcript that heard the patient's name (the first 5.5 s of the question)
    byte_rate = int.from_bytes(spoken_phi[28:32], "little")
    prefix = spoken_phi[:44 + int(5.5 * byte_rate) // 2 * 2]
    with recorded_logs() as logs:
        socket = connect(ws_url, open_timeout=60, max_size=None)
        socket.send(json.dumps({"type": "start", "format": "audio/wav", "partials": True}))
        for offset in range(0, len(prefix), CHUNK):
            socket.send(prefix[offset:offset + CHUNK])
        partial = json.loads(socket.recv(timeout=WAIT_S))
        assert partial["type"] == "partial" and "Smith" in partial["data"]["text"]
        # When the stream then fails: the client drops the connection, or sends more than 60 s of audio
        if failure == "disconnect":
            socket.socket.shutdown(SHUT_RDWR)  # no close frame: the connection ends as when the client dies
            socket.socket.close()
            received: list[dict[str, Any]] = []
        else:
            silence = b"\x00" * (CHUNK * 8)
            for _ in range(int(60 * byte_rate) // len(silence) + 1):
                socket.send(silence)
            socket.send(json.dumps({"type": "end"}))
            received, code = messages_until_close(socket, WAIT_S)
            assert [item["type"] for item in received if item["type"] != "partial"] == ["error"] and code == 1008
            assert "lasts" in received[-1]["data"]["error"]["message"]
        socket.close()
        assert stream_threads_end() == []
    # Then nothing heard is in a log, a store, a trace or a cloud request, and no answer was asked
    out, err = capfd.readouterr()
    assert find_phi(PHI_VALUES, *logs, out, err, *(i for i in received if i["type"] == "error")) == []
    assert "Traceback" not in err
    assert find_phi(PHI_VALUES, *everything_kept(phi_stack)) == []
    assert phi_stack.cloud.raw_requests == [] and phi_stack.sagemaker.raw_requests == []
