"""The question's metrics, read off the finished QueryState at the audit step: nothing is timed twice.

Stages are QueryState.latency_ms as the steps measured them; the status is the response's; tokens and cost are
the usage the response reports, under the model that answered. Names and dimensions: constants.metrics.
"""

from __future__ import annotations

import re

from voiceassist.constants import metrics as names
from voiceassist.models import AnswerStatus
from voiceassist.query.state import QueryState, status_of
from voiceassist.telemetry.points import MetricPoint, closed, user_key

# a stage is a step's own name (detect_phi, search_<source>, generate_<tier>): code, not input; the pattern
# keeps the dimension safe even so
_STAGE = re.compile(r"[a-z][a-z0-9_]{0,47}")
_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,79}")  # a configured model id
_STATUSES = frozenset(status.value for status in AnswerStatus)


def question_points(state: QueryState) -> list[MetricPoint]:
    """Every metric one question contributes."""
    points = [MetricPoint(names.STAGE_LATENCY, ms, {"stage": stage if _STAGE.fullmatch(stage) else names.UNKNOWN})
              for stage, ms in state.latency_ms.items()]
    points.append(MetricPoint(names.QUESTION_LATENCY, round(sum(state.latency_ms.values()), 3)))
    points.append(MetricPoint(names.QUESTIONS, 1, {"status": closed(status_of(state).value, _STATUSES)}))
    points.append(MetricPoint(names.PHI_ROUTING, 1, {"phi": "detected" if state.phi_detected else "none",
                                                     "route": _route(state)}))
    points.extend(MetricPoint(names.INPUT_SCREEN_BLOCKS, 1, {"category": closed(category, names.SCREEN_CATEGORIES)})
                  for category in state.screen_categories[:1])
    points.extend(MetricPoint(names.GROUNDING_BLOCKS, 1, {"action": closed(c.action, ("retried", "abstained"))})
                  for c in state.critiques if not c.passed)
    if state.model and (state.usage.prompt_tokens or state.usage.completion_tokens or state.usage.cost_usd):
        model = state.model if _MODEL.fullmatch(state.model) else names.UNKNOWN
        user = user_key(state.user_id)
        points += [
            MetricPoint(names.MODEL_TOKENS, state.usage.prompt_tokens, {"model": model, "kind": "prompt"}, user),
            MetricPoint(names.MODEL_TOKENS, state.usage.completion_tokens, {"model": model, "kind": "completion"},
                        user),
            MetricPoint(names.MODEL_COST, state.usage.cost_usd, {"model": model}, user),
        ]
    return points


def _route(state: QueryState) -> str:
    """Where the answer was made: in the boundary, in the cloud, or by no model (extractive, refused, clarified)."""
    if state.model_in_boundary is None or state.extractive:
        return "none"
    return "in_boundary" if state.model_in_boundary else "cloud"

