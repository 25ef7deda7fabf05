"""The operator's view of the metrics: the last hour, day and month (`GET /v1/admin/telemetry`, report.py) and the
Prometheus text exposition (`GET /metrics` on the local server). Both read a MetricReader's aggregates, so they
show the names of constants.metrics and nothing else: closed-set dimensions and hashed user keys, no text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from voiceassist.constants import metrics as names
from voiceassist.models import utc_now
from voiceassist.ports import MetricReader
from voiceassist.telemetry.points import MetricAggregate

WINDOWS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "month": timedelta(days=30)}
PROMETHEUS_PREFIX = "voiceassist_"


class StageFigures(BaseModel):
    stage: str
    count: int
    p50_ms: float | None
    p95_ms: float | None
    budget_ms: float | None = Field(description="the p95 the StageP95 alarm allows (constants.metrics)")


class ToolFigures(BaseModel):
    tool: str
    calls: dict[str, int] = Field(description="calls by outcome: ok, pending_confirmation, confirmed, refused, "
                                              "rate_limited, timeout, error")
    p50_ms: float | None = None
    p95_ms: float | None = None


class ModelFigures(BaseModel):
    model: str | None = Field(default=None, description="the model id (models); absent in users")
    user: str | None = Field(default=None, description="a hashed user key (users): never the user's id")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class IngestionFigures(BaseModel):
    completed: int = 0
    failed: int = 0
    chunks: int = 0
    failures: dict[str, int] = Field(default_factory=dict, description="failed jobs by the stage's error class")
    p50_ms: float | None = None
    p95_ms: float | None = None


class TelemetryWindow(BaseModel):
    window: str
    since: datetime
    questions: dict[str, int] = Field(description="questions by answer status")
    question_p50_ms: float | None = None
    question_p95_ms: float | None = None
    stages: list[StageFigures]
    phi_routing: dict[str, int] = Field(description="questions by '<phi>/<route>': detected|none / "
                                                    "in_boundary|cloud|none")
    input_screen_blocks: dict[str, int]
    grounding_blocks: dict[str, int]
    tools: list[ToolFigures]
    models: list[ModelFigures]
    users: list[ModelFigures]
    ingestion: IngestionFigures


class TelemetryReport(BaseModel):
    generated_at: datetime
    windows: list[TelemetryWindow]


def telemetry_report(reader: MetricReader, *, now: datetime | None = None) -> TelemetryReport:
    now = now or utc_now()
    windows = []
    for label, span in WINDOWS.items():
        since = now - span
        windows.append(window_of(label, since, reader.aggregate(since=since, until=now),
                                 reader.aggregate(since=since, until=now, by_user=True)))
    return TelemetryReport(generated_at=now, windows=windows)


def window_of(label: str, since: datetime, series: Sequence[MetricAggregate],
              by_user: Sequence[MetricAggregate] = ()) -> TelemetryWindow:
    def of(name: str) -> list[MetricAggregate]:
        return [a for a in series if a.name == name]

    def counts(name: str, key: str) -> dict[str, int]:
        return {a.dimensions[key]: int(a.total) for a in of(name)}

    question = next(iter(of(names.QUESTION_LATENCY)), None)
    stages = [StageFigures(stage=a.dimensions["stage"], count=a.count, p50_ms=a.p50, p95_ms=a.p95,
                           budget_ms=names.STAGE_BUDGETS_MS.get(a.dimensions["stage"]))
              for a in of(names.STAGE_LATENCY)]
    tools: dict[str, ToolFigures] = {}
    for a in of(names.TOOL_CALLS):
        tools.setdefault(a.dimensions["tool"], ToolFigures(tool=a.dimensions["tool"], calls={})).calls[
            a.dimensions["outcome"]] = int(a.total)
    for a in of(names.TOOL_LATENCY):
        figures = tools.setdefault(a.dimensions["tool"], ToolFigures(tool=a.dimensions["tool"], calls={}))
        figures.p50_ms, figures.p95_ms = a.p50, a.p95
    duration = next(iter(of(names.INGESTION_DURATION)), None)
    jobs = counts(names.INGESTION_JOBS, "outcome")
    return TelemetryWindow(
        window=label, since=since, questions=counts(names.QUESTIONS, "status"),
        question_p50_ms=question.p50 if question else None, question_p95_ms=question.p95 if question else None,
        stages=sorted(stages, key=lambda s: s.stage),
        phi_routing={f"{a.dimensions['phi']}/{a.dimensions['route']}": int(a.total) for a in of(names.PHI_ROUTING)},
        input_screen_blocks=counts(names.INPUT_SCREEN_BLOCKS, "category"),
        grounding_blocks=counts(names.GROUNDING_BLOCKS, "action"),
        tools=sorted(tools.values(), key=lambda t: t.tool),
        models=_spend(series, "model"), users=_spend([a for a in by_user if a.user], "user"),
        ingestion=IngestionFigures(
            completed=jobs.get("completed", 0), failed=jobs.get("failed", 0),
            chunks=int(sum(a.total for a in of(names.INGESTION_CHUNKS))),
            failures=counts(names.INGESTION_FAILURES, "reason"),
            p50_ms=duration.p50 if duration else None, p95_ms=duration.p95 if duration else None),
    )


def _spend(series: Iterable[MetricAggregate], key: str) -> list[ModelFigures]:
    """Tokens and cost by model, or by hashed user key (points that carry one)."""
    spend: dict[str, ModelFigures] = {}
    for a in series:
        if a.name not in (names.MODEL_TOKENS, names.MODEL_COST):
            continue
        owner = a.user if key == "user" else a.dimensions["model"]
        if owner is None:
            continue
        figures = spend.setdefault(owner, ModelFigures(user=owner) if key == "user" else ModelFigures(model=owner))
        if a.name == names.MODEL_COST:
            figures.cost_usd = round(figures.cost_usd + a.total, 6)
        elif a.dimensions["kind"] == "prompt":
            figures.prompt_tokens += int(a.total)
        else:
            figures.completion_tokens += int(a.total)
    return [spend[owner] for owner in sorted(spend)]


# ---- Prometheus text exposition format 0.0.4 ------------------------------------------------------------------

def prometheus_text(series: Sequence[MetricAggregate]) -> str:
    """Counts as `<name>_total` counters, distributions as summaries (quantile 0.5 and 0.95, _sum, _count),
    every name snake_cased under `voiceassist_`, dimensions as labels."""
    lines: list[str] = []
    for name in sorted({a.name for a in series}):
        members = [a for a in series if a.name == name]
        metric = PROMETHEUS_PREFIX + _snake(name) + _unit_suffix(name)
        if name in names.DISTRIBUTIONS:
            lines += [f"# HELP {metric} {name} ({names.UNITS[name]}) from constants.metrics",
                      f"# TYPE {metric} summary"]
            for a in members:
                for quantile, value in (("0.5", a.p50), ("0.95", a.p95)):
                    lines.append(f"{metric}{_labels({**a.dimensions, 'quantile': quantile})} {_number(value)}")
                lines.append(f"{metric}_sum{_labels(a.dimensions)} {_number(a.total)}")
                lines.append(f"{metric}_count{_labels(a.dimensions)} {a.count}")
        else:
            lines += [f"# HELP {metric}_total {name} ({names.UNITS[name]}) from constants.metrics",
                      f"# TYPE {metric}_total counter"]
            lines += [f"{metric}_total{_labels(a.dimensions)} {_number(a.total)}" for a in members]
    return "\n".join(lines) + "\n"


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _unit_suffix(name: str) -> str:
    return "_ms" if names.UNITS[name] == names.MILLISECONDS else ""


def _labels(dimensions: dict[str, str]) -> str:
    if not dimensions:
        return ""
    escaped = (f'{key}="{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
               for key, value in dimensions.items())
    return "{" + ",".join(escaped) + "}"


def _number(value: float | None) -> str:
    return "NaN" if value is None else repr(float(value))
