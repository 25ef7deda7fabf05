"""Cost you can cap: every model call is a BillingEvent in the ledger; before a cloud-model call the month's
spend is compared with the admin configuration's limits (all users, and the caller's own).

At `alert_at` of a limit (0.8 by default) the operators are alerted once a month per scope; at the limit the
cloud model is not called: the question falls back down the cloud route (the in-boundary model or the
extractive composer) and `metadata.warnings` says why. Self-hosted models cost 0 here (instance hours are not
per call), so only the cloud route is ever capped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from voiceassist.admin.config import CostLimits
from voiceassist.admin.ledger import OVERALL, BillingEvent, CostAlert, month_of, user_scope
from voiceassist.models import ChatCompletion, utc_now
from voiceassist.observability import log_failure
from voiceassist.ports import AlertPublisher, BillingLedger, ChatModel

USER_LIMIT_WARNING = ("Your monthly cloud-model budget (${limit:.2f}) is used up, so the cloud model was not "
                      "called; {fallback}.")
OVERALL_LIMIT_WARNING = ("The deployment's monthly cloud-model budget (${limit:.2f}) is used up, so the cloud "
                         "model was not called; {fallback}.")
LEDGER_DOWN_WARNING = ("The cloud-model budget could not be checked (the cost ledger did not answer), so the cloud "
                       "model was not called; {fallback}.")


@dataclass(frozen=True)
class CostGate:
    ledger: BillingLedger
    alerts: AlertPublisher
    limits: CostLimits

    def cloud_refusal(self, user_id: str, *, now: datetime | None = None) -> str | None:
        """None when the cloud model may be called; else the warning (with `{fallback}` to fill in: what answered
        instead). Reaching a limit raises its 100 % alert, once a month."""
        month = month_of(now or utc_now())
        for scope, limit, warning in self._scopes(user_id):
            spent = self.ledger.spend(month, user_id=None if scope == OVERALL else user_id).cost_usd
            if spent >= limit:
                self._alert(CostAlert(month=month, scope=scope, threshold=1.0, spent_usd=spent, limit_usd=limit))
                return warning.format(limit=limit, fallback="{fallback}")
        return None

    def record(self, event: BillingEvent) -> None:
        """Add the call to the ledger, then raise each threshold it crossed (at most once a month each)."""
        self.ledger.record(event)
        if event.cost_usd <= 0:
            return
        for scope, limit, _warning in self._scopes(event.user_id):
            spent = self.ledger.spend(event.month, user_id=None if scope == OVERALL else event.user_id).cost_usd
            for threshold in (self.limits.alert_at, 1.0):
                if spent >= threshold * limit:
                    self._alert(CostAlert(month=event.month, scope=scope, threshold=threshold, spent_usd=spent,
                                          limit_usd=limit))

    def _scopes(self, user_id: str) -> list[tuple[str, float, str]]:
        scopes = []
        if self.limits.per_user_monthly_limit_usd is not None:
            scopes.append((user_scope(user_id), self.limits.per_user_monthly_limit_usd, USER_LIMIT_WARNING))
        if self.limits.monthly_limit_usd is not None:
            scopes.append((OVERALL, self.limits.monthly_limit_usd, OVERALL_LIMIT_WARNING))
        return scopes

    def _alert(self, alert: CostAlert) -> None:
        if not self.ledger.claim_alert(alert):
            return
        share = "reached" if alert.threshold >= 1 else f"{alert.threshold:.0%} of"
        subject = f"VoiceAssist cost: {alert.scope} {share} its monthly limit"
        message = (f"{alert.scope} has spent ${alert.spent_usd:.4f} of its ${alert.limit_usd:.2f} monthly "
                   f"cloud-model limit in {alert.month}."
                   + (" Cloud-model calls are stopped until the month ends or the limit is raised."
                      if alert.threshold >= 1 else ""))
        try:
            self.alerts.publish(subject, message)
        except Exception as exc:  # noqa: BLE001 - the ledger keeps the alert (the admin page shows it)
            log_failure("could not publish the cost alert", exc, scope=alert.scope)


@dataclass(frozen=True)
class Metering:
    """One principal's model calls outside the answer path (the session summary, the differential-diagnosis tool):
    each call billed into the ledger like an answer's (query/model_plan.record_call), and a model outside the
    boundary not called at a cost limit, as the answer path's cloud route is not."""

    gate: CostGate
    user_id: str  # the authenticated principal: never PHI
    query_id: str | None = None

    def refusal(self, model: ChatModel) -> str | None:
        """Why `model` may not be called now (a cloud model at a limit; a ledger that cannot be read keeps the call
        inside the boundary too); None: it may. The text has `{fallback}` to fill in, as cloud_refusal's."""
        if model.in_boundary:
            return None
        try:
            return self.gate.cloud_refusal(self.user_id)
        except Exception as exc:  # noqa: BLE001 - unknown spend: no cloud call (fail closed)
            log_failure("could not read the month's spend; the cloud model is not called", exc)
            return LEDGER_DOWN_WARNING

    def record(self, model: ChatModel, completion: ChatCompletion) -> None:
        """The call's tokens and cost, by the principal and the model (never the text). A ledger that is down
        costs the caller nothing: the failure is logged."""
        event = BillingEvent(user_id=self.user_id, query_id=self.query_id, model=completion.model or model.name,
                             in_boundary=model.in_boundary, prompt_tokens=completion.usage.prompt_tokens,
                             completion_tokens=completion.usage.completion_tokens,
                             cost_usd=completion.usage.cost_usd)
        try:
            self.gate.record(event)
        except Exception as exc:  # noqa: BLE001 - logged; the caller's result stands
            log_failure("could not record the model call's cost", exc, model=event.model)
