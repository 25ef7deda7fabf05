"""RFC 6455 WebSockets, server side, inside the guarded local server: the connection once the handshake
(websocket_handshake.py, after http_guard.py's Host, Origin, token and body checks) has switched protocols.

- No extension is negotiated, so the RSV bits must be 0.
- Frames: every client frame masked (1002 otherwise); text and binary messages in one frame or fragmented with
  continuation frames; control frames (ping, pong, close) at most 125 bytes and never fragmented, allowed between
  fragments; a ping is answered with a pong carrying its payload. A text message must be valid UTF-8 (1007),
  checked as its fragments arrive.
- Limits (`Limits`): the bytes of one message (1009 before its payload is read), of the whole connection (1009),
  how long the connection may take (1008) and how long it may stay silent (1008).
- Closing: a close frame from the client is answered with the same code; a violation sends its code and reason,
  then the TCP connection is closed (the server closes first, RFC 6455 7.1.1). An abrupt disconnect is code 1006.
  Every end is a `ConnectionClosed`: nothing here raises anything else to the caller or logs what was sent.
"""

from __future__ import annotations

import codecs
import contextlib
import socket
import struct
import threading
import time
from dataclasses import dataclass

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
NORMAL, GOING_AWAY, PROTOCOL_ERROR, UNSUPPORTED_DATA, NO_STATUS, ABNORMAL = 1000, 1001, 1002, 1003, 1005, 1006
INVALID_DATA, POLICY, TOO_BIG, SERVER_ERROR = 1007, 1008, 1009, 1011
MAX_CONTROL_PAYLOAD = 125
CLOSE_WAIT_S = 2.0  # for the client's answer to the server's close frame
# Close codes a client may send (RFC 6455 7.4.1 and the IANA registry); 1005, 1006 and 1015 never go on the wire
_SENDABLE = frozenset({1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014})

@dataclass(frozen=True)
class Limits:
    message_bytes: int  # one message, all its fragments
    connection_bytes: int  # every payload the client sends
    connection_seconds: float  # from the handshake to the last message read
    idle_seconds: float  # between two frames


class ConnectionClosed(Exception):  # noqa: N818 - the state, as the websockets package names it
    """The connection ended: `code` is what was sent or received (1006: it dropped without a close frame)."""

    def __init__(self, code: int, reason: str = "") -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason


