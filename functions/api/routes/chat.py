"""The OpenAI-compatible surface: POST /v1/chat/completions, GET /v1/models and GET /v1/models/{model}
(conversation.chat_completions).

Same auth and PHI rules as POST /v1/query. On API Gateway a `stream: true` reply is the whole SSE stream in one
response (the chunks arrive together); the local server streams them as they happen (voiceassist_local).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from routes.identity import caller_id, trace_id
from voiceassist.composition import dependencies
from voiceassist.conversation import chat_completions as chat
from voiceassist.conversation import events, orchestrator

router = Router()


@router.post("/chat/completions", summary="OpenAI-compatible chat completions with cited answers")
def chat_completions(body: chat.ChatCompletionRequest) -> Any:
    request, history = chat.to_query(body)
    collected: list[events.Event] = []
    response = orchestrator.run(dependencies(), request, user_id=caller_id(router), trace_id=trace_id(router),
                                emit=collected.append, history=history)
    if not body.stream:
        return chat.completion(response, model=body.model, request=body)
    stream = b"".join(chat.sse_chunk(c) for c in chat.chunks(
        collected, model=body.model, completion_id=chat.new_completion_id(response.metadata.query_id), request=body))
    return Response(status_code=200, content_type="text/event-stream",
                    body=(stream + chat.sse_chunk(None)).decode())


@router.get("/models", summary="The models this API answers as (OpenAI-compatible)")
def list_models() -> dict[str, Any]:
    return chat.models()


@router.get("/models/<model_id>", summary="One model this API answers as (OpenAI-compatible); another is a 404")
def retrieve_model(model_id: str) -> dict[str, Any]:
    return chat.model(model_id)
