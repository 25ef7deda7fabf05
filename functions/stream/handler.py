"""WebSocket routes ($connect, $disconnect, ask): run a query and push its events to the connection."""

from __future__ import annotations

from typing import Any

from voiceassist import streaming
from voiceassist.adapters.apigateway_publisher import ApiGatewayEventPublisher
from voiceassist.composition import dependencies
from voiceassist.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler(capture_response=False)  # answers can repeat a patient's details
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    request = event["requestContext"]
    if request["routeKey"] in ("$connect", "$disconnect"):
        return {"statusCode": 200}
    user_id = str((request.get("authorizer") or {}).get("principalId") or "")
    if not user_id:
        return {"statusCode": 401}
    publisher = ApiGatewayEventPublisher(f"https://{request['domainName']}/{request['stage']}",
                                         region_name=dependencies().settings.region)
    return streaming.handle_message(dependencies(), publisher, connection_id=request["connectionId"],
                                    user_id=user_id, body=event.get("body"))
