"""Requests on one kept-alive connection to the local server, with and without Nagle's algorithm on the server's
sockets (voiceassist_local.http_guard.GuardedRequestHandler.disable_nagle_algorithm); prints JSON.

    .venv/bin/python bench/keepalive.py [--requests 100]

A reply is two writes (the headers, then the body). With Nagle's algorithm on, the body waits for the client's
ACK of the headers, which the client delays (40 ms on Linux) once a connection is past its first few segments:
every request of a kept-alive connection (a browser, schemathesis, any HTTP client with a session) paid it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import tempfile
import threading
import time
from pathlib import Path


def per_request_ms(nodelay: bool, requests: int) -> dict[str, float]:
    from voiceassist_local import http_guard
    from voiceassist_local.server import make_server

    http_guard.GuardedRequestHandler.disable_nagle_algorithm = nodelay
    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
        connection.request("GET", "/v1/health")
        connection.getresponse().read()  # the connection open and warm
        wall, cpu = time.monotonic(), time.process_time()
        for _ in range(requests):
            connection.request("GET", "/v1/health")
            reply = connection.getresponse()
            reply.read()
            assert reply.status == 200, reply.status
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        connection.close()
    finally:
        server.shutdown()
        server.server_close()
    return {"ms_per_request": round(1000 * wall / requests, 2), "cpu_ms_per_request": round(1000 * cpu / requests, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100)
    args = parser.parse_args()

    from voiceassist.composition import Dependencies, use_dependencies
    from voiceassist.settings import Settings

    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        data.mkdir()
        use_dependencies(Dependencies(Settings(data_dir=data)))
        from voiceassist_local import http_guard

        http_guard.access_log.disabled = True
        results = {"requests": args.requests, "nagle": per_request_ms(False, args.requests),
                   "nodelay": per_request_ms(True, args.requests)}
        use_dependencies(None)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
