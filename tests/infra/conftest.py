"""Synthesizes every environment once per test run (about half a minute; tests/infra/synth.py) for all infra tests:
a background process starts it when the tests are collected, and every worker reads its cloud assembly
(tests/support/shared_build.py).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from infra.config import ENVIRONMENT_NAMES, EnvironmentConfig, load_environment  # noqa: E402
from tests.infra.synth import build_in, write_fixture_functions  # noqa: E402
from tests.support.shared_build import built_once, run_folder, start_building  # noqa: E402
from voiceassist.constants.functions import FUNCTIONS  # noqa: E402


@dataclass(frozen=True)
class Synthesized:
    outdir: Path
    templates: dict[str, dict[str, Any]]  # stack name -> template

    def main(self, env: str) -> dict[str, Any]:
        return self.templates[f"VoiceAssist-{env}"]

    def models(self, env: str) -> dict[str, Any]:
        return self.templates[f"VoiceAssist-{env}-Models"]

    def stacks(self, env: str) -> list[dict[str, Any]]:
        """The environment's templates: the main stack, and the Models stack where it has one (not on Bedrock)."""
        return [self.templates[name] for name in (f"VoiceAssist-{env}", f"VoiceAssist-{env}-Models")
                if name in self.templates]


def dev_on_sagemaker() -> EnvironmentConfig:
    """dev with staging's SageMaker llm block (dev itself is on Bedrock, decision 0016): for the ops tests of
    the Models stack, its weights and its GPU quota."""
    context = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
    environments = context["voiceassist"]["environments"]
    environments["dev"]["llm"] = environments["staging"]["llm"]
    return load_environment(context, "dev")


def resources(template: dict[str, Any], resource_type: str) -> dict[str, dict[str, Any]]:
    return {
        logical_id: resource["Properties"]
        for logical_id, resource in template["Resources"].items()
        if resource["Type"] == resource_type
    }


def allowed_targets(statement: dict[str, Any]) -> list[Any]:
    """The resources a policy statement allows: its Resource (one or a list) when it allows; none for a Deny, or
    for a statement that names NotResource (the web deployment's Deny on every other distribution)."""
    if statement.get("Effect") != "Allow" or "Resource" not in statement:
        return []
    return statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]


def app_functions(synthesized: Synthesized, env: str) -> dict[str, dict[str, Any]]:
    """Catalogue name -> function properties (the description is the catalogue's)."""
    by_description = {spec.description: spec.name for spec in FUNCTIONS}
    functions = resources(synthesized.main(env), "AWS::Lambda::Function")
    return {
        by_description[p["Description"]]: p
        for p in functions.values()
        if isinstance(p.get("Description"), str) and p["Description"] in by_description
    }


def pytest_collection_finish(session: pytest.Session) -> None:
    """The synthesis starts in the background as soon as the tests are collected, when any of them needs it: the
    workers run other tests meanwhile instead of waiting for it (tests/support/shared_build.py). Not for
    `--collect-only`, which runs no test."""
    if session.config.option.collectonly:
        return
    if any("synthesized" in getattr(item, "fixturenames", ()) for item in session.items):
        start_building(session.config._tmp_path_factory, "synthesized", "tests.infra.synth")  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def fixture_functions_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_once(tmp_path_factory, "functions", write_fixture_functions)


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    outdir = build_in(run_folder(tmp_path_factory)) / "cdk.out"
    templates = {
        path.name.removesuffix(".template.json"): json.loads(path.read_text())
        for path in outdir.glob("*.template.json")
    }
    assert {f"VoiceAssist-{env}" for env in ENVIRONMENT_NAMES} <= templates.keys()
    return Synthesized(outdir=outdir, templates=templates)
