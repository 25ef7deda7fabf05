"""Metric points and their aggregates: what the floors record and what the telemetry view reads (decision 0040).

A point is one observation (a stage's milliseconds, one question's status) under a name of
voiceassist.constants.metrics, with that name's dimensions. Dimension values come from closed sets;
`closed` maps anything else to "other", so a value a model or a client made up never becomes a dimension.
A point may carry `user`, the hashed caller id (`user_key`): the local store groups cost by it for the admin
view, the EMF line carries it as a property (searchable, never a dimension); never a name, never an MRN.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from voiceassist.constants import metrics as names

USER_KEY_CHARS = 16


@dataclass(frozen=True)
class MetricPoint:
    name: str
    value: float
    dimensions: dict[str, str] = field(default_factory=dict)
    user: str | None = None  # user_key(user_id), for per-user cost; None for everything else
    at: datetime | None = None  # None: when the sink records it

    def __post_init__(self) -> None:
        expected = names.DIMENSIONS[self.name]  # KeyError: a name outside constants.metrics
        if tuple(self.dimensions) != expected:
            raise ValueError(f"{self.name} takes the dimensions {expected}, not {tuple(self.dimensions)}")

    @property
    def unit(self) -> str:
        return names.UNITS[self.name]


@dataclass(frozen=True)
class MetricAggregate:
    """One series (a name and its dimension values) over a window: how many points, their sum, percentiles."""

    name: str
    dimensions: dict[str, str]
    count: int
    total: float
    p50: float | None = None  # distributions only (constants.metrics.DISTRIBUTIONS)
    p95: float | None = None
    user: str | None = None  # set when the reader grouped by user


def user_key(user_id: str) -> str:
    """An opaque, stable key for a caller: the first 16 hex digits of SHA-256 over the (already opaque) id."""
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:USER_KEY_CHARS]


def closed(value: str | None, allowed: Container[str]) -> str:
    """`value` when it belongs to the closed set, else "other": dimensions stay few and never carry free text."""
    return value if value is not None and value in allowed else names.UNKNOWN


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between the closest ranks (numpy's default)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def aggregate(points: Sequence[MetricPoint], *, by_user: bool = False) -> list[MetricAggregate]:
    """Points grouped into series (by user too, for points that carry one, when `by_user`), name order."""
    series: dict[tuple[str, tuple[tuple[str, str], ...], str | None], list[float]] = {}
    for point in points:
        key = (point.name, tuple(point.dimensions.items()), point.user if by_user else None)
        series.setdefault(key, []).append(point.value)
    result = []
    for (name, dims, user), values in sorted(series.items(), key=lambda item: (item[0][0], item[0][1],
                                                                               item[0][2] or "")):
        distribution = name in names.DISTRIBUTIONS
        result.append(MetricAggregate(
            name=name, dimensions=dict(dims), count=len(values), total=round(sum(values), 6), user=user,
            p50=round(percentile(values, 50), 3) if distribution else None,
            p95=round(percentile(values, 95), 3) if distribution else None))
    return result
