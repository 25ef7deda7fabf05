"""A local NCBI E-utilities server on 127.0.0.1 that answers ESearch and EFetch from recorded fixtures.

It honours ESearch's `retmax` and EFetch's `id` list (so top_k and the id order matter as they do at NCBI),
records every request it received, parameters of the query string and of a form body alike (what a PHI check
must inspect), and plays one-shot faults before the recorded answers:

    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(status=500), StubResponse(status=429, headers={"Retry-After": "1"}))
        stub.fail("efetch", StubResponse(reset=True))
        hits = PubMedClient(stub.base_url).search("metformin dose in CKD")
        assert [r.route for r in stub.requests] == ["esearch"] * 3 + ["efetch"] * 2
        assert not any("John Smith" in r.raw_text for r in stub.requests)

Faults: an HTTP status with any body and headers, a delay before answering (interrupted when the stub
stops), a connection reset without an answer, or a body of your own (malformed XML, an NCBI error payload:
see fixture_bytes for the recorded ones).
"""

from __future__ import annotations

import json
import re
import socket
import struct
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.support.local_server import LocalServer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pubmed"
ROUTES = {"/esearch.fcgi": "esearch", "/efetch.fcgi": "efetch"}
_ARTICLE = re.compile(rb"<(PubmedArticle|PubmedBookArticle)>.*?</\1>\s*", re.S)
_PMID = re.compile(rb"<PMID[^>]*>\s*([0-9]+)\s*</PMID>")


def fixture_bytes(name: str) -> bytes:
    """A recorded answer from tests/fixtures/pubmed, e.g. "esearch_error.json" or "efetch_error.xml"."""
    return (FIXTURES / name).read_bytes()


@dataclass(frozen=True)
class StubResponse:
    status: int = 200
    body: bytes | None = None  # None: the route's recorded answer (a 200 needs one; an error gets a short text)
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # wait this long before answering
    reset: bool = False  # drop the connection with a TCP reset instead of answering


@dataclass(frozen=True)
class StubRequest:
    method: str
    route: str  # "esearch", "efetch", or the path of anything else
    path: str  # as received, with any query string
    params: dict[str, str]  # query string and form body together
    body: str

    @property
    def raw_text(self) -> str:
        """Everything the client sent but the headers: what a PHI or secret check scans."""
        return f"{self.path}\n{self.body}"


class PubMedStub(LocalServer):
    def __init__(self, *, esearch: bytes | None = None, efetch: bytes | None = None) -> None:
        self.esearch_body = esearch if esearch is not None else fixture_bytes("esearch_metformin.json")
        self.efetch_body = efetch if efetch is not None else fixture_bytes("efetch_metformin.xml")
        self.requests: list[StubRequest] = []
        self._faults: dict[str, deque[StubResponse]] = {route: deque() for route in ROUTES.values()}
        super().__init__()

    @property
    def base_url(self) -> str:
        return self.origin

    def fail(self, route: str, *responses: StubResponse) -> None:
        """Answer the next requests to route ("esearch" or "efetch") with these, in order, then as recorded."""
        with self._lock:
            self._faults[route].extend(responses)

    def requests_to(self, route: str) -> list[StubRequest]:
        with self._lock:
            return [r for r in self.requests if r.route == route]

    # ----------------------------------------------------------------------- answers

    def _receive(self, request: StubRequest) -> StubResponse:
        with self._lock:
            self.requests.append(request)
            faults = self._faults.get(request.route)
            return faults.popleft() if faults else StubResponse()

    def _recorded(self, request: StubRequest) -> bytes:
        if request.route == "esearch":
            return _esearch_answer(self.esearch_body, request.params.get("retmax"))
        return _efetch_answer(self.efetch_body, request.params.get("id"))

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
                return None

            def do_GET(self) -> None:  # noqa: N802 - the http.server naming
                self._answer(b"")

            def do_POST(self) -> None:  # noqa: N802
                self._answer(self.rfile.read(int(self.headers.get("content-length", 0))))

            def _answer(self, raw: bytes) -> None:
                url = urlsplit(self.path)
                body = raw.decode("utf-8", errors="replace")
                params = dict(parse_qsl(url.query, keep_blank_values=True))
                if "form-urlencoded" in self.headers.get("content-type", ""):
                    params.update(parse_qsl(body, keep_blank_values=True))
                request = StubRequest(self.command, ROUTES.get(url.path, url.path), self.path, params, body)
                reply = stub._receive(request)
                if request.route not in ROUTES.values():
                    self._send(404, b"no such E-utility", "text/plain")
                    return
                if reply.delay_s and stub._stopping.wait(reply.delay_s):
                    return
                if reply.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                if reply.body is not None:
                    data = reply.body
                elif reply.status == 200:
                    data = stub._recorded(request)
                else:
                    data = f"stubbed HTTP {reply.status}".encode()
                self._send(reply.status, data, _content_type(data), reply.headers)

            def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
                      ) -> None:
                self.send_response(status)
                # A fault's headers replace these (a content-length longer than the body cuts the answer off).
                fields = {"content-type": content_type, "content-length": str(len(data))}
                fields.update({name.lower(): value for name, value in (headers or {}).items()})
                for name, value in fields.items():
                    self.send_header(name, value)
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting: expected
                    self.close_connection = True

        return Handler


def _esearch_answer(recorded: bytes, retmax: str | None) -> bytes:
    """The recorded ESearch answer cut to retmax ids, as NCBI would send it."""
    try:
        payload = json.loads(recorded)
        result = payload["esearchresult"]
        ids = result["idlist"]
    except (ValueError, KeyError, TypeError):
        return recorded  # not a regular answer (an error payload, say): play it as recorded
    if retmax is not None and retmax.isdigit():
        result["idlist"] = ids[: int(retmax)]
        result["retmax"] = str(len(result["idlist"]))
    return json.dumps(payload).encode()


def _efetch_answer(recorded: bytes, ids: str | None) -> bytes:
    """The recorded PubmedArticleSet with only the requested articles, in the recording's order."""
    wanted = set((ids or "").split(","))
    if not ids or not _ARTICLE.search(recorded):
        return recorded

    def keep(match: re.Match[bytes]) -> bytes:
        pmid = _PMID.search(match.group(0))
        return match.group(0) if pmid and pmid.group(1).decode() in wanted else b""

    return _ARTICLE.sub(keep, recorded)


def _content_type(data: bytes) -> str:
    start = data.lstrip()[:1]
    if start in (b"{", b"["):
        return "application/json; charset=UTF-8"
    return "text/xml; charset=UTF-8" if start == b"<" else "text/plain"
