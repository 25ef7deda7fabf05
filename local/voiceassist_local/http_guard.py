"""What makes the local HTTP server safe to leave running: the standard library's server, hardened.

- A bounded number of connections served at once (beyond it, and with none idle to close, a 503 at once, not
  a thread each), and a listen backlog of 128 (5 reset bursts of new connections).
- A socket timeout on every read (an idle keep-alive connection or a stalled body is closed), and a deadline
  for reading a whole request (headers and body): a client that trickles bytes (slowloris) is cut off.
- http.server's own errors as the API's JSON envelope, never an HTML page or a traceback.
- HEAD (a GET without the body), OPTIONS (CORS preflight for the configured dev origins), 405 otherwise.
- A bearer token when configured (required when the server listens beyond the loopback interface), on every
  request but a CORS preflight; a 401 names the scheme (WWW-Authenticate: Bearer).
- The request line and headers checked before a byte of the body is read (request_checks.py): header lines as
  HTTP allows them (a 400 for a space before a colon, obs-fold, CR or NUL in a value), framing (one
  Content-Length), no NUL in the path, no driving from websites (Host, Origin, body types), and the body
  limit of the route (a question is small, an upload is not).
- Idle connections cannot starve the rest: when every slot is taken, the connection idle the longest (open,
  waiting for its first or next request) is closed to make room, so sockets one client leaves open do not
  turn everyone else away.
- A WebSocket handshake (websocket_handshake.py) passes every check above before the upgrade, and its Origin is checked
  as a state-changing request's (browsers let any page open a WebSocket anywhere); browsers may offer the token
  as a subprotocol, since they cannot set Authorization on a WebSocket.
- A structured access log line per request (method, path without the query string, status, bytes, ms).
- Replies written by http_replies.py: security headers on every one, no body for HEAD.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import re
import socket
import sys
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from voiceassist.authentication import token_from_subprotocols
from voiceassist.errors import NOT_ISSUED, quoted_id
from voiceassist_local.http_replies import ReplyWriter, error_json
from voiceassist_local.request_checks import (
    LOOPBACK,
    Refusal,
    content_coding_refusal,
    content_length,
    cross_site_refusal,
    header_refusal,
    host_refusal,
    json_text,
    path_refusal,
    simple_body_refusal,
)
from voiceassist_local.websocket_handshake import is_upgrade

READ_TIMEOUT_S = 10.0  # per read: an idle keep-alive connection or a stalled body
REQUEST_DEADLINE_S = 30.0  # to read one whole request, headers and body
MAX_CONNECTIONS = 64
LISTEN_BACKLOG = 128
BODY_OVERHEAD = 1.4  # an upload's JSON envelope carries the file base64-encoded: 4/3 of it, and a little more
DEV_ORIGINS = ("http://localhost:3000", "http://127.0.0.1:3000", "http://localhost:5173", "http://127.0.0.1:5173")
SMALL_BODY_BYTES = 1024 * 1024  # every JSON route but the upload: a question is capped at 4,000 characters
EVICTION_WAIT_S = 1.0  # for the slot of an idle connection just closed
_BUSY_BODY = error_json("unavailable", "too many connections; try again", retry_after=1)
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
        b"X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY)

PROTOCOL_ERRORS = {
    400: "the request could not be read as HTTP/1.1 (TLS sent to this plain-HTTP port?)",
    414: "the request line is too long",
    431: "the request headers are too large",
}

access_log = logging.getLogger("voiceassist.access")
# A method as methods are named (GET, PROPFIND, BREW): another may be named back in a 405; anything else is a 400
METHOD_SHAPE = re.compile(r"[A-Z][A-Z_-]{0,19}")


def configure_access_log() -> None:
    """One JSON line per request on stderr, at INFO (the default level of the server)."""
    if access_log.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    access_log.addHandler(handler)
    access_log.setLevel(logging.INFO)
    access_log.propagate = False


class GuardedServer(ThreadingHTTPServer):
    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], *, max_body_bytes: int,
                 token: str | None = None, origins: tuple[str, ...] = DEV_ORIGINS,
                 hosts: frozenset[str] | None = None, max_connections: int = MAX_CONNECTIONS,
                 large_bodies: Mapping[tuple[str, str], int] | None = None,
                 small_body_bytes: int = SMALL_BODY_BYTES) -> None:
        super().__init__(address, handler)
        self.max_body_bytes = max_body_bytes
        # (method, path) -> the body limit of a route that takes a file (up to max_body_bytes); every other route
        # takes small_body_bytes
        self.large_bodies = {route: min(limit, max_body_bytes) for route, limit in (large_bodies or {}).items()}
        self.small_body_bytes = min(small_body_bytes, max_body_bytes)
        self.token = token
        self.origins = origins
        self.hosts = hosts  # None: any Host (a wildcard binding, where the token is what guards)
        self._slots = threading.BoundedSemaphore(max_connections)
        self._idle: dict[socket.socket, float] = {}  # connections waiting for a request -> since when
        self._idle_lock = threading.Lock()

    def body_limit(self, method: str, path: str) -> int:
        return self.large_bodies.get((method, path), self.small_body_bytes)

    def mark_idle(self, connection: socket.socket, idle: bool) -> None:
        with self._idle_lock:
            if idle:
                self._idle.setdefault(connection, time.monotonic())
            else:
                self._idle.pop(connection, None)

    def _close_longest_idle(self) -> bool:
        with self._idle_lock:
            if not self._idle:
                return False
            connection = min(self._idle, key=self._idle.__getitem__)
            del self._idle[connection]
        with contextlib.suppress(OSError):  # its reader sees the end of the stream and frees the slot
            connection.shutdown(socket.SHUT_RDWR)
        return True

    def process_request(self, request: Any, client_address: Any) -> None:
        has_slot = self._slots.acquire(blocking=False)
        if not has_slot and self._close_longest_idle():
            has_slot = self._slots.acquire(timeout=EVICTION_WAIT_S)
        if not has_slot:
            try:
                request.settimeout(1.0)
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.mark_idle(request, False)
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        access_log.warning(json.dumps({"event": "connection_error", "error": type(sys.exc_info()[1]).__name__}))


class GuardedRequestHandler(ReplyWriter):
    """Subclasses implement `respond(body)`; everything about reading the request safely is here."""

    server: GuardedServer
    timeout = READ_TIMEOUT_S
    # TCP_NODELAY: a reply goes out as two writes (the headers, then the body), and with Nagle's algorithm the body
    # waited for the client's delayed ACK of the headers, 40 ms, on every request of a kept-alive connection after
    # its first few (100 GET /v1/health on one connection: 46 ms a request before, 3 ms after; docs/benchmarks.md)
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server_version = "VoiceAssistLocal/0.2"
    sys_version = ""

    def respond(self, body: bytes) -> None:
        raise NotImplementedError

    # ---- one request -------------------------------------------------------------------------------------
    def handle_one_request(self) -> None:
        self.server.mark_idle(self.connection, True)  # until its request line arrives (parse_request)
        self._started = time.perf_counter()
        self._status, self._sent_bytes, self._deadline_hit = 0, 0, False
        # one handler serves every request of a kept-alive connection: a HEAD before must not drop this one's body
        self._head = False
        self.wfile = getattr(self, "_connection_wfile", self.wfile)
        deadline = threading.Timer(REQUEST_DEADLINE_S, self._cut_off)
        deadline.daemon = True
        self._deadline = deadline
        deadline.start()
        try:
            super().handle_one_request()
        except (TimeoutError, ConnectionError):
            self.close_connection = True
        finally:
            deadline.cancel()
        if self._status:
            self._log_access()

    def parse_request(self) -> bool:
        self.server.mark_idle(self.connection, False)
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":  # "GET /path" alone: http.server would answer a bare body
            self.send_error(400)
            return False
        refusal = header_refusal(self.headers)  # before anything reads a header: the parser may have dropped some
        if refusal is not None:
            self.send_json_error(*refusal)  # and closes the connection: where this request ends is unknown
            return False
        return True

    def _cut_off(self) -> None:
        """The request took longer than REQUEST_DEADLINE_S to arrive: close the socket under the reader."""
        self._deadline_hit = True
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _dispatch(self) -> None:
        body = self._admit()
        if body is not None:
            self.respond(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _dispatch

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self._head = True
        self.command = "GET"
        self._dispatch()

    do_OPTIONS = _dispatch  # the API answers 204 with the path's Allow; write_reply adds the CORS preflight

    def _admit(self) -> bytes | None:
        """The request's body, once the caller is admitted and the body is read; None after an error reply."""
        # a CORS preflight carries no credentials (browsers never send them on it), as API Gateway answers it
        upgrade = is_upgrade(self.headers)
        if self.server.token and self.command != "OPTIONS" and not self._token_matches(upgrade):
            self.send_json_error(401, "unauthorized", "send Authorization: Bearer <VOICEASSIST_LOCAL_TOKEN>")
            return None
        # a WebSocket is not bound by CORS (any page may open one to 127.0.0.1): its handshake, a GET, is checked
        # like a request that changes data, from this server's page or a configured dev origin only
        refusal = (path_refusal(self.path) or host_refusal(self.headers, self.request_version)
                   or cross_site_refusal("POST" if upgrade else self.command, self.headers, hosts=self.server.hosts,
                                         origins=self.server.origins, target=self.path))
        length = content_length(self.headers)
        if refusal is None and upgrade and length:
            refusal = 400, "bad_request", "a WebSocket handshake has no body"
        if refusal is None:
            refusal = self._body_refusal(length) if isinstance(length, int) else length
        if refusal is not None or not isinstance(length, int):
            self.send_json_error(*(refusal or (400, "bad_request", "the body's length could not be read")))
            return None
        body = self.rfile.read(length) if length else b""
        if len(body) < length:  # the client stopped sending (or was cut off): nobody to answer
            self.close_connection = True
            return None
        self._deadline.cancel()
        if not json_text(self.headers, body):
            self.send_json_error(400, "invalid_request", "the JSON body is not valid UTF-8 (RFC 8259 requires it)")
            return None
        return body

    def _body_refusal(self, length: int) -> Refusal | None:
        """A body of a type websites send unasked, or over its route's limit (before it is read)."""
        refusal = simple_body_refusal(self.command, self.headers, length) or content_coding_refusal(self.headers,
                                                                                                 length)
        limit = self.server.body_limit(self.command, self.path.split("?", 1)[0])
        if refusal is None and length > limit:
            refusal = 413, "payload_too_large", f"the body is {length} bytes; the limit of this route is {limit} bytes"
        return refusal

    def _token_matches(self, upgrade: bool = False) -> bool:
        """The bearer token, or on a WebSocket handshake the token offered as a subprotocol beside `voiceassist`
        (browsers cannot set Authorization on a WebSocket; the same convention as on AWS, authentication.py)."""
        sent = self.headers.get("authorization") or ""
        scheme, _, value = sent.partition(" ")
        if scheme.lower() != "bearer" and upgrade:
            scheme, value = "bearer", token_from_subprotocols(self.headers.get("sec-websocket-protocol")) or ""
        expected = self.server.token or ""  # never called without one (a server with no token guards nothing)
        return bool(expected) and scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(),
                                                                                     expected.encode())

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (a malformed request line, an unknown method, an over-long header) as
        the API's JSON envelope. An unsupported method (TRACE, CONNECT, ...) is a 405."""
        self.request_version = self.protocol_version  # an unreadable request line would leave HTTP/0.9: no headers
        if code == 501 and not METHOD_SHAPE.fullmatch(self.command or ""):  # never echoed nor logged
            self.command = "-"
            self.send_json_error(400, "bad_request", "the request's method is not an HTTP method; see /v1/openapi.json")
            return
        if code == 501 and getattr(self, "headers", None) is not None:
            self._dispatch()  # TRACE, CONNECT, ...: the API answers 405 with the path's Allow header (or 404)
            return
        if code == 501:
            code, message = 405, f"the method {self.command} is not supported; see /v1/openapi.json"
        else:  # http.server's messages echo the request line, which can carry a query string
            message = PROTOCOL_ERRORS.get(code, "the request could not be read as HTTP/1.1")
        self.send_json_error(code, "method_not_allowed" if code == 405 else "bad_request", message)

    # ---- logging -----------------------------------------------------------------------------------------
    def _log_access(self) -> None:
        path = logged_path((getattr(self, "path", "") or "").split("?", 1)[0])  # query strings: titles, file names
        access_log.info(json.dumps({
            "event": "access", "method": "HEAD" if self._head else (self.command or "-"),
            "path": path,
            "status": self._status, "bytes": self._sent_bytes,
            "ms": round((time.perf_counter() - self._started) * 1000, 1), "client": self.client_address[0],
        }))

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return  # replaced by the structured access log (request lines carry query strings)


def logged_path(path: str) -> str:
    """The path as the access log keeps it: a segment not shaped like a route's or an id this API issues (a patient's
    name typed where a session id goes, thousands of characters) is replaced by <not-an-id>."""
    segments = path.split("/")
    return "/".join(s if not s or quoted_id(s) != NOT_ISSUED else "<not-an-id>" for s in segments)


def check_binding(host: str, token: str | None) -> str | None:
    """A warning to print when the server listens beyond the loopback interface; refuses it without a token."""
    if host in LOOPBACK:
        return None
    if not token:
        from voiceassist.errors import InvalidInput

        raise InvalidInput(f"listening on {host} exposes the API beyond this machine: set VOICEASSIST_LOCAL_TOKEN "
                           "(callers then send Authorization: Bearer <token>), or use --host 127.0.0.1")
    return (f"warning: the API listens on {host}, reachable from other machines; every request needs "
            "Authorization: Bearer <VOICEASSIST_LOCAL_TOKEN>, and traffic is not encrypted (no TLS)")
