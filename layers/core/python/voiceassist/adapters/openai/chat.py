"""ChatModel over any OpenAI-compatible chat-completions API: OpenAI itself, Ollama, vLLM, llama.cpp.

The caller states whether the server is inside the PHI boundary (OpenAI: no; a self-hosted server in our own
network: yes); nothing here guesses it from the URL. Retries belong to routing, so the client makes none.
Error messages carry the model, the error class and the HTTP status, never the server's text, which can echo
the prompt.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from voiceassist.adapters.openai import tool_calls
from voiceassist.adapters.openai.pricing import cost_usd
from voiceassist.adapters.openai.stream_chunks import ChunkAccumulator
from voiceassist.errors import DependencyError, InvalidInput, ModelUnavailable
from voiceassist.models import ChatCompletion, ChatMessage, TokenUsage, ToolDefinition

if TYPE_CHECKING:
    import openai

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Statuses the OpenAI SDK itself treats as transient: worth a retry or another model.
TRANSIENT_STATUSES = frozenset({408, 409, 429})
# Local servers accept no key but the client insists on one.
NO_KEY = "not-needed"


class OpenAIChatModel:
    def __init__(self, model: str, *, in_boundary: bool, base_url: str | None = None,
                 api_key: str | None = None, key_provider: Callable[[], str] | None = None,
                 timeout_s: float = 20.0, client: openai.OpenAI | None = None, http_client: Any = None,
                 name: str | None = None) -> None:
        if client is None and base_url is None and api_key is None and key_provider is None:
            raise InvalidInput("the OpenAI chat model needs an api_key or key_provider (or a base_url of a "
                               "local server)")
        self.model = model
        self.name = name or model
        self.in_boundary = in_boundary
        self.base_url = base_url or OPENAI_BASE_URL
        self.timeout_s = timeout_s
        self._official = base_url is None
        self._api_key = api_key
        self._key_provider = key_provider
        self._http_client = http_client
        self._client = client
        self._lock = threading.Lock()
        self._renamed: dict[str, OpenAIChatModel] = {}

    def with_model(self, model: str) -> OpenAIChatModel:
        """The same server and key asking for another model (the admin configuration's choice); one instance per
        name, so each keeps its connection pool."""
        if model == self.model:
            return self
        with self._lock:
            if model not in self._renamed:
                renamed = OpenAIChatModel(model, in_boundary=self.in_boundary, base_url=None if self._official else
                                          self.base_url, api_key=self._api_key, key_provider=self._key_provider,
                                          timeout_s=self.timeout_s, http_client=self._http_client,
                                          client=self._client)
                self._renamed[model] = renamed
            return self._renamed[model]

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        try:
            request = self._request(messages, max_tokens, temperature)
            response = self._openai().chat.completions.create(**request)
        except Exception as exc:
            self._raise_mapped(exc)
        text = response.choices[0].message.content if response.choices else None
        return ChatCompletion(text=text or "", **self._accounting(response.model, response.usage))

    def complete_with_tools(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                            max_tokens: int = 700, temperature: float = 0.1) -> ChatCompletion:
        """A completion that may ask for tool calls instead of text (ports.ToolCallingChatModel)."""
        try:
            response = self._openai().chat.completions.create(
                **self._tools_request(messages, tools, max_tokens, temperature))
        except Exception as exc:
            self._raise_mapped(exc)
        message = response.choices[0].message if response.choices else None
        return ChatCompletion(text=(message.content if message else None) or "",
                              **self._accounting(response.model, response.usage),
                              tool_calls=tool_calls.parse_tool_calls(message.tool_calls if message else None))

    def stream_completion(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] = (), *,
                          on_text: Callable[[str], None], max_tokens: int = 700,
                          temperature: float = 0.1) -> ChatCompletion:
        """complete_with_tools, streamed (ports.StreamingChatModel): the text goes to `on_text` as it arrives,
        the tool calls' argument fragments are joined. A server that sends no usage chunk reports 0 tokens."""
        request = self._tools_request(messages, tools, max_tokens, temperature)
        request["stream_options"] = {"include_usage": True}  # OpenAI, vLLM, Ollama and llama.cpp accept it
        chunks = ChunkAccumulator(on_text)
        for chunk in self._chunks(request):
            chunks.add(chunk)
        return ChatCompletion(text=chunks.text, tool_calls=chunks.tool_calls(),
                              **self._accounting(chunks.model, chunks.token_usage()))

    def _accounting(self, model: str | None, usage: Any) -> dict[str, Any]:
        """The answering model's name and the completion's token usage (the SDK's usage, or the stream's
        TokenUsage) and cost."""
        model = model or self.model
        prompt_tokens = usage.prompt_tokens if usage else 0
        completion_tokens = usage.completion_tokens if usage else 0
        return {"model": model, "usage": TokenUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                                    cost_usd=cost_usd(model, prompt_tokens, completion_tokens))}

    # ---- internals ----------------------------------------------------------------------------------
    def _chunks(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The streamed chunks as dicts; a failure, also part-way, is mapped as complete maps it."""
        try:
            for chunk in self._openai().chat.completions.create(**request, stream=True):
                yield chunk.model_dump()
        except Exception as exc:
            self._raise_mapped(exc)

    def _tools_request(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], max_tokens: int,
                       temperature: float) -> dict[str, Any]:
        request = self._request(messages, max_tokens, temperature)
        request["messages"] = [tool_calls.message_payload(m) for m in messages]
        if tools:
            request["tools"] = tool_calls.tools_payload(tools)
        return request

    def _request(self, messages: Sequence[ChatMessage], max_tokens: int, temperature: float
                 ) -> dict[str, Any]:
        # OpenAI's newer models refuse max_tokens; the local servers know only max_tokens.
        limit = "max_completion_tokens" if self._official else "max_tokens"
        return {"model": self.model, "messages": [{"role": m.role, "content": m.content} for m in messages],
                limit: max_tokens, "temperature": temperature}

    def _openai(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                import openai

                key = self._key_provider() if self._key_provider else self._api_key
                self._client = openai.OpenAI(api_key=key or NO_KEY, base_url=self.base_url,
                                             timeout=self.timeout_s, max_retries=0,
                                             http_client=self._http_client)
            return self._client

    def _raise_mapped(self, exc: Exception) -> NoReturn:
        import openai

        where = f"chat model {self.name}"
        if isinstance(exc, openai.APITimeoutError):
            raise ModelUnavailable(f"{where} timed out after {self.timeout_s:g} s") from None
        if isinstance(exc, openai.APIConnectionError):
            raise ModelUnavailable(f"{where} could not be reached") from None
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            message = f"{where} failed ({type(exc).__name__}, HTTP {status})"
            if status >= 500 or status in TRANSIENT_STATUSES:
                raise ModelUnavailable(message) from None
            if status in (401, 403) and self._key_provider is not None:
                with self._lock:
                    self._client = None  # the key may have been rotated: read it again next time
            raise DependencyError(message) from None
        if type(exc) is openai.APIError:  # an error event part-way through a stream: the generation failed
            raise ModelUnavailable(f"{where} stream failed (APIError)") from None
        if isinstance(exc, openai.OpenAIError):
            raise DependencyError(f"{where} failed ({type(exc).__name__})") from None
        if isinstance(exc, json.JSONDecodeError):  # a 200 whose body is not JSON (a proxy's page, a cut reply)
            raise DependencyError(f"{where} returned a body that is not JSON") from None
        raise exc
