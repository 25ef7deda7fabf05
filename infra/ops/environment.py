"""One environment as the operator commands see it: its validated config and its stacks' names and outputs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from infra.config import REPO_ROOT, EnvironmentConfig, load_environment
from infra.ops.shell import CommandFailed, Shell


def load(name: str) -> EnvironmentConfig:
    context = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
    return load_environment(context, name)


@dataclass(frozen=True)
class Stacks:
    config: EnvironmentConfig

    @property
    def main(self) -> str:
        return f"VoiceAssist-{self.config.name}"

    @property
    def models(self) -> str:
        return f"VoiceAssist-{self.config.name}-Models"

    @property
    def has_models(self) -> bool:
        return self.config.llm.on_sagemaker or self.config.embedding.enabled


def stack_outputs(shell: Shell, stack: str) -> dict[str, str] | None:
    """The stack's outputs by key (CfnOutput ids), or None when the stack does not exist."""
    try:
        described: Any = shell.aws("cloudformation", "describe-stacks", "--stack-name", stack)
    except CommandFailed as failure:
        if "does not exist" in failure.output:
            return None
        raise
    outputs = described["Stacks"][0].get("Outputs", [])
    return {output["OutputKey"]: output["OutputValue"] for output in outputs}
