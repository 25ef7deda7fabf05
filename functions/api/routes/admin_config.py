"""The admin configuration and the cost ledger: admin role only (403 otherwise, audited).

GET /admin/config is the version in force; PUT replaces it, PATCH merges a JSON merge patch (RFC 7396) into it;
either saves a new version (validated: 400 for a malformed field, 422 for a configuration the PHI boundary or
this deployment refuses, each naming the field) and audits it. GET /admin/config/history lists the versions.
GET /admin/billing is a month's spend (all users, each user, the caller's chosen user per day) and its alerts.
"""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from pydantic import BaseModel, Field

from routes.identity import admin
from voiceassist.admin.config import AdminConfig, ConfigVersion, CostLimits, Deployment, in_boundary_choice
from voiceassist.admin.ledger import CostAlert, Spend, month_of
from voiceassist.composition import dependencies
from voiceassist.models import utc_now
from voiceassist.settings import PhiMode

router = Router()
MONTH = r"^\d{4}-(0[1-9]|1[0-2])$"
# A merge patch names AdminConfig's top-level fields and no other (the store refuses any other, 422); each value
# is a partial object, a replacement or null, which one schema per field cannot say, so any value is allowed.
MERGE_PATCH_SCHEMA: dict[str, Any] = {"properties": {name: {} for name in AdminConfig.model_fields},
                                      "additionalProperties": False}


class ConfigHistory(BaseModel):
    versions: list[ConfigVersion]


class BillingReport(BaseModel):
    month: str
    limits: CostLimits
    overall: Spend
    users: dict[str, Spend] = Field(description="by user id (the authenticated principal)")
    days: dict[str, Spend] = Field(default_factory=dict, description="the requested user's spend per day")
    alerts: list[CostAlert]


def _deployment() -> Deployment:
    deps = dependencies()
    return Deployment(known_tools=[d.name for d in deps.tool_registry.definitions()],
                      in_boundary=in_boundary_choice(deps.settings), cloud_model=deps.settings.openai_model,
                      phi_detection_off=deps.settings.phi_mode is PhiMode.OFF)


@router.get("/admin/config", summary="The admin configuration in force (admin only)")
def get_config() -> ConfigVersion:
    admin(router, "config.read")
    return dependencies().config_store.current()


@router.put("/admin/config", summary="Replace the admin configuration with a new version (admin only)")
def put_config(body: AdminConfig) -> ConfigVersion:
    who = admin(router, "config.update")
    deps = dependencies()
    return deps.config_store.replace(body.model_dump(mode="json"), who, deps.audit, deployment=_deployment())


@router.patch("/admin/config", summary="Change fields of the admin configuration: a JSON merge patch (admin only)")
def patch_config(body: Annotated[dict[str, Any], Body(
        description="RFC 7396: the fields to change, e.g. {\"routing_mode\": \"local-only\"}",
        json_schema_extra=MERGE_PATCH_SCHEMA)]) -> ConfigVersion:
    who = admin(router, "config.update")
    deps = dependencies()
    return deps.config_store.patch(body, who, deps.audit, deployment=_deployment())


@router.get("/admin/config/history", summary="Every version of the admin configuration, newest first (admin only)")
def config_history(limit: Annotated[int, Query(ge=1, le=100)] = 50) -> ConfigHistory:
    admin(router, "config.history")
    return ConfigHistory(versions=dependencies().config_store.history(limit=limit))


@router.get("/admin/billing", summary="A month's model spend per user and per day, and its cost alerts (admin only)")
def billing(month: Annotated[str | None, Query(pattern=MONTH, description="YYYY-MM; this month if absent")] = None,
            user_id: Annotated[str | None, Query(max_length=200, description="a user to list per day")] = None
            ) -> BillingReport:
    admin(router, "billing.read")
    deps = dependencies()
    month = month or month_of(utc_now())
    ledger = deps.billing
    return BillingReport(month=month, limits=deps.admin_config.cost, overall=ledger.spend(month),
                         users=ledger.users(month), alerts=ledger.alerts(month),
                         days=ledger.days(month, user_id=user_id) if user_id else {})
