"""GET /v1/health: liveness plus the runtime this deployment uses."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel

from voiceassist import __version__
from voiceassist.composition import dependencies

router = Router()


class Health(BaseModel):
    status: str
    version: str
    runtime: str
    environment: str


@router.get("/health", summary="Liveness and runtime")
def health() -> Health:
    settings = dependencies().settings
    return Health(status="ok", version=__version__, runtime=settings.runtime.value,
                  environment=settings.environment)
