"""An OpenSearch data plane on 127.0.0.1, just enough for the adapter's calls: documents kept in memory,
every search answering with the stored documents (no ranking: the packaging test checks artefacts, not
relevance)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


class OpenSearchStub:
    def __init__(self) -> None:
        self.documents: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _reply(self, status: int, body: Any = None) -> None:
                data = json.dumps(body if body is not None else {}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length).decode() if length else ""
                path = urlsplit(self.path).path
                stub.requests.append((self.command, path))
                self._reply(*stub.answer(self.command, path, raw))

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> OpenSearchStub:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, method: str, path: str, raw: str) -> tuple[int, Any]:
        if path.endswith("/_bulk"):
            lines = [json.loads(line) for line in raw.splitlines() if line.strip()]
            items = []
            for action, source in zip(lines[::2], lines[1::2], strict=False):
                document_id = next(iter(action.values()))["_id"]
                self.documents[document_id] = source
                items.append({"index": {"_id": document_id, "status": 201}})
            return 200, {"took": 1, "errors": False, "items": items}
        if path.endswith("/_search"):
            hits = [{"_id": key, "_score": 1.0, "_source": source} for key, source in self.documents.items()]
            return 200, {"took": 1, "timed_out": False, "hits": {"total": {"value": len(hits)}, "hits": hits}}
        if path.endswith("/_count"):
            return 200, {"count": len(self.documents)}
        if path.endswith(("/_update_by_query", "/_delete_by_query")):
            return 200, {"took": 1, "updated": 0, "deleted": 0, "failures": []}
        return 200, {"acknowledged": True}
