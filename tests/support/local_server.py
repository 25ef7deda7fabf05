"""The part every local stub server shares: a threaded HTTP server on 127.0.0.1 that starts and stops with
a `with` block, and a lock and a stop flag for the subclasses' request handlers."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()  # a delayed answer waits on this, so stopping never hangs
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
