"""MetricSink as CloudWatch embedded metric format (EMF): Powertools prints JSON lines to stdout, and CloudWatch
Logs turns them into metrics of the VoiceAssist namespace (no API call, no boto3).

Each series (a name, its dimension values, its user key) is a line, its points one array. A metric with a
rollup (constants.metrics.ROLLUPS) declares a second dimension set on its line, so CloudWatch also keeps the
whole (every tool's errors, every model's cost) that an alarm watches. The hashed user key is a property of
the line (Logs Insights can sum cost by it), not a dimension: a dimension per user would be a metric per user.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

from voiceassist.constants.environment import METRICS_NAMESPACE, SERVICE
from voiceassist.constants.metrics import ROLLUPS
from voiceassist.observability import log_failure
from voiceassist.telemetry.points import MetricPoint

_UNITS = {"Count": MetricUnit.Count, "Milliseconds": MetricUnit.Milliseconds, "None": MetricUnit.NoUnit}


class EmfMetricSink:
    def __init__(self, *, namespace: str = METRICS_NAMESPACE, service: str = SERVICE) -> None:
        self._namespace = namespace
        self._service = service

    def record(self, points: Sequence[MetricPoint]) -> None:
        groups: dict[tuple[str, tuple[tuple[str, str], ...], str | None], list[MetricPoint]] = {}
        for point in points:
            groups.setdefault((point.name, tuple(point.dimensions.items()), point.user), []).append(point)
        try:
            for (name, dimensions, user), members in groups.items():
                line = EphemeralMetrics(namespace=self._namespace, service=self._service)
                for key, value in dimensions:
                    line.add_dimension(name=key, value=value)
                if name in ROLLUPS:
                    line.add_dimensions(**{key: dict(dimensions)[key] for key in ROLLUPS[name]}, service=self._service)
                for point in members:
                    line.add_metric(name=point.name, unit=_UNITS[point.unit], value=point.value)
                if user is not None:
                    line.add_metadata(key="user", value=user)
                line.flush_metrics()
        except Exception as exc:  # noqa: BLE001 - a metric lost is better than an answer lost
            log_failure("metrics not recorded", exc, points=len(points))
