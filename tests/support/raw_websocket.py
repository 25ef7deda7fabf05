"""A WebSocket client written frame by frame over a plain socket, for what a correct client (the `websockets`
package) will not send: unmasked frames, bad UTF-8, reserved bits, oversized length headers, fragments with a
ping between them, an abrupt disconnect."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from typing import Any

TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0
WAIT_S = 60.0  # generous: the server may be slow on a loaded machine


def handshake(address: tuple[str, int], path: str, *, headers: dict[str, str] | None = None
              ) -> tuple[socket.socket, bytes]:
    """Send the opening handshake; the socket and the reply's head (status line and headers)."""
    connection = socket.create_connection(address, timeout=WAIT_S)
    fields = {"Host": f"127.0.0.1:{address[1]}", "Upgrade": "websocket", "Connection": "Upgrade",
              "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(), "Sec-WebSocket-Version": "13",
              **(headers or {})}
    request = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items() if v) + "\r\n"
    connection.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(1)
        if not chunk:
            break
        head += chunk
    return connection, head


def status_of(head: bytes) -> int:
    return int(head.split(b" ", 2)[1])


def frame(opcode: int, payload: bytes, *, fin: bool = True, masked: bool = True, rsv: int = 0,
          length: int | None = None) -> bytes:
    """One frame; `length` overrides the length written in the header (the payload is sent as given)."""
    size = len(payload) if length is None else length
    first = (0x80 if fin else 0) | rsv << 4 | opcode
    mask_bit = 0x80 if masked else 0
    if size < 126:
        head = struct.pack("!BB", first, mask_bit | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", first, mask_bit | 126, size)
    else:
        head = struct.pack("!BBQ", first, mask_bit | 127, size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def read_frame(connection: socket.socket) -> tuple[int, bytes] | None:
    """The server's next frame (opcode, payload), or None when the connection ended."""
    head = _read(connection, 2)
    if head is None:
        return None
    size = head[1] & 0x7F
    assert not head[1] & 0x80, "a server's frames are never masked"
    if size == 126:
        size = struct.unpack("!H", _read(connection, 2) or b"\0\0")[0]
    elif size == 127:
        size = struct.unpack("!Q", _read(connection, 8) or b"\0" * 8)[0]
    payload = _read(connection, size) if size else b""
    return (head[0] & 0x0F, payload) if payload is not None else None


def close_of(connection: socket.socket) -> tuple[int, str] | None:
    """Read until the server's close frame: its code and reason (None if it closed without one)."""
    while True:
        item = read_frame(connection)
        if item is None:
            return None
        if item[0] == CLOSE:
            return struct.unpack("!H", item[1][:2])[0], item[1][2:].decode()


def ended(connection: socket.socket) -> bool:
    """The server closed its side of the TCP connection (after its close frame)."""
    try:
        return connection.recv(1) == b""
    except OSError:
        return True


def _read(connection: socket.socket, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        try:
            chunk = connection.recv(count - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data


def json_text(item: Any) -> bytes:
    return json.dumps(item).encode()
