"""The REST API: Powertools resolver with one Router per resource. Wiring only."""

from __future__ import annotations

import os
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig, Response
from aws_lambda_powertools.logging import correlation_paths

from routes import (
    admin_config,
    chat,
    documents,
    errors,
    health,
    input_policy,
    jobs,
    openapi,
    passages,
    query,
    sessions,
    telemetry,
    tools,
    uploads,
    voice,
)
from voiceassist import __version__, invocation
from voiceassist.constants.environment import ENV_CORS_ORIGINS
from voiceassist.observability import logger, tracer
from voiceassist.speech import phi_doubt

phi_doubt.require()  # the voice routes write a transcript as typed: no text2num, no cold start (serves_voice)


def cors_config() -> CORSConfig | None:
    """CORS headers for the environment's browser origins (cdk.json api.cors_origins); none without them."""
    origins = [origin.strip() for origin in os.environ.get(ENV_CORS_ORIGINS, "").split(",") if origin.strip()]
    if not origins:
        return None
    return CORSConfig(allow_origin=origins[0], extra_origins=origins[1:], max_age=3600,
                      allow_headers=["Authorization", "Content-Type", "X-Amz-Date", "X-Amz-Security-Token"])


app = APIGatewayRestResolver(enable_validation=True, cors=cors_config())
app.configure_openapi(title="VoiceAssist API", version=__version__,
                      summary="Clinical question answering with numbered citations and a PHI boundary")
for module in (health, uploads, documents, jobs, query, sessions, tools, chat, passages, voice, telemetry,
               admin_config):
    app.include_router(module.router, prefix="/v1")
errors.register(app)
input_policy.register(app)


@app.get("/v1/openapi.json", include_in_schema=False)
def openapi_document() -> dict[str, Any]:
    return openapi.document(app)


@app.get("/v1/docs", include_in_schema=False)
def swagger_ui() -> Response[str]:
    page = openapi.swagger_page(openapi.document(app))
    return Response(status_code=200, content_type="text/html", body=page,
                    headers={"Content-Security-Policy": openapi.page_policy(page)})


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)  # answers can repeat a patient's details
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    invocation.begin(context)  # the session summary's model call runs only with time left (conversation/memory.py)
    return app.resolve(event, context)
