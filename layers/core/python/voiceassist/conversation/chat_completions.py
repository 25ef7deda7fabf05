"""The OpenAI-compatible surface: POST /v1/chat/completions (plain and `stream: true`) and GET /v1/models.

`messages[]` is the conversation: the last user message is the question, the earlier ones its history (PHI-checked
with it, and used to resolve a follow-up). The answer runs through the same orchestrator as POST /v1/query; its
content carries the `[n]` markers and a "Sources:" list, and `citations` (an extension field) the same objects
as /v1/query. Streamed, the run's token events become `chat.completion.chunk`s. The request options a client may
send are honoured or refused with a 400 naming them, never ignored (chat_options).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from voiceassist.conversation import chat_options, events
from voiceassist.conversation.context import Turn
from voiceassist.errors import InvalidInput, NotFound, UnsupportedParameter, quoted_id, quoted_name
from voiceassist.models import Citation, JsonInt, QueryRequest, QueryResponse
from voiceassist.query.generation import count_tokens

MODEL_ID = "voiceassist"
# The content parts this API reads: text (an assistant's refusal part is text it wrote). An image, audio or a file
# it cannot read is refused rather than dropped: the question answered would not be the question asked.
TEXT_PARTS = ("text", "refusal")
NAMED_PARTS = ("image_url", "input_audio", "file")  # OpenAI's part types, quoted in a refusal; nothing else is
TOKEN_LIMIT_SCHEMA: dict[str, Any] = {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}


def _range_schema(low: float, high: float, kind: str = "number") -> dict[str, Any]:
    return {"anyOf": [{"type": kind, "minimum": low, "maximum": high}, {"type": "null"}]}
OWNER = "voiceassist"
QUESTION_MAX_CHARS = 4000  # QueryRequest.query's max_length, POST /v1/query's limit (a test keeps them equal)


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")  # clients send name, tool_calls, ...

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]  # OpenAI's, as the spec says
    content: str | list[dict[str, Any]] | None = None

    @field_validator("content")
    @classmethod
    def readable_parts(cls, value: str | list[dict[str, Any]] | None) -> str | list[dict[str, Any]] | None:
        for part in value if isinstance(value, list) else ():
            kind = part.get("type")
            if kind not in TEXT_PARTS:
                named = repr(kind) if kind in NAMED_PARTS else "of this type"
                raise ValueError(f"a content part {named} cannot be read: this API answers text questions; send "
                                 "the question as text")
        return value

    @property
    def text(self) -> str:
        if isinstance(self.content, list):  # content parts: keep the text ones
            return "\n".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")

    # a last chunk with `usage` and no choices, before [DONE]
    include_usage: bool | None = Field(default=False, strict=True)


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # temperature, tools, ...: the pipeline decides (chat_options)

    model: str = MODEL_ID
    messages: list[ChatMessageIn] = Field(min_length=1)
    stream: bool | None = Field(default=False, strict=True)  # a JSON boolean or null, as OpenAI takes it
    stream_options: StreamOptions | None = None
    n: JsonInt | None = 1
    top_k: int = Field(default=5, ge=1, le=20)
    response_format: Any = None
    tool_choice: Any = None
    # refused with `param` when not a whole number >= 1 (chat_options); the schema says what is taken
    max_tokens: Any = Field(default=None, json_schema_extra=TOKEN_LIMIT_SCHEMA)
    max_completion_tokens: Any = Field(default=None, json_schema_extra=TOKEN_LIMIT_SCHEMA)
    # taken within OpenAI's ranges and changing nothing (the answer is checked, not sampled); refused outside them
    temperature: Any = Field(default=None, json_schema_extra=_range_schema(*chat_options.SAMPLING_RANGES[
        "temperature"]))
    top_p: Any = Field(default=None, json_schema_extra=_range_schema(*chat_options.SAMPLING_RANGES["top_p"]))
    presence_penalty: Any = Field(default=None, json_schema_extra=_range_schema(*chat_options.SAMPLING_RANGES[
        "presence_penalty"]))
    frequency_penalty: Any = Field(default=None, json_schema_extra=_range_schema(*chat_options.SAMPLING_RANGES[
        "frequency_penalty"]))
    seed: Any = Field(default=None, json_schema_extra=_range_schema(*chat_options.SEED_RANGE, kind="integer"))
    # honoured: the content ends before the first stop sequence (chat_options.stop_sequences says what is taken)
    stop: Any = Field(default=None, json_schema_extra={"anyOf": [
        {"type": "string", "minLength": 1},
        {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": chat_options.MAX_STOP_SEQUENCES},
        {"type": "null"}]})
    # refused unless left out or at their defaults (chat_options.refuse_unsupported): nothing here could honour them
    logprobs: Any = None
    top_logprobs: Any = None
    modalities: Any = None
    audio: Any = None
    logit_bias: Any = None
    function_call: Any = None
    web_search_options: Any = None

    @field_validator("n")
    @classmethod
    def one_choice(cls, value: int | None) -> int | None:
        """One checked answer per question: n > 1 would be the same answer n times, not n alternatives."""
        if value not in (1, None):
            raise ValueError("this API returns one choice (one checked answer): send n=1 or leave n out")
        return value

    @field_validator("model")
    @classmethod
    def known_model(cls, value: str) -> str:
        """The one model this API answers as, in any case ("VoiceAssist"); another name is refused, not echoed
        back as if it had answered."""
        if value.strip().lower() != MODEL_ID:
            raise ValueError(f"unknown model {quoted_name(value)}: this API answers as {MODEL_ID!r} (GET /v1/models)")
        return MODEL_ID

    def token_limit(self) -> int | None:
        return chat_options.token_limit(self.max_tokens, self.max_completion_tokens)

    def stops(self) -> tuple[str, ...]:
        return chat_options.stop_sequences(self.stop)

    def prompt_text(self) -> str:
        return "\n".join(m.text for m in self.messages)


def models() -> dict[str, Any]:
    return {"object": "list", "data": [model(MODEL_ID)]}


def model(model_id: str) -> dict[str, Any]:
    """GET /v1/models/{model}: the one model (in any case, as the completions take it); another is a 404."""
    if model_id.strip().lower() != MODEL_ID:
        raise NotFound(f"no model {quoted_id(model_id)}: this API answers as {MODEL_ID!r} (GET /v1/models)")
    return {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": OWNER}


def to_query(chat: ChatCompletionRequest) -> tuple[QueryRequest, list[Turn]]:
    """The last user message as the question, and the earlier user and assistant messages as its history; an
    option that cannot be honoured is refused first (chat_options)."""
    chat_options.refuse_unsupported(response_format=chat.response_format, tool_choice=chat.tool_choice,
                                    max_tokens=chat.max_tokens, max_completion_tokens=chat.max_completion_tokens,
                                    logprobs=chat.logprobs, top_logprobs=chat.top_logprobs,
                                    modalities=chat.modalities, audio=chat.audio, logit_bias=chat.logit_bias,
                                    function_call=chat.function_call, web_search_options=chat.web_search_options)
    chat.stops()  # a malformed stop is refused before the question runs
    chat_options.refuse_out_of_range({"temperature": chat.temperature, "top_p": chat.top_p, "seed": chat.seed,
                                      "presence_penalty": chat.presence_penalty,
                                      "frequency_penalty": chat.frequency_penalty})
    if chat.stream_options is not None and not chat.stream:  # as OpenAI: a plain completion has no stream to end
        raise UnsupportedParameter("stream_options", "stream_options is only allowed with stream: true")
    turns = [m for m in chat.messages if m.role in ("user", "assistant") and m.text.strip()]
    if not turns or turns[-1].role != "user":
        raise InvalidInput("messages must end with a user message that has text content")
    question = turns[-1].text.strip()
    if len(question) > QUESTION_MAX_CHARS:  # cut short, the question asked would not be the question answered
        raise InvalidInput(f"the question (the last user message) is {len(question)} characters long; the limit "
                           f"is {QUESTION_MAX_CHARS}: shorten it")
    history = [Turn(m.role, m.text.strip()) for m in turns[:-1]]
    return QueryRequest(query=question, top_k=chat.top_k), history


def sources(citations: list[Citation]) -> str:
    """The "Sources:" list that follows the answer in the content, one line per [n]."""
    if not citations:
        return ""
    lines = []
    for c in citations:
        where = ", ".join(part for part in (f"p. {c.page}" if c.page else "", c.section or "") if part)
        lines.append(f"[{c.number}] {c.title}" + (f" ({where})" if where else "") + (f" {c.url}" if c.url else ""))
    return "\n\nSources:\n" + "\n".join(lines)


def completion(response: QueryResponse, *, model: str, request: ChatCompletionRequest | None = None
               ) -> dict[str, Any]:
    """The completion. `usage` counts, with cl100k_base, the messages received (`request`) and the content
    returned: what this API took and gave, also when no language model ran (an extractive answer); the
    pipeline's own model usage is in query_metadata.usage. A token limit cuts the content (finish_reason "length");
    a stop sequence ends it (finish_reason "stop")."""
    body = response.model_dump(mode="json")
    content, finish = chat_options.limit_content(response.answer + sources(response.citations),
                                                 request.token_limit() if request is not None else None,
                                                 request.stops() if request is not None else ())
    counted = usage(request, content) if request is not None else {
        "prompt_tokens": 0, "completion_tokens": count_tokens(content), "total_tokens": count_tokens(content)}
    return {
        "id": _completion_id(response), "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                     "message": {"role": "assistant", "content": content}}],
        "usage": counted,
        "citations": body["citations"], "query_metadata": body["metadata"],
    }


def chunks(run_events: Iterable[events.Event], *, model: str, completion_id: str,
           request: ChatCompletionRequest | None = None) -> Iterator[dict[str, Any]]:
    """OpenAI `chat.completion.chunk`s from the run's events: the role, one chunk per token of the checked answer
    (never a draft token: an OpenAI client cannot retract text), the sources list,
    then a final chunk with finish_reason "stop" and the `citations` extension (with a token limit, the chunks stop
    at the plain completion's cut and finish_reason is "length"); with
    `stream_options.include_usage`, a last chunk with no choices and the `usage` a plain completion reports (the
    tokens of the messages and of the content). An error event is raised."""
    created = int(time.time())
    budget = chat_options.ContentBudget(request.token_limit() if request is not None else None,
                                        request.stops() if request is not None else ())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}

    yield chunk({"role": "assistant", "content": ""})
    for item in run_events:
        if item["type"] == "token" and "draft" not in item["data"]:  # an OpenAI client cannot retract a draft
            admitted = budget.admit(item["data"]["text"])
            if admitted:
                yield chunk({"content": admitted})
        elif item["type"] == "done":
            response = QueryResponse.model_validate(item["data"])
            tail, finish = budget.finish(response.answer, sources(response.citations))
            if tail:  # the Sources list, or the rest of the cut content
                yield chunk({"content": tail})
            yield chunk({}, finish, citations=item["data"]["citations"], query_metadata=item["data"]["metadata"])
        elif item["type"] == "error":
            raise StreamFailed(item["data"])
    if request is not None and request.stream_options is not None and request.stream_options.include_usage:
        yield {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
               "choices": [], "usage": usage(request, budget.sent)}


def usage(request: ChatCompletionRequest, content: str) -> dict[str, int]:
    """What this API took and gave, in cl100k_base tokens (also when no language model ran)."""
    prompt_tokens, completion_tokens = count_tokens(request.prompt_text()), count_tokens(content)
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


class StreamFailed(Exception):
    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data["error"]["code"])
        self.data = data


def new_completion_id(trace_id: str) -> str:
    return f"chatcmpl-{trace_id}"


def _completion_id(response: QueryResponse) -> str:
    return f"chatcmpl-{response.metadata.query_id}"


def sse_chunk(chunk: dict[str, Any] | None) -> bytes:
    """One SSE line of an OpenAI stream; None is the closing `data: [DONE]`."""
    import json

    return b"data: [DONE]\n\n" if chunk is None else f"data: {json.dumps(chunk, default=str)}\n\n".encode()
