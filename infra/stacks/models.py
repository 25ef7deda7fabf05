"""The environment's SageMaker endpoints, deployed after the weights are uploaded (docs/operations.md).

Kept apart from the main stack so GPU capacity can be removed and redeployed without touching data; the
main stack refers to the endpoints by their fixed names, never through exports.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, Stack, Tags
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs.log_groups import encrypted_log_group
from infra.constructs.models import EndpointAutoscaling, ModelEndpoint
from infra.stacks.main import MainStack, removal_policy_for

LLM = "llm"
EMBEDDING = "embedding"


def llm_environment(config: EnvironmentConfig) -> dict[str, str]:
    """LMI (vLLM) settings: an OpenAI-compatible chat endpoint serving the weights under /opt/ml/model, with
    tool calls (docs.djl.ai, LMI user guide "Tool Calling Support in LMI")."""
    return {
        "HF_MODEL_ID": "/opt/ml/model",
        "OPTION_ROLLING_BATCH": "vllm",
        "OPTION_MAX_MODEL_LEN": "8192",
        "OPTION_TENSOR_PARALLEL_DEGREE": "max",
        "SERVED_MODEL_NAME": config.llm.served_model_name,
        # Tool calls (OpenAI `tools`, offered on every question): LMI passes these to vLLM; the chat template is
        # the model's own (Llama 3.1 Instruct's handles tools).
        "OPTION_ENABLE_AUTO_TOOL_CHOICE": "true",
        "OPTION_TOOL_CALL_PARSER": config.llm.tool_call_parser,
    }


class ModelsStack(Stack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        main: MainStack,
        **kwargs: object,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            description=f"VoiceAssist {config.name}: in-boundary SageMaker models",
            **kwargs,  # type: ignore[arg-type]
        )
        Tags.of(self).add("project", "voiceassist")
        Tags.of(self).add("environment", config.name)
        shared = {
            "artifacts_bucket_name": config.model_artifacts_bucket_name,
            "vpc": main.network.vpc,
            "subnets": main.network.data_subnets,
            "security_group": main.network.model_security_group,
            "key": main.key,
        }
        if config.llm.on_sagemaker:
            llm = ModelEndpoint(
                self,
                "Llm",
                endpoint_name=config.endpoint_name(LLM),
                image_uri=config.llm.image_uri,
                instance_type=config.llm.instance_type,
                initial_instance_count=config.llm.min_capacity,
                model_data_prefix=config.llm.model_data_prefix,
                environment=llm_environment(config),
                **shared,  # type: ignore[arg-type]
            )
            self._endpoint_logs("LlmLogs", llm, config, main)
            EndpointAutoscaling(self, "LlmScaling", endpoint=llm, llm=config.llm)
            CfnOutput(self, "LlmEndpointName", value=llm.endpoint_name)
        if config.embedding.enabled:
            embedding = ModelEndpoint(
                self,
                "Embedding",
                endpoint_name=config.endpoint_name(EMBEDDING),
                image_uri=config.embedding.image_uri,
                instance_type=config.embedding.instance_type,
                initial_instance_count=1,
                model_data_prefix=config.embedding.model_data_prefix,
                environment={"HF_MODEL_ID": "/opt/ml/model"},
                **shared,  # type: ignore[arg-type]
            )
            self._endpoint_logs("EmbeddingLogs", embedding, config, main)
            CfnOutput(self, "EmbeddingEndpointName", value=embedding.endpoint_name)

    def _endpoint_logs(self, construct_id: str, endpoint: ModelEndpoint, config: EnvironmentConfig,
                       main: MainStack) -> None:
        """The endpoint's log group, created here (encrypted, with retention) before SageMaker would create it."""
        log_group = encrypted_log_group(
            self,
            construct_id,
            key=main.key,
            retention_days=config.retention.log_days,
            removal_policy=removal_policy_for(config),
            log_group_name=f"/aws/sagemaker/Endpoints/{endpoint.endpoint_name}",
            mask_phi=True,
        )
        endpoint.endpoint.node.add_dependency(log_group)
