"""ChatModel on Amazon Bedrock's Converse API, e.g. Meta Llama 3.1 8B Instruct (decision 0016).

Bedrock is covered by the AWS BAA and is reached through the VPC's bedrock-runtime interface endpoint, so
it is an in-boundary model like the SageMaker endpoint, without an instance that idles. Converse takes one
message shape for every model: the system prompt apart, text and tool blocks in strictly alternating user and
assistant turns; ConverseStream sends the answer as contentBlockDelta events. Errors name the model and
the error code, never the service's message, which can echo the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from voiceassist.adapters.aws.model_runtime import ModelRuntimeClient, Variants, is_cut_stream
from voiceassist.errors import DependencyError, ModelUnavailable
from voiceassist.models import ChatCompletion, ChatMessage, TokenUsage, ToolCall, ToolDefinition

# Client errors that no retry or wait will fix: a wrong model id, model access not granted, a bad request.
# Everything else (ThrottlingException, ServiceQuotaExceeded, ModelNotReady, ModelTimeout, 5xx) is transient:
# the router retries or falls back, and the circuit breaker counts it.
# On-demand list prices in USD per million input and output tokens (us-east-1, checked 2026; update with the
# Bedrock pricing page). An inference profile costs what its model costs. Unknown models report 0.
PRICES_PER_1M: dict[str, tuple[float, float]] = {"meta.llama3-1-8b-instruct-v1:0": (0.22, 0.22)}
PERMANENT_ERROR_CODES = frozenset({"ValidationException", "AccessDeniedException", "ResourceNotFoundException",
                                   "UnrecognizedClientException"})
# Model families whose ConverseStream accepts a toolConfig: the "Streaming tool use" column of Bedrock's
# "Supported models and model features" table for the Converse API (docs.aws.amazon.com/bedrock/latest/userguide/
# conversation-inference-supported-models-features.html). Meta Llama models have tool use but not streaming tool
# use, so a streamed request with tools is answered through Converse instead (decision 0030). A family not listed
# takes that path too: Converse works wherever tool use does.
STREAMING_TOOL_USE_FAMILIES = ("amazon.nova", "anthropic.claude-3", "anthropic.claude-sonnet-4",
                               "anthropic.claude-opus-4", "ai21.jamba-1-5", "cohere.command-r",
                               "mistral.mistral-large")


class BedrockChatModel:
    def __init__(self, model_id: str, *, client: Any = None, model_label: str = "llama-3.1-8b",
                 in_boundary: bool = True, timeout_s: float = 20.0, region_name: str | None = None,
                 streams_tool_use: bool | None = None) -> None:
        self.model_id = model_id
        self.streams_tool_use = streams_tool_use if streams_tool_use is not None else (
            base_model(model_id).startswith(STREAMING_TOOL_USE_FAMILIES))
        self.name = model_label
        self.in_boundary = in_boundary
        self.timeout_s = timeout_s
        self._runtime = ModelRuntimeClient("bedrock-runtime", client=client, region_name=region_name,
                                           timeout_s=timeout_s)
        self._variants: Variants[BedrockChatModel] = Variants()

    def with_model(self, model_id: str) -> BedrockChatModel:
        """The same client asking another model (the admin configuration's in-boundary model), labelled by its id,
        priced and checked for streaming tool use as that model; one instance per id."""
        if model_id == self.model_id:
            return self
        return self._variants.get(model_id, lambda: self._on(model_id))

    def _on(self, model_id: str) -> BedrockChatModel:
        other = BedrockChatModel(model_id, model_label=model_id, in_boundary=self.in_boundary, timeout_s=self.timeout_s)
        other._runtime = self._runtime
        return other

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        return self._converse(converse_request(self.model_id, messages, max_tokens, temperature))

    def complete_with_tools(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                            max_tokens: int = 700, temperature: float = 0.1) -> ChatCompletion:
        """Converse's toolConfig; the reply's toolUse blocks become the completion's tool_calls."""
        return self._converse(tools_request(self.model_id, messages, tools, max_tokens, temperature))

    def stream_completion(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] = (), *,
                          on_text: Callable[[str], None], max_tokens: int = 700,
                          temperature: float = 0.1) -> ChatCompletion:
        """complete_with_tools over ConverseStream (ports.StreamingChatModel): text deltas go to `on_text`, a
        toolUse block's input fragments are joined, the metadata event gives the usage. A model that cannot
        stream tool use (Llama) answers a request with tools through Converse, its text passed on once."""
        if tools and not self.streams_tool_use:
            completion = self.complete_with_tools(messages, tools, max_tokens=max_tokens, temperature=temperature)
            if completion.text:
                on_text(completion.text)
            return completion
        blocks = StreamedBlocks(on_text)
        for event in self._events(tools_request(self.model_id, messages, tools, max_tokens, temperature)):
            blocks.add(event)
        return self._completion(blocks.text, blocks.usage, blocks.tool_calls())

    # ---- internals ----------------------------------------------------------------------------------
    def _converse(self, request: dict[str, Any]) -> ChatCompletion:
        try:
            response = self._bedrock().converse(**request)
        except Exception as exc:
            self._raise_mapped(exc)
        message = (response.get("output") or {}).get("message")
        if not isinstance(message, dict):
            raise DependencyError(f"Bedrock model {self.model_id} returned no message")
        blocks = message.get("content") or []
        return self._completion("".join(block["text"] for block in blocks if "text" in block),
                                response.get("usage") or {},
                                [tool_call(block["toolUse"]) for block in blocks if "toolUse" in block])

    def _completion(self, text: str, usage: dict[str, Any], calls: list[ToolCall]) -> ChatCompletion:
        prompt_tokens, completion_tokens = int(usage.get("inputTokens", 0)), int(usage.get("outputTokens", 0))
        return ChatCompletion(text=text, model=self.name, tool_calls=calls,
                              usage=TokenUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                               cost_usd=cost_usd(self.model_id, prompt_tokens, completion_tokens)))

    def _events(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """ConverseStream's events; a failure, also an error event part-way (botocore raises it as an
        EventStreamError), is mapped as converse's are."""
        try:
            yield from self._bedrock().converse_stream(**request)["stream"]
        except Exception as exc:
            self._raise_mapped(exc)

    def _bedrock(self) -> Any:
        return self._runtime.get()

    def _raise_mapped(self, exc: Exception) -> NoReturn:
        from botocore.exceptions import BotoCoreError, ClientError

        where = f"Bedrock model {self.model_id}"
        if isinstance(exc, ClientError):
            code = str(exc.response.get("Error", {}).get("Code") or "Unknown")
            code = code[:1].upper() + code[1:]  # a stream's error events are named throttlingException, ...
            status = exc.response.get("originalStatusCode")  # ModelErrorException: what the model answered
            if code in PERMANENT_ERROR_CODES or (code == "ModelErrorException" and isinstance(status, int)
                                                  and 400 <= status < 500 and status not in (408, 429)):
                raise DependencyError(f"{where} rejected the request ({code})") from None
            raise ModelUnavailable(f"{where} failed ({code})") from None
        if isinstance(exc, BotoCoreError) or is_cut_stream(exc):  # time-outs, connection errors, a cut stream
            raise ModelUnavailable(f"{where} could not be reached ({type(exc).__name__})") from None
        raise exc


def base_model(model_id: str) -> str:
    """The model a cross-Region inference profile id (us.meta...) stands for."""
    return model_id.split(".", 1)[1] if model_id.split(".", 1)[0] in ("us", "eu", "apac") else model_id


def cost_usd(model_id: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Per-token billing; a cross-Region profile id (us.meta...) is priced as its model."""
    prompt_price, completion_price = PRICES_PER_1M.get(base_model(model_id), (0.0, 0.0))
    return round((prompt_tokens * prompt_price + completion_tokens * completion_price) / 1_000_000, 8)


def tools_request(model_id: str, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition],
                  max_tokens: int, temperature: float) -> dict[str, Any]:
    request = converse_request(model_id, messages, max_tokens, temperature)
    if tools:
        request["toolConfig"] = {"tools": [tool_spec(tool) for tool in tools]}
    return request


def converse_request(model_id: str, messages: Sequence[ChatMessage], max_tokens: int,
                     temperature: float) -> dict[str, Any]:
    system = [{"text": m.content} for m in messages if m.role == "system" and m.content]
    request: dict[str, Any] = {
        "modelId": model_id,
        "messages": conversation(messages),
        "inferenceConfig": {"maxTokens": max_tokens, "temperature": temperature},
    }
    if system:
        request["system"] = system
    return request


def conversation(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """OpenAI-shaped turns as Converse messages: tool results are user turns, and consecutive turns of one
    role are merged (Converse requires user and assistant to alternate; our prompts start with the user)."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = content_blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def content_blocks(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [{"toolResult": {"toolUseId": message.tool_call_id or "", "content": [{"text": message.content}]}}]
    blocks: list[dict[str, Any]] = [{"text": message.content}] if message.content.strip() else []
    blocks += [{"toolUse": {"toolUseId": call.call_id, "name": call.name, "input": call.arguments}}
               for call in message.tool_calls]
    return blocks


def tool_spec(tool: ToolDefinition) -> dict[str, Any]:
    schema = tool.parameters or {"type": "object", "properties": {}}
    return {"toolSpec": {"name": tool.name, "description": tool.description, "inputSchema": {"json": schema}}}


def tool_call(block: dict[str, Any]) -> ToolCall:
    """A toolUse block; input that is not a JSON object becomes {} (the executor names the missing fields)."""
    arguments = block.get("input")
    return ToolCall(call_id=str(block.get("toolUseId") or "call_0"), name=str(block.get("name") or ""),
                    arguments=arguments if isinstance(arguments, dict) else {})


class StreamedBlocks:
    """ConverseStream's events put back together: text deltas to `on_text` as they arrive, each toolUse
    block's input fragments joined by contentBlockIndex, the usage from the metadata event."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        self._on_text = on_text
        self._texts: list[str] = []
        self._tools: dict[int, dict[str, Any]] = {}  # contentBlockIndex -> toolUseId, name and input fragments
        self.usage: dict[str, Any] = {}

    @property
    def text(self) -> str:
        return "".join(self._texts)

    def add(self, event: dict[str, Any]) -> None:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool_use = (start.get("start") or {}).get("toolUse")
            if tool_use:
                self._tools[int(start.get("contentBlockIndex", 0))] = {**tool_use, "input": []}
        elif "contentBlockDelta" in event:
            self._add_delta(event["contentBlockDelta"])
        elif "metadata" in event:
            self.usage = event["metadata"].get("usage") or {}

    def tool_calls(self) -> list[ToolCall]:
        """The toolUse blocks in order; input that is not a JSON object becomes {} (as tool_call does)."""
        return [tool_call({**block, "input": _json_or_none("".join(block["input"]))})
                for _, block in sorted(self._tools.items())]

    def _add_delta(self, event: dict[str, Any]) -> None:
        delta = event.get("delta") or {}
        if delta.get("text"):
            self._texts.append(delta["text"])
            self._on_text(delta["text"])
        block = self._tools.get(int(event.get("contentBlockIndex", 0)))
        if block is not None and (delta.get("toolUse") or {}).get("input"):
            block["input"].append(delta["toolUse"]["input"])


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text or "{}")
    except json.JSONDecodeError:
        return None
