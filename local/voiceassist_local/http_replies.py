"""How the local server writes a reply (GuardedRequestHandler's writing half; http_guard.py reads requests).

- Every reply carries REPLY_HEADERS unless the face that wrote it set the header itself (web_face sets the page's
  own policy): a JSON error quotes the request's path back, and an answer can hold PHI, so no reply may be
  sniffed as HTML, framed by another site or kept in a cache.
- A HEAD reply has the GET's headers and no body, also from a face that writes its own reply: a body after a
  HEAD reply would be read by the client as the start of the next reply on the connection.
- CORS headers only for the configured dev origins; the access log's byte count from the Content-Length.
"""

from __future__ import annotations

import contextlib
import io
import json
from http.server import BaseHTTPRequestHandler
from typing import Any

# What every reply carries unless the face that wrote it set the header itself (web_face sets the page's own).
REPLY_HEADERS = (("X-Content-Type-Options", "nosniff"),
                 ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
                 ("Cache-Control", "no-store"))


def error_json(code: str, message: str, **extra: object) -> bytes:
    """An error the server writes itself, in the API's envelope (routes/errors.py): `type` repeats the code where
    OpenAI's error bodies put it, which its SDKs read (`err.type`)."""
    return json.dumps({"error": {"code": code, "type": code, "message": message, "trace_id": "local",
                                 **extra}}).encode("utf-8")


class _NoBody(io.RawIOBase):
    """Where a HEAD reply's body goes: nowhere."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return len(data)


class ReplyWriter(BaseHTTPRequestHandler):
    """The writing half of the local server's request handler; `server` has `origins` (http_guard.GuardedServer)."""

    server: Any
    _head = False  # this request is a HEAD (http_guard's do_HEAD); reset for every request of a connection
    _status = 0
    _sent_bytes = 0

    def write_reply(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self._cors_headers(preflight=self.command == "OPTIONS")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)  # nowhere for a HEAD (end_headers)

    def send_json_error(self, status: int, code: str, message: str) -> None:
        data = error_json(code, message)
        self.close_connection = True
        headers = [("Content-Type", "application/json"), ("Connection", "close")]
        if status == 401:  # RFC 9110: a 401 names the scheme it wants
            headers.append(("WWW-Authenticate", 'Bearer realm="voiceassist"'))
        with contextlib.suppress(OSError):  # the client went away
            self.write_reply(status, headers, data)

    def _cors_headers(self, *, preflight: bool) -> None:
        headers = getattr(self, "headers", None)  # not there when the request line itself was unreadable
        origin = headers.get("origin") if headers else None
        if origin and origin in self.server.origins:
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Vary", "Origin")
            if preflight:
                self.send_header("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
                self.send_header("Access-Control-Allow-Headers", "authorization, content-type")
                self.send_header("Access-Control-Max-Age", "600")

    def send_response(self, code: int, message: str | None = None) -> None:
        self._status = code
        self._header_names: set[str] = set()
        super().send_response(code, message)

    def send_header(self, keyword: str, value: str) -> None:
        names: set[str] = getattr(self, "_header_names", set())
        names.add(keyword.lower())
        if keyword.lower() == "content-length" and value.isdigit() and not self._head:
            self._sent_bytes = int(value)  # for the access log, also of a face that writes its own reply
        super().send_header(keyword, value)

    def end_headers(self) -> None:
        """REPLY_HEADERS that the face did not set, then the blank line."""
        names: set[str] = getattr(self, "_header_names", set())
        for name, value in REPLY_HEADERS if self._status >= 200 else ():  # not on a 100 Continue
            if name.lower() not in names:
                super().send_header(name, value)
        self._header_names = set()
        super().end_headers()
        if self._head:  # HEAD: a face writes its GET body after the headers; it must not reach the connection,
            self._connection_wfile = self.wfile  # where the client would read it as the next reply's start
            self.wfile = _NoBody()  # type: ignore[assignment]  # a RawIOBase that drops what it is given
