"""The off-hours schedule (issue 16): a schedule either lowers the endpoint's capacity or cannot be configured.

dev no longer idles a GPU at all (its Llama is on Bedrock, billed per token, decision 0016), so it has no
schedule; a real-time SageMaker variant cannot go below one instance, so a schedule is only possible where the
working-hours minimum is 2 or more, and then it must really go down off hours and come back in the morning.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk.assertions import Template
from conftest import REPO_ROOT
from pydantic import ValidationError

from infra.config import ENVIRONMENT_NAMES, LlmConfig, load_environment
from infra.constructs.models import EndpointAutoscaling

CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
IMAGE = "763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128"


def _scalable_target(llm: LlmConfig) -> dict:
    stack = Stack(App(), "Scaling")
    endpoint = sagemaker.CfnEndpoint(stack, "Endpoint", endpoint_name="voiceassist-prod-llm",
                                     endpoint_config_name="config")
    EndpointAutoscaling(stack, "LlmScaling", endpoint=SimpleNamespace(endpoint_name="voiceassist-prod-llm",
                                                                      endpoint=endpoint), llm=llm)  # type: ignore[arg-type]
    (target,) = Template.from_stack(stack).find_resources("AWS::ApplicationAutoScaling::ScalableTarget").values()
    return dict(target["Properties"])


def test_a_schedule_lowers_the_capacity_off_hours_and_restores_it_in_the_morning() -> None:
    llm = LlmConfig(image_uri=IMAGE, min_capacity=2, max_capacity=4, scale_down={"off_hours_capacity": 1})

    target = _scalable_target(llm)

    actions = {action["ScheduledActionName"]: action for action in target["ScheduledActions"]}
    assert (target["MinCapacity"], target["MaxCapacity"]) == (2, 4)
    assert actions["off-hours"]["ScalableTargetAction"] == {"MinCapacity": 1, "MaxCapacity": 1}
    assert actions["off-hours"]["Schedule"] == "cron(0 20 ? * MON-FRI *)"
    assert actions["working-hours"]["ScalableTargetAction"] == {"MinCapacity": 2, "MaxCapacity": 4}
    assert actions["working-hours"]["Schedule"] == "cron(0 6 ? * MON-FRI *)"


def test_without_a_schedule_the_endpoint_keeps_its_capacity() -> None:
    target = _scalable_target(LlmConfig(image_uri=IMAGE, min_capacity=2, max_capacity=4))
    assert "ScheduledActions" not in target and target["MinCapacity"] == 2


@pytest.mark.parametrize(("llm", "message"), [
    ({"min_capacity": 1, "scale_down": {"off_hours_capacity": 1}}, "below min_capacity"),
    ({"provider": "bedrock", "scale_down": {"off_hours_capacity": 1}}, "SageMaker endpoint"),
])
def test_a_schedule_that_cannot_scale_down_is_refused(llm: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        LlmConfig(image_uri=IMAGE, **llm)


def test_dev_has_no_gpu_to_schedule_and_every_configured_schedule_scales_down() -> None:
    configs = {name: load_environment(CONTEXT, name) for name in ENVIRONMENT_NAMES}
    assert configs["dev"].llm.on_bedrock and configs["dev"].llm.scale_down is None
    for name, config in configs.items():
        if config.llm.scale_down is not None:
            assert config.llm.scale_down.off_hours_capacity < config.llm.min_capacity, name
