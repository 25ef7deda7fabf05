"""WebSocket `$connect` authorizer: allow the connection only for a valid Cognito token of our app client.

The token arrives as a subprotocol (voiceassist.authentication); the policy's principal is the token's `sub`,
which API Gateway hands to every later message of the connection as requestContext.authorizer.principalId.
A bad token gets a Deny policy (the client sees 403), logged with a fixed reason and never the token; when
tokens cannot be checked at all the function fails (500 to the client, an error for the alarm).
"""

from __future__ import annotations

from typing import Any

from voiceassist.authentication import (
    TokenRejected,
    TokenVerifier,
    header_value,
    token_from_subprotocols,
)
from voiceassist.composition import dependencies
from voiceassist.constants.environment import SUBPROTOCOL_HEADER
from voiceassist.errors import VoiceAssistError
from voiceassist.observability import log_failure, logger

REFUSED_PRINCIPAL = "unauthenticated"


def verifier() -> TokenVerifier:
    """The composition root's verifier: one per warm container, so the pool's keys are fetched once."""
    return dependencies().token_verifier


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    token = token_from_subprotocols(header_value(event.get("headers"), SUBPROTOCOL_HEADER))
    try:
        user = verifier().verify(token)
    except TokenRejected as exc:
        logger.info("websocket connection refused", extra={"reason": exc.reason})
        return policy("Deny", REFUSED_PRINCIPAL, event["methodArn"])
    except VoiceAssistError as exc:
        # Keys unreachable or configuration missing: refuse (API Gateway answers 500, not "your token is bad")
        # and count as a function error, which the StreamAuthorizerErrors alarm watches.
        log_failure("websocket connection refused: the token could not be checked", exc)
        raise
    return policy("Allow", user.user_id, event["methodArn"], context={"token_use": user.token_use})


def policy(effect: str, principal_id: str, method_arn: str, *, context: dict[str, str] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "principalId": principal_id,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": method_arn}],
        },
    }
    if context:
        document["context"] = context
    return document
