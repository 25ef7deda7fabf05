"""Reading a voice stream's JSON messages with the `websockets` client until the server closes the connection
(tests/integration/test_voice_stream.py and test_voice_stream_phi.py)."""

from __future__ import annotations

import json
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection


def messages_until_close(socket: ClientConnection, timeout_s: float) -> tuple[list[dict[str, Any]], int | None]:
    """Every message received until the close, and the close code the server sent (None without one)."""
    received = []
    try:
        while True:
            received.append(json.loads(socket.recv(timeout=timeout_s)))
    except ConnectionClosed as closed:
        return received, closed.rcvd.code if closed.rcvd else None
