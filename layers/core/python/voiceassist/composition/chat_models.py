"""Which chat models a deployment has, built from Settings.

cloud: OpenAI (never sees PHI). local: the in-boundary model, SageMaker or Bedrock on AWS (per
environment, VOICEASSIST_IN_BOUNDARY_PROVIDER), or any OpenAI-compatible
server (Ollama, vLLM, llama.cpp) you run inside the boundary. Neither configured -> extractive answers. The admin
configuration may ask each for another model id (query/model_plan.configured_model; validated against
`in_boundary_choice`).

Time-outs keep the worst case (primary, one retry, fallback) inside API Gateway's 29 s limit.
"""

from __future__ import annotations

from voiceassist.adapters.aws.secrets_manager import secret_api_key
from voiceassist.admin.config import in_boundary_choice
from voiceassist.ports import ChatModel
from voiceassist.settings import Settings

CLOUD_TIMEOUT_S = 6.0
LOCAL_TIMEOUT_S = 12.0


def build_cloud_chat(settings: Settings) -> ChatModel | None:
    from voiceassist.adapters.openai.chat import OpenAIChatModel

    if settings.openai_secret_arn:
        arn, region = settings.openai_secret_arn, settings.region
        return OpenAIChatModel(settings.openai_model, in_boundary=False, base_url=settings.openai_base_url,
                               key_provider=lambda: secret_api_key(arn, region) or "", timeout_s=CLOUD_TIMEOUT_S)
    if settings.openai_api_key:
        return OpenAIChatModel(settings.openai_model, in_boundary=False, base_url=settings.openai_base_url,
                               api_key=settings.openai_api_key, timeout_s=CLOUD_TIMEOUT_S)
    return None


def build_local_chat(settings: Settings, *, timeout_s: float = LOCAL_TIMEOUT_S) -> ChatModel | None:
    """The in-boundary model; `timeout_s` bounds each call (the summary's own instance has a shorter one)."""
    choice = in_boundary_choice(settings)
    if choice.provider == "bedrock" and choice.model:
        from voiceassist.adapters.aws.bedrock_chat import BedrockChatModel

        return BedrockChatModel(choice.model, region_name=settings.region, timeout_s=timeout_s)
    if choice.provider == "sagemaker" and choice.model:
        from voiceassist.adapters.aws.sagemaker_chat import SageMakerChatModel

        return SageMakerChatModel(choice.model, region_name=settings.region, timeout_s=timeout_s)
    if choice.provider == "server" and choice.model:
        from voiceassist.adapters.openai.chat import OpenAIChatModel

        return OpenAIChatModel(choice.model, in_boundary=True, base_url=settings.local_chat_base_url,
                               api_key="not-needed", timeout_s=timeout_s)
    return None