def _unmask(data: bytes, key: bytes) -> bytes:
    size = len(data)
    stream = (key * (size // 4 + 1))[:size]
    return (int.from_bytes(data, "little") ^ int.from_bytes(stream, "little")).to_bytes(size, "little")


def _frame(opcode: int, payload: bytes) -> bytes:
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, size)
    return head + payload


class WebSocket:
    """One server-side connection. `receive` from one thread; `send_*` and `close` from any."""

    def __init__(self, connection: socket.socket, pending: bytes, limits: Limits) -> None:
        self._socket = connection
        self._buffer = bytearray(pending)  # what the handler's reader had already taken from the socket
        self._active = time.monotonic()  # the last frame received or message sent
        self._held = False
        self._held_at = 0.0
        self._background: threading.Thread | None = None  # listen_in_background's reader
        self._limits = limits
        self._started = time.monotonic()
        self._received = 0
        self._send_lock = threading.Lock()
        self._closing = False
        self._wait = limits.idle_seconds  # the longest one read may wait (shorter while closing)
        self.closed: ConnectionClosed | None = None

    # ---- reading -------------------------------------------------------------------------------------------
    def receive(self) -> str | bytes:
        """The next message (text as str, binary as bytes); raises ConnectionClosed when the connection ends."""
        if self.closed is not None:
            raise self.closed
        opcode: int | None = None
        parts: list[bytes] = []
        size = 0
        text = codecs.getincrementaldecoder("utf-8")()
        while True:
            fin, kind, payload = self._read_frame(self._limits.message_bytes - size)
            if kind >= CLOSE:
                self._control(fin, kind, payload)
                continue
            if (kind == CONTINUATION) == (opcode is None):
                self._fail(PROTOCOL_ERROR, "a continuation frame with no message to continue" if opcode is None
                           else "a new message began inside a fragmented one")
            if kind not in (CONTINUATION, TEXT, BINARY):
                self._fail(PROTOCOL_ERROR, f"unknown opcode {kind}")
            opcode = kind if opcode is None else opcode
            size += len(payload)
            if opcode == TEXT:
                try:
                    text.decode(payload, final=fin)
                except UnicodeDecodeError:
                    self._fail(INVALID_DATA, "a text message must be valid UTF-8")
            parts.append(payload)
            if fin:
                data = b"".join(parts)
                return data.decode("utf-8") if opcode == TEXT else data

    def _control(self, fin: bool, kind: int, payload: bytes) -> None:
        if not fin or len(payload) > MAX_CONTROL_PAYLOAD:
            self._fail(PROTOCOL_ERROR, "a control frame must be whole and at most 125 bytes")
        if kind == PING:
            self._send(PONG, payload)
        elif kind == CLOSE:
            code, reason = self._close_payload(payload)
            self._send_close(code if code != NO_STATUS else NORMAL, "")
            self._drop()
            raise self._ended(code, reason)
        elif kind != PONG:
            self._fail(PROTOCOL_ERROR, f"unknown control opcode {kind}")

    def _close_payload(self, payload: bytes) -> tuple[int, str]:
        if not payload:
            return NO_STATUS, ""
        if len(payload) == 1:
            self._fail(PROTOCOL_ERROR, "a close frame's code is two bytes")
        code = struct.unpack("!H", payload[:2])[0]
        if code not in _SENDABLE and not 3000 <= code <= 4999:
            self._fail(PROTOCOL_ERROR, f"close code {code} is not one a client may send")
        try:
            return code, payload[2:].decode("utf-8")
        except UnicodeDecodeError:
            self._fail(INVALID_DATA, "a close reason must be valid UTF-8")
            raise  # unreachable: _fail raises

    def _read_frame(self, room: int) -> tuple[bool, int, bytes]:
        first, second = self._read(2)
        if first & 0x70:
            self._fail(PROTOCOL_ERROR, "reserved bits set, and no extension was negotiated")
        if not second & 0x80:
            self._fail(PROTOCOL_ERROR, "a client's frames must be masked")
        size = second & 0x7F
        if size == 126:
            size = struct.unpack("!H", self._read(2))[0]
        elif size == 127:
            size = struct.unpack("!Q", self._read(8))[0]
            if size >> 63:
                self._fail(PROTOCOL_ERROR, "a frame's length has its top bit set")
        opcode = first & 0x0F
        if opcode < CLOSE and size > room:
            self._fail(TOO_BIG, f"a message may hold at most {self._limits.message_bytes} bytes")
        if self._received + size > self._limits.connection_bytes:
            self._fail(TOO_BIG, f"a connection may send at most {self._limits.connection_bytes} bytes")
        key = self._read(4)
        payload = _unmask(self._read(size), key) if size else b""
        self._received += size
        return bool(first & 0x80), opcode, payload

    def _read(self, count: int) -> bytes:
        """`count` bytes from the socket, waiting at most until the connection's deadline and, while nothing is
        held (`hold_idle`), `idle_seconds` since the last frame received or message sent."""
        while len(self._buffer) < count:
            now = time.monotonic()
            if self._closing:  # waiting for the client's close frame, a little
                left = quiet = self._wait - (now - self._active)
            elif self._background is not None or self._held:
                # answering pings only (see close()), or the server owes the client a message: no limit runs
                left = quiet = self._limits.idle_seconds
            else:
                left = self._limits.connection_seconds - (now - self._started)
                quiet = self._wait - (now - self._active)
            if left <= 0:
                self._fail(POLICY, f"a connection may last at most {self._limits.connection_seconds:.0f} s")
            if quiet <= 0:
                self._fail(POLICY, f"nothing was received for {self._limits.idle_seconds:.0f} s")
            try:
                self._socket.settimeout(min(left, quiet))
                chunk = self._socket.recv(max(count - len(self._buffer), 65536))
            except TimeoutError:
                continue  # the loop says which limit passed (or waits on: a message went out meanwhile)
            except OSError:  # reset, or shut down under us
                chunk = b""
            if not chunk:
                self._drop()
                raise self._ended(ABNORMAL, "the connection dropped without a close frame")
            self._buffer += chunk
        self._active = time.monotonic()
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    def hold_idle(self, held: bool) -> None:
        """While held, the client is waiting for the server (a partial transcript decoding): it is not idle, and
        the time does not count toward the connection's duration (the server, not the client, is slow)."""
        now = time.monotonic()
        if held and not self._held:
            self._held_at = now
        elif self._held and not held:
            self._started += now - self._held_at
        self._held = held
        self._active = now

    # ---- writing -------------------------------------------------------------------------------------------
    def send_text(self, text: str) -> None:
        self._send(TEXT, text.encode("utf-8"))

    def send_binary(self, data: bytes) -> None:
        self._send(BINARY, data)

    def listen_in_background(self, name: str) -> None:
        """From here the server only sends: a thread reads on, answering pings (a client's keep-alive must not
        time out while the server transcribes and answers), taking the client's close or drop, and failing the
        connection (1008) if a message comes. No idle or duration limit applies to it; `close` ends it."""
        def listen() -> None:
            with contextlib.suppress(ConnectionClosed):
                self.receive()
                self._fail(POLICY, "nothing is expected after the end message")

        self._background = threading.Thread(target=listen, name=name, daemon=True)
        self._background.start()

    def close(self, code: int = NORMAL, reason: str = "") -> None:
        """The server's close: send the frame, wait a little for the client's, then close the connection."""
        if self.closed is not None:
            return
        self._send_close(code, reason)
        self._wait, self._active = CLOSE_WAIT_S, time.monotonic()
        if self._background is not None:  # it reads the client's close frame
            self._background.join(CLOSE_WAIT_S)
            self._drop()
            self._background.join()
            self.closed = self.closed or ConnectionClosed(code, reason)
            return
        with contextlib.suppress(ConnectionClosed):
            deadline = time.monotonic() + CLOSE_WAIT_S
            while time.monotonic() < deadline:  # discard what was in flight until its close frame
                if self._read_frame(self._limits.message_bytes)[1] == CLOSE:
                    break
        self._drop()
        self.closed = self.closed or ConnectionClosed(code, reason)

    def _send(self, opcode: int, payload: bytes) -> None:
        with self._send_lock:
            if self._closing:
                raise self.closed or ConnectionClosed(ABNORMAL, "closing")
            try:
                self._socket.sendall(_frame(opcode, payload))
                self._active = time.monotonic()
            except OSError:
                self._closing = True
                self._drop()
                raise self._ended(ABNORMAL, "the connection dropped") from None

    def _send_close(self, code: int, reason: str) -> None:
        with self._send_lock:
            if self._closing:
                return
            self._closing = True
            with contextlib.suppress(OSError):
                self._socket.sendall(_frame(CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[:123]))

    def _fail(self, code: int, reason: str) -> None:
        """Fail the connection (RFC 6455 7.1.7): the close frame with `code`, then the TCP connection closed."""
        self._send_close(code, reason)
        self._drop()
        raise self._ended(code, reason)

    def _ended(self, code: int, reason: str) -> ConnectionClosed:
        self.closed = self.closed or ConnectionClosed(code, reason)
        return self.closed

    def _drop(self) -> None:
        self._closing = True
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
