"""The local server's WebSocket (voiceassist_local/websocket.py, on GET /v1/voice/stream) against a real client
(the `websockets` package) and against a client that breaks RFC 6455 on purpose (tests/support/raw_websocket.py):
the guard runs before the upgrade, the handshake is the RFC's, and every violation closes with its code, without
a traceback, a logged payload or a thread left behind.

The recognizer here is a double that reports what it was given (the transport is under test, not Whisper); the
stream protocol with Whisper and the PHI boundary: test_voice_stream.py."""

from __future__ import annotations

import json
import struct
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from voiceassist_local import voice_stream
from voiceassist_local.server import make_server
from voiceassist_local.websocket import Limits
from voiceassist_local.websocket_handshake import GUID, accept_key
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.support import raw_websocket as raw
from voiceassist.speech import Transcript
from voiceassist.speech.stream import PCM_BYTES_PER_SECOND

PATH = "/v1/voice/stream"
START_PCM = json.dumps({"type": "start", "format": "audio/pcm", "ask": False, "partials": False})
WAIT_S = 60.0


class MeasuringRecognizer:
    """Hears how much audio it was given (a double: this file tests the transport)."""

    name = "measuring"

    def transcribe(self, audio: bytes, *, max_seconds: float = 60.0) -> Transcript:
        return Transcript(text=f"{len(audio)} bytes", language="en", duration_seconds=0.0, confidence=0.0,
                          engine=self.name)


def start_server(**kwargs: Any) -> Any:
    server = make_server("127.0.0.1", 0, **kwargs)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


@pytest.fixture
def server(local_deps: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(local_deps, "speech_to_text", MeasuringRecognizer())
    server = start_server()
    yield server
    server.shutdown()
    server.server_close()


def ws_url(server: Any) -> str:
    return f"ws://127.0.0.1:{server.server_address[1]}{PATH}"


def stream_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(("voice-", "query-"))]


def test_websocket_handshake_answers_the_rfc_accept_key_and_echoes_the_app_subprotocol(server: Any) -> None:
    # RFC 6455 1.3's worked example
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    assert GUID == "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    with connect(ws_url(server), subprotocols=["voiceassist"], open_timeout=WAIT_S) as socket:  # type: ignore[list-item]
        assert socket.subprotocol == "voiceassist"
        socket.send(START_PCM)
        socket.send(b"\x00\x01" * 8000)
        socket.send(json.dumps({"type": "end"}))
        transcript = json.loads(socket.recv(timeout=WAIT_S))
        assert transcript == {"type": "transcript", "data": {**transcript["data"], "text": "16044 bytes"}}
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=WAIT_S)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000


def test_websocket_route_refuses_a_plain_get_and_another_protocol_version_with_426(server: Any) -> None:
    with pytest.raises(urllib.error.HTTPError) as plain:
        urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}{PATH}", timeout=WAIT_S)  # noqa: S310
    assert plain.value.code == 426 and plain.value.headers["Sec-WebSocket-Version"] == "13"
    assert json.loads(plain.value.read())["error"]["code"] == "upgrade_required"
    connection, head = raw.handshake(server.server_address, PATH, headers={"Sec-WebSocket-Version": "8"})
    with connection:
        assert raw.status_of(head) == 426 and b"Sec-WebSocket-Version: 13" in head
    connection, head = raw.handshake(server.server_address, PATH, headers={"Sec-WebSocket-Key": "c2hvcnQ="})
    with connection:
        assert raw.status_of(head) == 400


def test_websocket_handshake_from_another_site_or_host_is_refused_before_the_upgrade(server: Any) -> None:
    # A page on any website may open a WebSocket to 127.0.0.1 (CORS does not apply): the guard checks its Origin
    for headers, status in (({"Origin": "https://attacker.example"}, 403), ({"Sec-Fetch-Site": "cross-site"}, 403),
                            ({"Host": "attacker.example"}, 421)):
        connection, head = raw.handshake(server.server_address, PATH, headers=headers)
        with connection:
            assert raw.status_of(head) == status, headers
            assert b"Sec-WebSocket-Accept" not in head
    own = f"http://127.0.0.1:{server.server_address[1]}"
    with connect(ws_url(server), origin=own, open_timeout=WAIT_S) as socket:  # type: ignore[arg-type]
        socket.send(START_PCM)


def test_websocket_with_a_token_configured_needs_it_as_a_bearer_or_a_subprotocol(local_deps: Any) -> None:
    server = start_server(token="s3cret-token")
    try:
        with pytest.raises(InvalidStatus) as refused:
            connect(ws_url(server), open_timeout=WAIT_S)
        assert refused.value.response.status_code == 401
        # browsers cannot set Authorization on a WebSocket: the token is offered beside `voiceassist`, as on AWS
        with connect(ws_url(server), subprotocols=["voiceassist", "s3cret-token"],  # type: ignore[list-item]
                     open_timeout=WAIT_S) as socket:
            assert socket.subprotocol == "voiceassist"
        with connect(ws_url(server), additional_headers={"Authorization": "Bearer s3cret-token"},
                     open_timeout=WAIT_S):
            pass
        with pytest.raises(InvalidStatus):
            connect(ws_url(server), subprotocols=["voiceassist", "wrong"], open_timeout=WAIT_S)  # type: ignore[list-item]
    finally:
        server.shutdown()
        server.server_close()


