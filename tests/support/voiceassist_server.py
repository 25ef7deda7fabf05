"""The local server (voiceassist_local.server) on a free port of 127.0.0.1 for the length of a `with` block, the
way `voiceassist serve` runs it; the block gets its origin."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from voiceassist_local.server import make_server


@contextmanager
def serving(token: str | None = None) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, token=token)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
