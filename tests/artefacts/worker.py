"""Runs one Lambda function as its artefact would: the function's folder first on the path, the packages its
artefact does not ship blocked, and events read as JSON lines from stdin (one reply line each on stdout).

    python worker.py FOLDER BLOCKED_JSON
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import sys
import traceback
from typing import Any


class ArtefactBlocker(importlib.abc.MetaPathFinder):
    def __init__(self, blocked: set[str]) -> None:
        self.blocked = blocked
        self.refused: list[str] = []

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if fullname.split(".")[0] in self.blocked:
            self.refused.append(fullname)
            raise ModuleNotFoundError(f"No module named {fullname!r} (not in this function's artefact)",
                                      name=fullname)


class Context:
    function_name = "packaging-test"
    aws_request_id = "00000000-0000-0000-0000-000000000000"
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:packaging-test"
    memory_limit_in_mb = 1024

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 30_000


def main() -> None:
    folder, blocked = sys.argv[1], set(json.loads(sys.argv[2]))
    # The replies keep stdout to themselves: what a function prints (its EMF metric lines, which Lambda sends to
    # CloudWatch Logs) goes to the worker's log with the rest of its output.
    replies, sys.stdout = sys.stdout, sys.stderr
    import aws_calls  # beside this file; recorded before the function's path replaces the test's

    aws_calls.install()
    sys.path[:] = [folder, *(entry for entry in sys.path[1:] if "tests" not in entry.split("/")[-2:])]
    blocker = ArtefactBlocker(blocked)
    sys.meta_path.insert(0, blocker)
    spec = importlib.util.spec_from_file_location("handler", f"{folder}/handler.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for line in sys.stdin:
        event = json.loads(line)
        try:
            reply: dict[str, Any] = {"result": module.lambda_handler(event, Context())}
        except Exception as exc:  # reported to the test like Lambda reports a function error
            reply = {"errorType": type(exc).__name__, "errorMessage": str(exc),
                     "trace": traceback.format_exc(limit=8)}
        reply["refused"] = sorted(set(blocker.refused))
        reply["aws_calls"] = aws_calls.drain()
        print(json.dumps(reply, default=str), file=replies, flush=True)


if __name__ == "__main__":
    main()
