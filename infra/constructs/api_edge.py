"""What browsers and clients see at the REST API's edge: CORS, binary uploads, and API Gateway's own errors.

- CORS preflight (`OPTIONS`) is answered by API Gateway without Cognito, for the environment's origins
  (cdk.json api.cors_origins); the api function adds the same headers to its answers (functions/api).
- Raw PDF bodies pass as binary (base64 to the function) instead of being mangled as text.
- Gateway responses (401, 403, 413, 429, 504, other 4xx/5xx) carry the API's error envelope and CORS
  headers, so a browser can read why a request was refused; 413 names the presigned upload route.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_kms as kms
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs.log_groups import encrypted_log_group

# audio/*: the voice routes' recordings and answers (API Gateway passes them to the function as base64)
BINARY_MEDIA_TYPES = ["application/pdf", "application/octet-stream", "audio/*"]
ALLOWED_HEADERS = ["Authorization", "Content-Type", "X-Amz-Date", "X-Amz-Security-Token"]
PRESIGNED_ROUTE = "POST /v1/documents/uploads"
_MESSAGE = "$context.error.messageString"  # API Gateway's own message, already a JSON string

# response type -> (error code, message expression)
ERROR_RESPONSES: dict[str, tuple[apigw.ResponseType, str, str]] = {
    "Unauthorized": (apigw.ResponseType.UNAUTHORIZED, "unauthorized", _MESSAGE),
    "AccessDenied": (apigw.ResponseType.ACCESS_DENIED, "forbidden", _MESSAGE),
    "WafFiltered": (apigw.ResponseType.WAF_FILTERED, "forbidden", _MESSAGE),
    "RequestTooLarge": (
        apigw.ResponseType.REQUEST_TOO_LARGE,
        "payload_too_large",
        f'"the body is over API Gateway\'s 10 MB limit: use {PRESIGNED_ROUTE} for a presigned S3 upload"',
    ),
    "Throttled": (apigw.ResponseType.THROTTLED, "throttled", _MESSAGE),
    "IntegrationTimeout": (
        apigw.ResponseType.INTEGRATION_TIMEOUT,
        "timeout",
        '"the answer took longer than 29 s: retry, or ask over the WebSocket stream"',
    ),
    "Default4xx": (apigw.ResponseType.DEFAULT_4_XX, "bad_request", _MESSAGE),
    "Default5xx": (apigw.ResponseType.DEFAULT_5_XX, "gateway_error", _MESSAGE),
}


def cors_preflight(origins: Sequence[str]) -> apigw.CorsOptions:
    """The first origin is the default answer; API Gateway echoes any other listed one (its generated VTL)."""
    return apigw.CorsOptions(
        allow_origins=list(origins),
        allow_methods=apigw.Cors.ALL_METHODS,
        allow_headers=ALLOWED_HEADERS,
        max_age=Duration.hours(1),
    )


def allow_origin_header(origins: Sequence[str]) -> str:
    """One origin: that origin. Several (cdk.json's and the web client's): the request's Origin echoed (error
    bodies carry no data)."""
    return f"'{origins[0]}'" if len(origins) == 1 else "method.request.header.Origin"


def add_error_responses(api: apigw.RestApi, origins: Sequence[str]) -> None:
    headers = {
        "Access-Control-Allow-Origin": allow_origin_header(origins),
        "Access-Control-Allow-Headers": "'" + ",".join(ALLOWED_HEADERS) + "'",
        "Vary": "'Origin'",
    }
    for construct_id, (response_type, code, message) in ERROR_RESPONSES.items():
        api.add_gateway_response(
            f"{construct_id}Response",
            type=response_type,
            response_headers=headers,
            templates={
                "application/json": (
                    f'{{"error": {{"code": "{code}", "message": {message}, "trace_id": "$context.requestId"}}}}'
                )
            },
        )


def add_smoke_client(pool: cognito.UserPool, config: EnvironmentConfig) -> cognito.UserPoolClient | None:
    """`make smoke` signs a throw-away user in with the admin password flow (IAM-authorised); dev/staging only."""
    if not config.api.smoke_test_client:
        return None
    return pool.add_client(
        "SmokeClient",
        auth_flows=cognito.AuthFlow(admin_user_password=True),
        disable_o_auth=True,  # no hosted UI, no implicit or code grant: the admin password flow only
        generate_secret=False,
        prevent_user_existence_errors=True,
        access_token_validity=Duration.minutes(15),
        id_token_validity=Duration.minutes(15),
        refresh_token_validity=Duration.hours(1),
    )


def add_execution_log_group(scope: Construct, api: apigw.RestApi, *, stage: str, key: kms.IKey,
                            retention_days: int, removal_policy: RemovalPolicy) -> None:
    """API Gateway's execution log group, created by the stack (encrypted, with retention) before the stage
    would make API Gateway create it unencrypted and kept forever."""
    log_group = encrypted_log_group(
        scope,
        "RestExecutionLogs",
        key=key,
        retention_days=retention_days,
        removal_policy=removal_policy,
        log_group_name=f"API-Gateway-Execution-Logs_{api.rest_api_id}/{stage}",
    )
    api.deployment_stage.node.add_dependency(log_group)
