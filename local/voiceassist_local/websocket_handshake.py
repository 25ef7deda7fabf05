"""The WebSocket opening handshake (RFC 6455 section 4), server side: http_guard.py has already run its Host,
Origin, token and body checks on the request when a face calls `handshake_refusal` and `accept`.

GET with `Upgrade: websocket` and `Connection: upgrade`, `Sec-WebSocket-Version: 13` (426 naming version 13
otherwise), a `Sec-WebSocket-Key` of 16 base64-encoded bytes; the reply's `Sec-WebSocket-Accept` is
base64(SHA-1(key + the RFC's GUID)). The `voiceassist` subprotocol is echoed when offered (browsers offer it
with the token, as on AWS: authentication.py).
"""

from __future__ import annotations

import base64
import hashlib
from email.message import Message
from http.server import BaseHTTPRequestHandler

from voiceassist.authentication import accepted_subprotocol
from voiceassist_local.websocket import Limits, WebSocket

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
VERSION = "13"


def is_upgrade(headers: Message) -> bool:
    """The request asks to switch to the WebSocket protocol."""
    return (headers.get("upgrade") or "").strip().lower() == "websocket"


def handshake_refusal(headers: Message) -> tuple[int, str, str, list[tuple[str, str]]] | None:
    """Why this request cannot be upgraded (status, code, message, extra headers), or None."""
    if not is_upgrade(headers):
        return (426, "upgrade_required", "this route speaks WebSocket: send Upgrade: websocket",
                [("Upgrade", "websocket"), ("Sec-WebSocket-Version", VERSION)])
    connection = {part.strip().lower() for part in (headers.get("connection") or "").split(",")}
    if "upgrade" not in connection:
        return 400, "bad_request", "a WebSocket handshake sends Connection: Upgrade", []
    if (headers.get("sec-websocket-version") or "").strip() != VERSION:
        return (426, "upgrade_required", "this server speaks WebSocket version 13 (RFC 6455)",
                [("Sec-WebSocket-Version", VERSION)])
    try:
        key = base64.b64decode((headers.get("sec-websocket-key") or "").strip(), validate=True)
    except ValueError:
        key = b""
    if len(key) != 16:
        return 400, "bad_request", "Sec-WebSocket-Key must be 16 random bytes, base64-encoded", []
    return None


def accept_key(key: str) -> str:
    return base64.b64encode(hashlib.sha1((key.strip() + GUID).encode("ascii")).digest()).decode("ascii")  # noqa: S324


def accept(handler: BaseHTTPRequestHandler, limits: Limits) -> WebSocket:
    """Write the 101 for a request `handshake_refusal` passed; the connection is the WebSocket's from here."""
    handler.send_response(101, "Switching Protocols")
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", accept_key(handler.headers["sec-websocket-key"]))
    protocol = accepted_subprotocol(handler.headers.get("sec-websocket-protocol"))
    if protocol:
        handler.send_header("Sec-WebSocket-Protocol", protocol)
    handler.end_headers()
    handler.wfile.flush()
    handler.close_connection = True  # the connection never returns to HTTP
    return WebSocket(handler.connection, _buffered(handler), limits)


def _buffered(handler: BaseHTTPRequestHandler) -> bytes:
    """The bytes the handler's buffered reader took from the socket past the request (a client's first frames):
    from here the WebSocket reads the socket itself, whose time-outs leave it usable."""
    connection = handler.connection
    connection.setblocking(False)
    try:
        return handler.rfile.read1(65536) or b""
    except OSError:
        return b""
    finally:
        connection.setblocking(True)
