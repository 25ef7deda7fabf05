"""The CDK app: one stack set per environment, checked by cdk-nag at synth.

npx aws-cdk@2.1148.x synth -c env=dev        # one environment
npx aws-cdk@2.1148.x synth                   # every environment (env=all)
.venv/bin/python -m infra.app                # the same without the CLI (writes CDK_OUTDIR or cdk.out)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

# jsii warns on every start that Node 20 is past end of life; the CLI pins its own supported runtime.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App, Environment  # noqa: E402 - after the jsii setting above

from infra.config import (  # noqa: E402
    ENVIRONMENT_NAMES,
    REPO_ROOT,
    SourcePaths,
    load_environment,
    load_paths,
)
from infra.custom_resources import bound_custom_resources  # noqa: E402
from infra.nag import apply_nag_packs  # noqa: E402
from infra.stacks.main import MainStack  # noqa: E402
from infra.stacks.models import ModelsStack  # noqa: E402


def selected_environments(value: str | None) -> tuple[str, ...]:
    """`-c env=dev`, `-c env=dev,prod` or `-c env=all` (the default)."""
    if not value or value == "all":
        return ENVIRONMENT_NAMES
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    unknown = sorted(set(names) - set(ENVIRONMENT_NAMES))
    if unknown:
        raise ValueError(
            f"unknown environment(s) {unknown}; choose from {', '.join(ENVIRONMENT_NAMES)} or all"
        )
    return names


def build_app(*, context: Mapping[str, Any] | None = None, outdir: str | None = None) -> App:
    """Build every selected environment's stacks; `context` adds to (and overrides) cdk.json's context."""
    app = App(context={**_cdk_json_context(), **(context or {})}, outdir=outdir)
    full_context = {key: app.node.try_get_context(key) for key in _CONTEXT_KEYS}
    paths = load_paths(full_context)
    for name in selected_environments(full_context.get("env")):
        config = load_environment(full_context, name)
        env = Environment(account=config.account, region=config.region)
        main = MainStack(app, f"VoiceAssist-{name}", config=config, paths=paths, env=env)
        if config.llm.on_sagemaker or config.embedding.enabled:  # Bedrock needs no Models stack
            ModelsStack(app, f"VoiceAssist-{name}-Models", config=config, main=main, env=env)
    bound_custom_resources(app)
    apply_nag_packs(app)
    return app


_CONTEXT_KEYS = ("voiceassist", "env", "account", "region", *SourcePaths.model_fields)


def _cdk_json_context() -> dict[str, Any]:
    """cdk.json's context when running without the CLI (the CLI passes it in CDK_CONTEXT_JSON itself)."""
    if os.environ.get("CDK_CONTEXT_JSON"):
        return {}
    context: dict[str, Any] = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
    return context


def main() -> None:
    build_app().synth()


if __name__ == "__main__":
    main()
