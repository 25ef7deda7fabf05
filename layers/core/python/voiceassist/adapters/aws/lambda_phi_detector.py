"""The PHI detector of a function that does not ship it (query_tools: a zip function; Presidio is in the container
image): Lambda Invoke (RequestResponse) of the query workflow's `query_detect_phi` function with the text as a
question; its answer's `phi` is the detection. A failed or refused invocation raises, and the caller counts that
as PHI (fail closed: the tool executor's _detect)."""

from __future__ import annotations

import json
from typing import Any

from voiceassist.errors import DependencyError
from voiceassist.models import PhiResult, QueryRequest
from voiceassist.query.state import QueryState

DETECTOR_USER = "tool-arguments"  # the detect_phi step logs the query id, never the user or the text
# Bounded, since the check runs before the tool's own time-out starts and inside the Map's backstop (the tool's
# time-out + 2 s): a slower answer (a cold start of the container loading Presidio) counts as PHI.
CONNECT_TIMEOUT_S = 1
READ_TIMEOUT_S = 4


class LambdaPhiDetector:
    def __init__(self, function_name: str, *, region_name: str | None = None, client: Any = None) -> None:
        self.function_name = function_name
        self._client = client or _lambda_client(region_name)

    def detect(self, text: str) -> PhiResult:
        from botocore.exceptions import BotoCoreError, ClientError

        state = QueryState(user_id=DETECTOR_USER, request=QueryRequest(query=text))  # > 4,000 chars: raises
        try:
            reply = self._client.invoke(FunctionName=self.function_name, InvocationType="RequestResponse",
                                        Payload=json.dumps(state.model_dump(mode="json")).encode())
            body = reply["Payload"].read()
        except (BotoCoreError, ClientError) as exc:
            raise DependencyError(f"the PHI detector function could not be invoked ({type(exc).__name__})") from exc
        if reply.get("FunctionError"):
            raise DependencyError("the PHI detector function failed")
        phi = json.loads(body).get("phi")
        if phi is None:
            raise DependencyError("the PHI detector function answered no detection")
        return PhiResult.model_validate(phi)


def _lambda_client(region_name: str | None) -> Any:
    import boto3
    from botocore.config import Config

    config = Config(retries={"total_max_attempts": 1}, connect_timeout=CONNECT_TIMEOUT_S,
                    read_timeout=READ_TIMEOUT_S)
    return boto3.client("lambda", region_name=region_name, config=config)
