"""Lambda's Invoke API on 127.0.0.1, just enough for the remote tool runner (adapters/aws/lambda_tool_runner.py):
POST /2015-03-31/functions/<name>/invocations runs the payload in the named function's worker process and
answers its result, or its error as Lambda reports a function error (X-Amz-Function-Error)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

INVOKE_PATH = re.compile(r"^/2015-03-31/functions/([^/]+)/invocations$")


class LambdaStub:
    def __init__(self) -> None:
        self.functions: dict[str, Callable[[Any], Any]] = {}  # function name -> its worker
        self.invoked: list[str] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                match = INVOKE_PATH.match(urlsplit(self.path).path)
                name = unquote(match.group(1)) if match else ""
                headers = {"content-type": "application/json"}
                if name not in stub.functions:
                    status, body = 404, {"Type": "User", "message": f"Function not found: {name}"}
                    headers["x-amzn-errortype"] = "ResourceNotFoundException"
                else:
                    stub.invoked.append(name)
                    status = 200
                    try:
                        body = stub.functions[name](json.loads(raw))
                    except Exception as exc:  # the worker's function error
                        body = {"errorType": type(exc).__name__, "errorMessage": "function error"}
                        headers["x-amz-function-error"] = "Unhandled"
                data = json.dumps(body).encode()
                self.send_response(status)
                for key, value in {**headers, "content-length": str(len(data))}.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LambdaStub:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()
