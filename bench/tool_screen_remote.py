"""What api's and mcp's tool arguments cost when query_tools screens them (decision 0027, "On AWS too, the tool
arguments"; session 20, aws20b).

    nice -n 5 .venv/bin/python bench/tool_screen_remote.py

Each MedMCQA/MMLU question (phi/clinical_questions_no_phi.jsonl, measurement only) is a tool call's text argument:
it goes through `RemoteToolExecutor.screen_verdict` and `LambdaToolRunner.screen` to a loopback Lambda client that
answers as functions/query_tools/handler.py does (the runner's own executor, every reading, spaCy's parse among them).
Prints the parser's load (once per runner environment), the wall time per screened call (p50, p95) with the same
readings in-process beside it (what the round trip through the runner adds here), the request's and reply's bytes,
and the verdicts that differ. The Invoke's network round trip on AWS is not in these figures.
"""

from __future__ import annotations

import io
import json
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from input_screen_data import clinical_questions  # noqa: E402

from voiceassist.adapters.aws.lambda_tool_runner import LambdaToolRunner  # noqa: E402
from voiceassist.safety.input_screen import screen_all  # noqa: E402
from voiceassist.safety.purpose_clause import _parser  # noqa: E402
from voiceassist.tools.executor import ToolExecutor  # noqa: E402
from voiceassist.tools.registry import ToolEnvironment, ToolRegistry  # noqa: E402
from voiceassist.tools.remote import RemoteToolExecutor, verdict_reply  # noqa: E402


class Loopback:
    """Lambda's Invoke answered by the runner's executor, as functions/query_tools/handler.py answers a screen."""

    def __init__(self, runner: ToolExecutor) -> None:
        self.runner, self.sent, self.received = runner, 0, 0

    def invoke(self, **params: Any) -> dict[str, Any]:
        self.sent += len(params["Payload"])
        body = json.dumps(verdict_reply(self.runner.screen_verdict(json.loads(params["Payload"])["screen"]))).encode()
        self.received += len(body)
        return {"StatusCode": 200, "Payload": io.BytesIO(body)}


def _executor(cls: type[ToolExecutor], **extra: Any) -> Any:
    none: Any = SimpleNamespace()
    return cls(ToolRegistry([]), env=ToolEnvironment(ctx=None), detector=none, limiter=none, actions=none,
               audit=none, **extra)


def main() -> None:
    start = time.process_time()
    _parser()
    print(f"parser load (once per query_tools environment): {time.process_time() - start:.2f} s CPU")
    client = Loopback(_executor(ToolExecutor))
    remote = _executor(RemoteToolExecutor, runner=LambdaToolRunner("query-tools", client=client))
    texts = clinical_questions(None)
    remote_ms, local_ms, differ = [], [], 0
    for text in texts:
        began = time.perf_counter()
        verdict = remote.screen_verdict([text])
        remote_ms.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        local = screen_all([text])
        local_ms.append((time.perf_counter() - began) * 1000)
        differ += verdict.categories != local.categories

    def quantiles(values: list[float]) -> str:
        cuts = statistics.quantiles(values, n=20)
        return f"p50 {statistics.median(values):.2f} ms, p95 {cuts[18]:.2f} ms"

    print(f"{len(texts)} questions as tool arguments")
    print(f"screened by the runner (loopback, no network): {quantiles(remote_ms)}")
    print(f"screened in-process, the same readings:        {quantiles(local_ms)}")
    sent, received = client.sent / len(texts), client.received / len(texts)
    print(f"bytes per call: request {sent:.0f} (the text), reply {received:.0f}")
    print(f"verdicts that differ between the two: {differ}")


if __name__ == "__main__":
    main()
