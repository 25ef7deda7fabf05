"""ChatModel on Amazon Bedrock's Converse API, e.g. Meta Llama 3.1 8B Instruct (decision 0016).

Bedrock is covered by the AWS BAA and is reached through the VPC's bedrock-runtime interface endpoint, so
it is an in-boundary model like the SageMaker endpoint, without an instance that idles. Converse takes one
message shape for every model: the system prompt apart, text and tool blocks in strictly alternating user and
assistant turns; ConverseStream sends the answer as contentBlockDelta events. Errors name the model and
the error code, never the service's message, which can echo the prompt.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn

from voiceassist.adapters.aws.model_runtime import ModelRuntimeClient
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


class BedrockChatModel:
    def __init__(self, model_id: str, *, client: Any = None, model_label: str = "llama-3.1-8b",
                 in_boundary: bool = True, timeout_s: float = 20.0, region_name: str | None = None) -> None:
        self.model_id = model_id
        self.name = model_label
        self.in_boundary = in_boundary
        self.timeout_s = timeout_s
        self._runtime = ModelRuntimeClient("bedrock-runtime", client=client, region_name=region_name,
                                           timeout_s=timeout_s)

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        return self._converse(converse_request(self.model_id, messages, max_tokens, temperature))

    def complete_with_tools(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                            max_tokens: int = 700, temperature: float = 0.1) -> ChatCompletion:
        """Converse's toolConfig; the reply's toolUse blocks become the completion's tool_calls."""
        request = converse_request(self.model_id, messages, max_tokens, temperature)
        if tools:
            request["toolConfig"] = {"tools": [tool_spec(tool) for tool in tools]}
        return self._converse(request)

    def stream(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
               temperature: float = 0.1) -> Iterator[str]:
        try:
            response = self._bedrock().converse_stream(
                **converse_request(self.model_id, messages, max_tokens, temperature))
        except Exception as exc:
            self._raise_mapped(exc)
        yield from self._deltas(response["stream"])

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
        usage = response.get("usage") or {}
        prompt_tokens, completion_tokens = int(usage.get("inputTokens", 0)), int(usage.get("outputTokens", 0))
        return ChatCompletion(
            text="".join(block["text"] for block in blocks if "text" in block), model=self.name,
            usage=TokenUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                             cost_usd=cost_usd(self.model_id, prompt_tokens, completion_tokens)),
            tool_calls=[tool_call(block["toolUse"]) for block in blocks if "toolUse" in block],
        )

    def _deltas(self, events: Iterable[dict[str, Any]]) -> Iterator[str]:
        """The answer's text deltas; an error event part-way (botocore raises it) is a transient failure."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            for event in events:
                text = ((event.get("contentBlockDelta") or {}).get("delta") or {}).get("text")
                if text:
                    yield text
        except ClientError as exc:  # EventStreamError: throttlingException, modelStreamErrorException, ...
            code = str(exc.response.get("Error", {}).get("Code", "Unknown"))
            raise ModelUnavailable(f"Bedrock model {self.model_id} stream failed ({code})") from None
        except BotoCoreError as exc:
            raise ModelUnavailable(f"Bedrock model {self.model_id} stream was cut ({type(exc).__name__})") from None

    def _bedrock(self) -> Any:
        return self._runtime.get()

    def _raise_mapped(self, exc: Exception) -> NoReturn:
        from botocore.exceptions import BotoCoreError, ClientError

        where = f"Bedrock model {self.model_id}"
        if isinstance(exc, ClientError):
            code = str(exc.response.get("Error", {}).get("Code", "Unknown"))
            status = exc.response.get("originalStatusCode")  # ModelErrorException: what the model answered
            if code in PERMANENT_ERROR_CODES or (code == "ModelErrorException" and isinstance(status, int)
                                                  and 400 <= status < 500 and status not in (408, 429)):
                raise DependencyError(f"{where} rejected the request ({code})") from None
            raise ModelUnavailable(f"{where} failed ({code})") from None
        if isinstance(exc, BotoCoreError):  # time-outs, connection errors, an event stream cut short
            raise ModelUnavailable(f"{where} could not be reached ({type(exc).__name__})") from None
        raise exc


def cost_usd(model_id: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Per-token billing; a cross-Region profile id (us.meta...) is priced as its model."""
    model = model_id.split(".", 1)[1] if model_id.split(".", 1)[0] in ("us", "eu", "apac") else model_id
    prompt_price, completion_price = PRICES_PER_1M.get(model, (0.0, 0.0))
    return round((prompt_tokens * prompt_price + completion_tokens * completion_price) / 1_000_000, 8)


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
