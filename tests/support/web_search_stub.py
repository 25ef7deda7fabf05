"""A local Brave Search API on 127.0.0.1: `GET /res/v1/web/search` answers from a recorded reply, checks the
`X-Subscription-Token` key, records every query it received (what a PHI test must inspect), and can be set
to fail with a status."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.support.local_server import LocalServer

KEY = "test-key"
RECORDED = {"type": "search", "query": {"original": "x"}, "web": {"type": "search", "results": [
    {"title": "FDA approves new sepsis test", "url": "https://www.fda.gov/news/sepsis-test",
     "description": "The agency cleared a rapid blood test for sepsis.", "age": "2 days ago"},
    {"title": "Drug shortages list", "url": "https://www.ashp.org/drug-shortages",
     "description": "Current shortages of injectable drugs."},
    {"title": "No URL, skipped"},
]}}


class WebSearchStub(LocalServer):
    def __init__(self) -> None:
        self.queries: list[dict[str, list[str]]] = []
        self.status = 200
        super().__init__()

    @property
    def base_url(self) -> str:
        return self.origin

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                parts = urlsplit(self.path)
                with stub._lock:
                    stub.queries.append(parse_qs(parts.query))
                if parts.path != "/res/v1/web/search":
                    return self._reply(404, {"error": "not found"})
                if self.headers.get("X-Subscription-Token") != KEY:
                    return self._reply(401, {"error": "bad key"})
                if stub.status != 200:
                    return self._reply(stub.status, {"error": "stub failure"})
                return self._reply(200, RECORDED)

            def _reply(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: object) -> None:
                pass

        return Handler
