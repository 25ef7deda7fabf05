"""The remote tool runner on AWS: Lambda Invoke (RequestResponse) of the `query_tools` function with one call
and its caller (tools/remote.py); the function runs it through its executor and answers the ToolResult. It also
screens the text arguments of the tools the invoker runs itself (`screen`: the verdict, never a text)."""

from __future__ import annotations

import json
from typing import Any

from voiceassist.errors import DependencyError
from voiceassist.models import ToolCall, ToolResult
from voiceassist.safety.input_screen import ScreenVerdict
from voiceassist.tools.executor import Caller
from voiceassist.tools.remote import runner_event, screen_event, verdict_from_reply

# A tool's own time-out is at most 30 s (the add-a-file tool); the runner's executor stops it first.
READ_TIMEOUT_S = 35


class LambdaToolRunner:
    def __init__(self, function_name: str, *, region_name: str | None = None, client: Any = None) -> None:
        self.function_name = function_name
        self._client = client or _lambda_client(region_name)

    def run(self, call: ToolCall, caller: Caller) -> ToolResult:
        return ToolResult.model_validate_json(self._invoke(runner_event(call, caller)))

    def screen(self, texts: list[str]) -> ScreenVerdict:
        return verdict_from_reply(json.loads(self._invoke(screen_event(texts))))

    def _invoke(self, event: dict[str, Any]) -> bytes:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            reply = self._client.invoke(FunctionName=self.function_name, InvocationType="RequestResponse",
                                        Payload=json.dumps(event).encode())
            body: bytes = reply["Payload"].read()
        except (BotoCoreError, ClientError) as exc:
            raise DependencyError(f"the tool runner could not be invoked ({type(exc).__name__})") from exc
        if reply.get("FunctionError"):
            # the error's message may quote the arguments: only its type is named
            error_type = json.loads(body or b"{}").get("errorType", "unknown")
            raise DependencyError(f"the tool runner failed ({error_type})")
        return body


def _lambda_client(region_name: str | None) -> Any:
    import boto3
    from botocore.config import Config

    # No retry: a call may have run (and been rate-counted and audited) before a connection dropped.
    config = Config(retries={"total_max_attempts": 1}, connect_timeout=2, read_timeout=READ_TIMEOUT_S)
    return boto3.client("lambda", region_name=region_name, config=config)
