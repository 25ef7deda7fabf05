"""ChatModel on a SageMaker real-time endpoint serving an LMI (vLLM) container, e.g. Llama 3.1 8B Instruct.

The endpoint speaks the OpenAI chat-completions schema through invoke_endpoint, and streams it as
server-sent events ("data: {...}" lines) through invoke_endpoint_with_response_stream. The endpoint lives in
our account, inside the PHI boundary. Error messages name the endpoint and the error code, never the
container's message, which can echo the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NoReturn

from voiceassist.adapters.aws.model_runtime import ModelRuntimeClient, Variants, is_cut_stream
from voiceassist.adapters.openai import tool_calls
from voiceassist.adapters.openai.stream_chunks import ChunkAccumulator
from voiceassist.errors import DependencyError, ModelUnavailable
from voiceassist.models import ChatCompletion, ChatMessage, TokenUsage, ToolDefinition

# Client errors that no retry or wait will fix: a wrong endpoint name, missing permission, a bad request.
PERMANENT_ERROR_CODES = frozenset({"ValidationError", "AccessDeniedException", "UnrecognizedClientException"})


class SageMakerChatModel:
    def __init__(self, endpoint_name: str, *, client: Any = None, model_label: str = "llama-3.1-8b",
                 in_boundary: bool = True, timeout_s: float = 20.0, region_name: str | None = None) -> None:
        self.endpoint_name = endpoint_name
        self.name = model_label
        self.in_boundary = in_boundary
        self.timeout_s = timeout_s
        self._runtime = ModelRuntimeClient("sagemaker-runtime", client=client, region_name=region_name,
                                           timeout_s=timeout_s)
        self._variants: Variants[SageMakerChatModel] = Variants()

    def with_model(self, endpoint_name: str) -> SageMakerChatModel:
        """The same client on another endpoint (the admin configuration's in-boundary model), labelled by its
        name; one instance per endpoint."""
        if endpoint_name == self.endpoint_name:
            return self
        return self._variants.get(endpoint_name, lambda: self._on(endpoint_name))

    def _on(self, endpoint_name: str) -> SageMakerChatModel:
        other = SageMakerChatModel(endpoint_name, model_label=endpoint_name, in_boundary=self.in_boundary,
                                   timeout_s=self.timeout_s)
        other._runtime = self._runtime
        return other

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        try:
            response = self._sagemaker().invoke_endpoint(
                EndpointName=self.endpoint_name, ContentType="application/json", Accept="application/json",
                Body=json.dumps(self._body(messages, max_tokens, temperature)).encode("utf-8"),
            )
            payload = json.loads(response["Body"].read())
        except Exception as exc:
            self._raise_mapped(exc)
        if not isinstance(payload, dict) or "choices" not in payload:
            raise DependencyError(f"SageMaker endpoint {self.endpoint_name} returned no chat completion")
        choices = payload["choices"]
        text = (choices[0].get("message") or {}).get("content") if choices else None
        usage = payload.get("usage") or {}
        return ChatCompletion(
            text=text or "", model=self.name,
            # Self-hosted: the endpoint costs instance hours, not tokens.
            usage=TokenUsage(prompt_tokens=int(usage.get("prompt_tokens", 0)),
                             completion_tokens=int(usage.get("completion_tokens", 0))),
        )

    def complete_with_tools(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                            max_tokens: int = 700, temperature: float = 0.1) -> ChatCompletion:
        """LMI (vLLM) takes OpenAI's `tools` and answers with `tool_calls` (ports.ToolCallingChatModel)."""
        body = self._tools_body(messages, tools, max_tokens, temperature)
        try:
            response = self._sagemaker().invoke_endpoint(
                EndpointName=self.endpoint_name, ContentType="application/json", Accept="application/json",
                Body=json.dumps(body).encode("utf-8"))
            payload = json.loads(response["Body"].read())
        except Exception as exc:
            self._raise_mapped(exc)
        if not isinstance(payload, dict) or not payload.get("choices"):
            raise DependencyError(f"SageMaker endpoint {self.endpoint_name} returned no chat completion")
        message = payload["choices"][0].get("message") or {}
        usage = payload.get("usage") or {}
        return ChatCompletion(text=message.get("content") or "", model=self.name,
                              usage=TokenUsage(prompt_tokens=int(usage.get("prompt_tokens", 0)),
                                               completion_tokens=int(usage.get("completion_tokens", 0))),
                              tool_calls=tool_calls.parse_tool_calls(message.get("tool_calls")))

    def stream_completion(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] = (), *,
                          on_text: Callable[[str], None], max_tokens: int = 700,
                          temperature: float = 0.1) -> ChatCompletion:
        """complete_with_tools, streamed (ports.StreamingChatModel): LMI streams OpenAI's chunks, tool-call
        fragments included; a container that sends no usage chunk reports 0 tokens."""
        body = self._tools_body(messages, tools, max_tokens, temperature) | {"stream": True}
        chunks = ChunkAccumulator(on_text)
        try:
            for chunk in self._chunks(body | {"stream_options": {"include_usage": True}}):
                chunks.add(chunk)
        except DependencyError:
            # An older LMI container may refuse stream_options (its schema predates it): ask once without it,
            # before anything arrived; the answer then reports 0 tokens.
            if chunks.text or chunks.tool_calls():
                raise
            for chunk in self._chunks(body):
                chunks.add(chunk)
        # Self-hosted: the endpoint costs instance hours, not tokens.
        return ChatCompletion(text=chunks.text, model=self.name, usage=chunks.token_usage(),
                              tool_calls=chunks.tool_calls())

    # ---- internals ----------------------------------------------------------------------------------
    def _chunks(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The streamed OpenAI chunks; a failure, also part-way, is mapped as complete maps it."""
        try:
            response = self._sagemaker().invoke_endpoint_with_response_stream(
                EndpointName=self.endpoint_name, ContentType="application/json",
                Body=json.dumps(body).encode("utf-8"))
            yield from self._decoded(response["Body"])
        except Exception as exc:
            self._raise_mapped(exc)

    def _decoded(self, events: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        decoder = SseDecoder()
        for event in events:
            if "PayloadPart" in event:
                yield from self._checked(decoder.feed(event["PayloadPart"].get("Bytes", b"")))
            elif event:  # ModelStreamError or InternalStreamFailure
                code = next(iter(event))
                raise ModelUnavailable(f"SageMaker endpoint {self.endpoint_name} stream failed ({code})")
            if decoder.done:
                return
        yield from self._checked(decoder.flush())

    def _checked(self, chunks: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for chunk in chunks:
            if chunk.get("object") == "error" or "error" in chunk:
                raise ModelUnavailable(f"SageMaker endpoint {self.endpoint_name} reported a stream error")
            yield chunk

    @staticmethod
    def _body(messages: Sequence[ChatMessage], max_tokens: int, temperature: float) -> dict[str, Any]:
        return {"messages": [{"role": m.role, "content": m.content} for m in messages],
                "max_tokens": max_tokens, "temperature": temperature}

    @staticmethod
    def _tools_body(messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], max_tokens: int,
                    temperature: float) -> dict[str, Any]:
        body: dict[str, Any] = {"messages": [tool_calls.message_payload(m) for m in messages],
                                "max_tokens": max_tokens, "temperature": temperature}
        if tools:
            body["tools"] = tool_calls.tools_payload(tools)
        return body

    def _sagemaker(self) -> Any:
        return self._runtime.get()

    def _raise_mapped(self, exc: Exception) -> NoReturn:
        from botocore.exceptions import BotoCoreError, ClientError

        where = f"SageMaker endpoint {self.endpoint_name}"
        if isinstance(exc, ClientError):
            error = exc.response.get("Error", {})
            code = str(error.get("Code", "Unknown"))
            status = exc.response.get("OriginalStatusCode")
            if code in PERMANENT_ERROR_CODES or (code == "ModelError" and isinstance(status, int)
                                                  and 400 <= status < 500 and status not in (408, 429)):
                raise DependencyError(f"{where} rejected the request ({code})") from None
            raise ModelUnavailable(f"{where} failed ({code})") from None
        if isinstance(exc, BotoCoreError) or is_cut_stream(exc):
            raise ModelUnavailable(f"{where} could not be reached ({type(exc).__name__})") from None
        if isinstance(exc, ValueError):  # the body was not JSON
            raise DependencyError(f"{where} returned a body that is not JSON") from None
        raise exc


class SseDecoder:
    """Server-sent events split across PayloadPart chunks: bytes in, parsed JSON data lines out.

    Bytes are buffered until a newline, so a line (or a multi-byte character) cut between two chunks is
    decoded whole. Lines without the "data:" prefix are accepted as JSON too (some LMI versions emit them).
    """

    def __init__(self) -> None:
        self._buffer = b""
        self.done = False

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        return self._parse(lines)

    def flush(self) -> list[dict[str, Any]]:
        rest, self._buffer = self._buffer, b""
        return self._parse([rest])

    def _parse(self, lines: list[bytes]) -> list[dict[str, Any]]:
        parsed = []
        for raw in lines:
            line = raw.decode("utf-8").strip()
            if self.done or not line or line.startswith((":", "event:", "id:", "retry:")):
                continue
            data = line[len("data:"):].strip() if line.startswith("data:") else line
            if data == "[DONE]":
                self.done = True
                continue
            chunk = json.loads(data)
            if isinstance(chunk, dict):
                parsed.append(chunk)
        return parsed
