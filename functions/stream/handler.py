"""WebSocket routes ($connect, $disconnect, ask, voice.start/chunk/end): run a query, or transcribe a spoken one
and run it, and push its events to the connection (conversation/streaming.py, conversation/voice_messages.py).

The user is the `$connect` authorizer's principal (the Cognito token's `sub`, which API Gateway repeats on
every message of the connection), never anything the client sends in a message.
"""

from __future__ import annotations

from typing import Any

from voiceassist import english_pipeline, invocation
from voiceassist.authentication import accepted_subprotocol, header_value
from voiceassist.composition import dependencies
from voiceassist.constants.environment import SUBPROTOCOL_HEADER
from voiceassist.conversation import streaming, voice_messages
from voiceassist.observability import logger, tracer
from voiceassist.speech import phi_doubt

english_pipeline.require()  # the parse readings run here: no spaCy, no cold start (constants/functions.py)
phi_doubt.require()  # voice.end writes the transcript as typed: no text2num, no cold start (serves_voice)


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # answers can repeat a patient's details
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    invocation.begin(context)  # the session summary's model call runs only with time left (conversation/memory.py)
    request = event["requestContext"]
    if request["routeKey"] == "$disconnect":
        voice_messages.forget_connection(dependencies(), request["connectionId"])  # a voice stream left open
        return {"statusCode": 200}
    user_id = str((request.get("authorizer") or {}).get("principalId") or "")
    if not user_id:  # the authorizer runs first; this only guards against a route deployed without it
        return {"statusCode": 401}
    if request["routeKey"] == "$connect":
        return _accept_connection(event)
    endpoint = f"https://{request['domainName']}/{request['stage']}"
    return streaming.handle_message(dependencies(), dependencies().event_publisher(endpoint),
                                    connection_id=request["connectionId"], user_id=user_id,
                                    body=event.get("body"), endpoint=endpoint)


def _accept_connection(event: dict[str, Any]) -> dict[str, Any]:
    """Echo the app subprotocol the client offered (with its token): browsers require the echo."""
    protocol = accepted_subprotocol(header_value(event.get("headers"), SUBPROTOCOL_HEADER))
    return {"statusCode": 200, "headers": {SUBPROTOCOL_HEADER: protocol}} if protocol else {"statusCode": 200}