def test_websocket_reassembles_fragments_and_answers_a_ping_between_them(server: Any) -> None:
    connection, head = raw.handshake(server.server_address, PATH)
    with connection:
        assert raw.status_of(head) == 101
        start = START_PCM.encode()
        connection.sendall(raw.frame(raw.TEXT, start[:10], fin=False) + raw.frame(raw.PING, b"are you there")
                           + raw.frame(raw.CONTINUATION, start[10:20], fin=False)
                           + raw.frame(raw.CONTINUATION, start[20:]))
        assert raw.read_frame(connection) == (raw.PONG, b"are you there")
        audio = b"\x01\x00" * 1000
        connection.sendall(raw.frame(raw.BINARY, audio[:500], fin=False) + raw.frame(raw.CONTINUATION, audio[500:])
                           + raw.frame(raw.TEXT, b'{"type": "end"}'))
        opcode, payload = raw.read_frame(connection) or (0, b"")
        assert opcode == raw.TEXT and json.loads(payload)["data"]["text"] == f"{44 + 2000} bytes"
        assert raw.close_of(connection) == (1000, "")


@pytest.mark.parametrize(("frames", "code"), [
    pytest.param([raw.frame(raw.TEXT, START_PCM.encode(), masked=False)], 1002, id="unmasked"),
    pytest.param([raw.frame(raw.TEXT, b"{}", rsv=4)], 1002, id="reserved-bits"),
    pytest.param([raw.frame(raw.CONTINUATION, b"{}")], 1002, id="continuation-first"),
    pytest.param([raw.frame(raw.PING, b"x" * 126)], 1002, id="long-ping"),
    pytest.param([raw.frame(0x3, b"")], 1002, id="unknown-opcode"),
    pytest.param([raw.frame(raw.TEXT, b'{"type": "caf\xc3', fin=False), raw.frame(raw.TEXT, b"\xa9")], 1002,
                 id="new-message-inside-a-fragmented-one"),
    pytest.param([raw.frame(raw.TEXT, b'{"type": "caf\xff"}')], 1007, id="bad-utf8"),
    pytest.param([raw.frame(raw.TEXT, b'{"type": "caf\xe9(', fin=False)], 1007, id="bad-utf8-in-a-fragment"),
    pytest.param([raw.frame(raw.BINARY, b"", length=5 * 1024 * 1024)], 1009, id="oversized-message"),
])
def test_websocket_protocol_violation_closes_with_its_code_and_no_traceback(
        server: Any, frames: list[bytes], code: int, capfd: pytest.CaptureFixture[str]) -> None:
    connection, head = raw.handshake(server.server_address, PATH)
    with connection:
        assert raw.status_of(head) == 101
        for item in frames:
            connection.sendall(item)
        closed = raw.close_of(connection)
        assert closed is not None and closed[0] == code
        assert raw.ended(connection)
    assert "Traceback" not in capfd.readouterr().err


def test_websocket_stream_over_the_audio_limit_is_refused_with_413_and_1009(server: Any) -> None:
    with connect(ws_url(server), open_timeout=WAIT_S, max_size=None) as socket:
        socket.send(START_PCM)
        for _ in range(5):  # 5 x 1 MiB: the fifth passes the 4 MiB a recording may hold
            try:
                socket.send(b"\x00" * (1024 * 1024))
            except ConnectionClosed:
                break
        error = json.loads(socket.recv(timeout=WAIT_S))
        assert error["type"] == "error" and error["data"]["error"]["code"] == "payload_too_large"
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=WAIT_S)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_websocket_client_close_is_answered_with_its_code(server: Any) -> None:
    connection, head = raw.handshake(server.server_address, PATH)
    with connection:
        connection.sendall(raw.frame(raw.TEXT, START_PCM.encode()) + raw.frame(raw.CLOSE, struct.pack("!H", 1001)))
        assert raw.close_of(connection) == (1001, "")
        assert raw.ended(connection)


def test_websocket_silent_or_slow_client_is_closed_with_1008(local_deps: Any, monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr(voice_stream, "LIMITS", Limits(message_bytes=1024, connection_bytes=4096,
                                                       connection_seconds=30.0, idle_seconds=0.5))
    server = start_server()
    try:
        connection, head = raw.handshake(server.server_address, PATH)
        with connection:
            connection.sendall(raw.frame(raw.TEXT, START_PCM.encode()))
            closed = raw.close_of(connection)  # nothing more is sent
            assert closed is not None and closed[0] == 1008 and "nothing was received" in closed[1]
        monkeypatch.setattr(voice_stream, "LIMITS", Limits(message_bytes=1024, connection_bytes=4096,
                                                           connection_seconds=1.0, idle_seconds=30.0))
        connection, head = raw.handshake(server.server_address, PATH)
        with connection:
            connection.sendall(raw.frame(raw.TEXT, START_PCM.encode()))
            time.sleep(1.5)
            connection.sendall(raw.frame(raw.BINARY, b"\x00\x00"))
            closed = raw.close_of(connection)
            assert closed is not None and closed[0] == 1008 and "at most 1 s" in closed[1]
    finally:
        server.shutdown()
        server.server_close()


def test_websocket_abrupt_disconnect_leaves_no_thread_and_no_traceback(
        server: Any, capfd: pytest.CaptureFixture[str]) -> None:
    before = threading.active_count()
    connection, head = raw.handshake(server.server_address, PATH)
    connection.sendall(raw.frame(raw.TEXT, START_PCM.encode()) + raw.frame(raw.BINARY, b"\x00" * PCM_BYTES_PER_SECOND,
                                                                              fin=False))
    connection.close()  # mid-message, no close frame
    deadline = time.monotonic() + WAIT_S
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before, [t.name for t in threading.enumerate()]
    assert stream_threads() == []
    assert "Traceback" not in capfd.readouterr().err
