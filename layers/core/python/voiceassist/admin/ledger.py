"""What the cost ledger stores: one BillingEvent per model call, the Spend of a month (all users, a user, a
day), and the CostAlerts raised. A user is the authenticated principal's id; no event holds question text."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from voiceassist.models import Model, new_id, utc_now

OVERALL = "overall"  # the scope of the limit on all users together; a user's scope is "user:<id>"


def month_of(moment: datetime) -> str:
    return moment.strftime("%Y-%m")


def day_of(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def user_scope(user_id: str) -> str:
    return f"user:{user_id}"


class BillingEvent(Model):
    event_id: str = Field(default_factory=lambda: new_id("bil"))
    user_id: str  # the authenticated principal (Cognito sub, or the local user): never PHI
    at: datetime = Field(default_factory=utc_now)
    query_id: str | None = None
    model: str
    in_boundary: bool
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    cost_usd: float = Field(ge=0)

    @property
    def day(self) -> str:
        return day_of(self.at)

    @property
    def month(self) -> str:
        return month_of(self.at)


class Spend(Model):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class CostAlert(Model):
    month: str
    scope: str  # OVERALL or user:<id>
    threshold: float  # the share of the limit reached: the alert share (0.8) or 1.0 (cloud calls stopped)
    spent_usd: float
    limit_usd: float
    at: datetime = Field(default_factory=utc_now)
