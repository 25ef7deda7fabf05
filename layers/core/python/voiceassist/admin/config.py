"""The admin configuration: what an operator may change while the system runs, as data.

Its defaults come from Settings (the environment and cdk.json), so a deployment whose admin never edits it
behaves exactly as configured at deploy time. A version is validated twice: its shape by pydantic (400, the
field named), and the PHI boundary by `boundary_problems` (422, the field named): no configuration may route a
question with PHI outside the boundary.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import Field, ValidationError

from voiceassist.adapters.openai.pricing import PRICES_PER_1K
from voiceassist.errors import NOT_ISSUED, InvalidInput, field_path, quoted_id
from voiceassist.models import MAX_SOURCES, Model, RoutingMode, SourceName, SourcePreferences, utc_now
from voiceassist.settings import InBoundaryProvider, PhiMode, Settings

# A route's model answers first; its fallback is tried when it fails (then the extractive composer, always).
Fallback = Literal["in_boundary", "cloud", "extractive"]
IN_BOUNDARY_DEFAULT = "deployment"  # the in-boundary model the deployment configured (SageMaker, Bedrock, ...)
InBoundaryKind = Literal["server", "sagemaker", "bedrock"]  # an OpenAI-compatible server, or an AWS service
# What each AWS service takes as the model's id: SageMaker's EndpointName pattern (its API reference); Bedrock
# model and system inference profile ids (infra/config.py BedrockModelConfig.model_id, the same shape).
ID_SHAPES: dict[str, tuple[re.Pattern[str], str]] = {
    "sagemaker": (re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"), "a SageMaker endpoint name"),
    "bedrock": (re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?$"), "a Bedrock model id"),
}

# The cloud model's id is sent to OpenAI as the model: one of the families the cost limits can price
# (adapters/openai/pricing.py; an unpriced model would cost $0 and never reach a limit), exactly or as its dated
# snapshot ("gpt-4o-2024-08-06", "gpt-3.5-turbo-0125": OpenAI's model ids), or the deployment's own
# (VOICEASSIST_OPENAI_MODEL). Anything else is refused without being quoted: free text there may be PHI.
CLOUD_MODEL_ID = re.compile(r"^(?:" + "|".join(re.escape(m) for m in sorted(PRICES_PER_1K, key=len, reverse=True))
                            + r")(?:-\d{4}-\d{2}-\d{2}|-\d{4})?$")


class ModelRoute(Model):
    model: str = Field(min_length=1, max_length=200, description="the model id on this route's provider")
    fallback: Fallback = Field(description="what answers when this route's model fails")


class ModelRoutes(Model):
    cloud: ModelRoute = Field(description="questions without PHI (OpenAI)")
    in_boundary: ModelRoute = Field(description="questions with PHI, and every question in local-only mode")


class ToolPolicy(Model):
    enabled: bool = True
    rate_limit: int | None = Field(default=None, ge=1, le=10_000,
                                   description="calls per user per minute; null: the tool's own default")


class CostLimits(Model):
    # finite amounts only: 1e309 parses as an infinite float, and a stored Infinity is not JSON (RFC 8259)
    monthly_limit_usd: float | None = Field(default=None, ge=0, allow_inf_nan=False,
                                            description="all users together; null: none")
    per_user_monthly_limit_usd: float | None = Field(default=None, ge=0, allow_inf_nan=False,
                                                     description="each user; null: none")
    alert_at: float = Field(default=0.8, gt=0, lt=1, allow_inf_nan=False,
                            description="share of a limit that alerts the admin")


class SourcePolicy(Model):
    """The deployment's source preferences; a request's own come first (voiceassist.admin.config.merged)."""

    prioritize: list[SourceName] = Field(default_factory=list, max_length=MAX_SOURCES)
    exclude: list[SourceName] = Field(default_factory=list)


class AdminConfig(Model):
    routing_mode: RoutingMode
    phi_mode: PhiMode
    offer_tools: bool = Field(description="offer tools to a model that takes tool calls")
    models: ModelRoutes
    sources: SourcePolicy = Field(default_factory=SourcePolicy)
    tools: dict[str, ToolPolicy] = Field(default_factory=dict, description="by tool name; absent: defaults")
    cost: CostLimits = Field(default_factory=CostLimits)

    def tool(self, name: str) -> ToolPolicy:
        return self.tools.get(name) or ToolPolicy()


class ConfigVersion(Model):
    """One stored version: the configuration, who changed it, when, and which fields changed."""

    version: int = Field(ge=0, description="0: the defaults from the deployment's settings, never edited")
    config: AdminConfig
    updated_by: str | None = None  # the admin's principal id (never PHI)
    updated_at: datetime = Field(default_factory=utc_now)
    changed: list[str] = Field(default_factory=list, description="dotted paths of the fields that changed")


class InvalidConfiguration(InvalidInput):
    """A configuration that is well formed but not allowed (422); `details` names each field."""

    status_code = 422
    code = "invalid_configuration"

    def __init__(self, details: list[dict[str, str]]) -> None:
        super().__init__("; ".join(f"{d['field']}: {d['problem']}" for d in details))
        self.details = details


@dataclass(frozen=True)
class InBoundaryChoice:
    """The deployment's in-boundary model: its provider (None: there is none), its own id, and the ids an admin may
    choose (None: any model name, an OpenAI-compatible server's)."""

    provider: InBoundaryKind | None
    model: str | None
    choices: tuple[str, ...] | None


def in_boundary_choice(settings: Settings) -> InBoundaryChoice:
    """Which in-boundary model the deployment runs, and which ids the admin configuration may switch it to: any
    model name on an OpenAI-compatible server; on SageMaker and Bedrock the deployment's own endpoint or model and
    its listed alternates (VOICEASSIST_IN_BOUNDARY_ALTERNATES: only those are granted to the functions)."""
    alternates = [a.strip() for a in settings.in_boundary_alternates.split(",") if a.strip()]
    if settings.in_boundary_provider is InBoundaryProvider.BEDROCK and settings.bedrock_model_id:
        own = settings.bedrock_model_id
        return InBoundaryChoice("bedrock", own, tuple(dict.fromkeys([own, *alternates])))
    if settings.sagemaker_endpoint:
        own = settings.sagemaker_endpoint
        return InBoundaryChoice("sagemaker", own, tuple(dict.fromkeys([own, *alternates])))
    if settings.local_chat_base_url:
        return InBoundaryChoice("server", settings.local_chat_model, None)
    return InBoundaryChoice(None, None, ())


def defaults_from(settings: Settings) -> AdminConfig:
    """The configuration the deployment's settings describe (version 0)."""
    choice = in_boundary_choice(settings)
    in_boundary = choice.model if choice.provider == "server" and choice.model else IN_BOUNDARY_DEFAULT
    return AdminConfig(
        routing_mode=settings.routing_mode, phi_mode=settings.phi_mode, offer_tools=settings.offer_tools,
        models=ModelRoutes(cloud=ModelRoute(model=settings.openai_model, fallback="in_boundary"),
                           in_boundary=ModelRoute(model=in_boundary, fallback="extractive")))


@dataclass(frozen=True)
class Deployment:
    """What a configuration is checked against: the tools that exist, which in-boundary models an admin may choose
    (in_boundary_choice: any name on an OpenAI-compatible server; on SageMaker or Bedrock the deployment's own and
    its granted alternates), and whether the deployment itself turned PHI detection off (only then may a
    configuration keep it off)."""

    known_tools: Collection[str] | None = None
    cloud_model: str | None = None  # the deployment's own cloud model (VOICEASSIST_OPENAI_MODEL), always choosable
    in_boundary: InBoundaryChoice = InBoundaryChoice("server", None, None)
    phi_detection_off: bool = False  # the deployment itself runs without PHI detection (VOICEASSIST_PHI_MODE=off)


ANY_DEPLOYMENT = Deployment()  # no deployment facts: only the PHI boundary and the shapes are checked


def in_boundary_problem(model: str, choice: InBoundaryChoice) -> str | None:
    """Why `model` cannot be the in-boundary route's model id in this deployment (None: it can)."""
    if model == IN_BOUNDARY_DEFAULT or (choice.provider is not None and choice.choices is None):
        return None
    if choice.provider is None:
        return f"this deployment has no in-boundary model to switch; keep {IN_BOUNDARY_DEFAULT!r}"
    shape, what = ID_SHAPES[choice.provider]
    if not shape.match(model):
        return f"{model!r} is not {what}"
    if model not in (choice.choices or ()):
        return (f"{model!r} is not one of this deployment's in-boundary models ({', '.join(choice.choices or ())}, "
                f"or {IN_BOUNDARY_DEFAULT!r}); another needs granting first (cdk.json llm.alternates)")
    return None


def cloud_model_problem(model: str, deployment: Deployment) -> str | None:
    """Why `model` cannot be the cloud route's model id (None: it can); never quotes it."""
    if model == deployment.cloud_model or CLOUD_MODEL_ID.match(model):
        return None
    own = f" or this deployment's own ({deployment.cloud_model})" if deployment.cloud_model else ""
    return (f"not an OpenAI model this deployment can price: use one of {', '.join(PRICES_PER_1K)}, optionally with "
            f"its dated snapshot (gpt-4o-2024-08-06){own}")


def boundary_problems(config: AdminConfig, deployment: Deployment = ANY_DEPLOYMENT) -> list[dict[str, str]]:
    """What makes a configuration unsafe or meaningless, field by field (empty: none)."""
    problems: list[dict[str, str]] = []
    known_tools = deployment.known_tools
    if problem := cloud_model_problem(config.models.cloud.model, deployment):
        problems.append({"field": "models.cloud.model", "problem": problem})
    if problem := in_boundary_problem(config.models.in_boundary.model, deployment.in_boundary):
        problems.append({"field": "models.in_boundary.model", "problem": problem})
    if config.models.in_boundary.fallback == "cloud":
        problems.append({"field": "models.in_boundary.fallback", "problem": (
            "the in-boundary route answers questions with PHI, so its fallback cannot be the cloud model; use "
            "extractive")})
    if config.phi_mode is PhiMode.OFF and not deployment.phi_detection_off:
        problems.append({"field": "phi_mode", "problem": (
            "off detects no PHI, so raw PHI would reach the audit log, the sessions and any model or source; only "
            "the deployment can turn detection off (VOICEASSIST_PHI_MODE): use strict or lenient")})
    elif config.phi_mode is PhiMode.OFF and config.routing_mode is not RoutingMode.LOCAL_ONLY:
        problems.append({"field": "phi_mode", "problem": (
            f"off detects no PHI, so {config.routing_mode.value} routing would send PHI to the cloud model and "
            "outside sources; set routing_mode to local-only, or phi_mode to strict or lenient")})
    both = sorted(set(config.sources.prioritize) & set(config.sources.exclude))
    if both:
        problems.append({"field": "sources", "problem": f"{', '.join(both)} is both prioritized and excluded"})
    if set(config.sources.exclude) >= set(SourceName):
        problems.append({"field": "sources.exclude", "problem": "every source is excluded; keep at least one"})
    if known_tools is not None:
        for name in sorted(set(config.tools) - set(known_tools)):  # free text there (a name) is never quoted
            shaped = quoted_id(name) != NOT_ISSUED
            problems.append({"field": f"tools.{name}" if shaped else "tools", "problem": (
                f"no tool {f'named {name!r}' if shaped else 'of that name'}; known: {', '.join(sorted(known_tools))}")})
    return problems


def validated(document: dict[str, Any], deployment: Deployment = ANY_DEPLOYMENT) -> AdminConfig:
    """A configuration from a JSON document: 422 naming every field that is wrong (shape or boundary)."""
    try:
        config = AdminConfig.model_validate(document)
    except ValidationError as exc:
        raise InvalidConfiguration([{"field": field_path(err["loc"]) or "body",
                                     "problem": err["msg"]} for err in exc.errors()]) from exc
    problems = boundary_problems(config, deployment)
    if problems:
        raise InvalidConfiguration(problems)
    return config


def merge_patch(current: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """RFC 7396 JSON merge patch: objects merge key by key, null removes, anything else replaces."""
    merged = dict(current)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_patch(merged[key], value)
        else:
            merged[key] = value
    return merged


def removed_fields(patch: dict[str, Any], prefix: str = "") -> set[str]:
    """The dotted paths a merge patch sets to null (removes)."""
    removed: set[str] = set()
    for key, value in patch.items():
        if value is None:
            removed.add(f"{prefix}{key}")
        elif isinstance(value, dict):
            removed |= removed_fields(value, f"{prefix}{key}.")
    return removed


def explain_removals(exc: InvalidConfiguration, patch: dict[str, Any]) -> InvalidConfiguration:
    """The refusal of a patched configuration, a required field the patch nulled said as such (RFC 7396: null
    removes a member; pydantic's 'Field required' named a field the admin had just sent)."""
    removed = removed_fields(patch)
    if not removed:
        return exc
    details = [{**d, "problem": "null removes it (RFC 7396 merge patch) and the configuration needs it: send a value"}
               if d["field"] in removed and d["problem"] == "Field required" else d for d in exc.details]
    return InvalidConfiguration(details)


def changed_fields(before: Any, after: Any, prefix: str = "") -> list[str]:
    """Dotted paths where two JSON documents differ (the audit record's and the history's summary)."""
    if isinstance(before, dict) and isinstance(after, dict):
        paths: list[str] = []
        for key in sorted(set(before) | set(after)):
            paths += changed_fields(before.get(key), after.get(key), f"{prefix}{key}.")
        return paths
    return [] if before == after else [prefix.rstrip(".")]


def merged_sources(config: AdminConfig, request: SourcePreferences) -> SourcePreferences:
    """The request's preferences first, then the deployment's: a clinician's explicit choice wins."""
    prioritize = [*request.prioritize,
                  *(s for s in config.sources.prioritize if s not in request.prioritize and s not in request.exclude)]
    exclude = [*request.exclude, *(s for s in config.sources.exclude if s not in prioritize and s not in
                                   request.exclude)]
    if set(exclude) >= set(SourceName):  # together they exclude everything: the request's own choice stands
        exclude = list(request.exclude)
    return SourcePreferences(prioritize=prioritize[:MAX_SOURCES], exclude=exclude)
