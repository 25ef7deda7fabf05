"""Which models may answer this question, under the admin configuration (voiceassist.admin.config).

The configuration picks the routing mode, each route's model id and its fallback; the cost gate takes the cloud
model out when a monthly limit is reached. routing.choose_models still decides the PHI rule on what is left,
so no configuration can put a model outside the boundary into the plan of a question with PHI.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from voiceassist.admin.config import IN_BOUNDARY_DEFAULT, AdminConfig
from voiceassist.admin.ledger import BillingEvent
from voiceassist.models import RoutingMode
from voiceassist.observability import log_failure
from voiceassist.ports import ChatModel
from voiceassist.query import routing
from voiceassist.query.state import QueryContext, QueryState, run_config

EXTRACTIVE_NAME = "the extractive composer (quoted excerpts)"


@dataclass(frozen=True)
class ConfiguredModels:
    cloud: ChatModel | None
    local: ChatModel | None
    capped: str | None = None  # the cost gate's warning when it took the cloud model out


def configured_models(ctx: QueryContext, state: QueryState, config: AdminConfig, *, phi_detected: bool
                      ) -> ConfiguredModels:
    """The two models under their configured ids; the cloud one only while the cost limits allow it (asked only
    when this question could reach it: not in local-only mode, nor with PHI in hybrid mode)."""
    cloud = configured_model(ctx.cloud_chat, config.models.cloud.model)
    local = configured_model(ctx.local_chat, config.models.in_boundary.model)
    reachable = config.routing_mode is RoutingMode.CLOUD_ONLY or (
        config.routing_mode is RoutingMode.HYBRID and not phi_detected)
    if cloud is None or cloud.in_boundary or not reachable:
        return ConfiguredModels(cloud, local)
    refusal = ctx.cost_gate(config).cloud_refusal(state.user_id)
    if refusal is None:
        return ConfiguredModels(cloud, local)
    fallback = local if config.models.cloud.fallback == "in_boundary" else None
    name = f"the in-boundary model ({fallback.name})" if fallback is not None else EXTRACTIVE_NAME
    return ConfiguredModels(None, local, capped=refusal.format(fallback=f"{name} answered instead"))


def plan_for(ctx: QueryContext, state: QueryState, phi_detected: bool) -> routing.RoutePlan:
    """routing.choose_models on the configured models, then each route's fallback rule."""
    config = run_config(ctx, state)
    models = configured_models(ctx, state, config, phi_detected=phi_detected)
    plan = routing.choose_models(phi_detected, config.routing_mode, cloud=models.cloud, local=models.local)
    kept = _with_fallbacks(plan.models, config, capped=models.capped is not None)
    warnings = plan.warnings + ((models.capped,) if models.capped else ())
    return replace(plan, models=kept, warnings=warnings)


def capped_warning(ctx: QueryContext, state: QueryState, phi_detected: bool) -> str | None:
    """The cost gate's warning when it keeps the cloud model from this question (None: it does not)."""
    return configured_models(ctx, state, run_config(ctx, state), phi_detected=phi_detected).capped


def record_call(ctx: QueryContext, state: QueryState, generation: routing.Generation) -> None:
    """The call's tokens and cost into the ledger, by the asking principal (never the question's text). A
    ledger that is down does not cost the clinician the answer: the failure is logged."""
    answered = next((a for a in reversed(generation.attempts) if a.ok), None)
    event = BillingEvent(user_id=state.user_id, query_id=state.query_id, model=generation.model,
                         in_boundary=answered.in_boundary if answered else True,
                         prompt_tokens=generation.usage.prompt_tokens,
                         completion_tokens=generation.usage.completion_tokens, cost_usd=generation.usage.cost_usd)
    try:
        ctx.cost_gate(run_config(ctx, state)).record(event)
    except Exception as exc:  # noqa: BLE001 - logged; the answer stands
        log_failure("could not record the model call's cost", exc, model=generation.model)


def configured_model(model: ChatModel | None, name: str) -> ChatModel | None:
    """The model under the configured id (a model name on an OpenAI-compatible server, a SageMaker endpoint name,
    a Bedrock model id: each adapter's `with_model`); IN_BOUNDARY_DEFAULT keeps the deployment's own."""
    rename = getattr(model, "with_model", None)
    if model is None or rename is None or name == IN_BOUNDARY_DEFAULT:
        return model
    renamed: ChatModel = rename(name)
    return renamed


def _with_fallbacks(models: tuple[ChatModel, ...], config: AdminConfig, *, capped: bool
                    ) -> tuple[ChatModel, ...]:
    """Cut a route after its model when its fallback is the extractive composer; a capped cloud route whose
    fallback is the extractive composer keeps no model at all."""
    if capped and config.models.cloud.fallback == "extractive":
        return ()
    if not models:
        return models
    route = config.models.in_boundary if models[0].in_boundary else config.models.cloud
    return models[:1] if route.fallback == "extractive" else models
