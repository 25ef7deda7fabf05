"""POST /v1/query: ask a clinical question, get a cited answer."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from routes.identity import caller_id, trace_id
from voiceassist.composition import dependencies
from voiceassist.conversation import orchestrator
from voiceassist.models import QueryRequest, QueryResponse

router = Router()


@router.post("/query", summary="Answer a clinical question with numbered citations")
def ask(request: QueryRequest) -> QueryResponse:
    return orchestrator.respond(dependencies(), request, user_id=caller_id(router), trace_id=trace_id(router))
