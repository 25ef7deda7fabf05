"""MetricReader on CloudWatch: the EMF metrics (adapters/aws/emf_metrics.py) read back with GetMetricData.

ListMetrics names the series (every dimension combination with data in the last two weeks, CloudWatch's own
limit: a month's view misses series silent for longer); one GetMetricData call per 500 queries then reads
each series' SampleCount and Sum, and p50 and p95 for distributions, over the window as one period.
Per-user cost is not a CloudWatch dimension (the user key is a property of the EMF line): `by_user` finds no
series here (a Logs Insights query does: docs/operations.md). The series list is kept a minute, so the three
windows of one telemetry report list the metrics once.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from voiceassist.constants import metrics as names
from voiceassist.constants.environment import METRICS_NAMESPACE
from voiceassist.telemetry.points import MetricAggregate

MAX_QUERIES = 500  # GetMetricData's limit per call
SERIES_TTL_S = 60.0


class CloudWatchMetricReader:
    def __init__(self, *, client: Any = None, region_name: str | None = None,
                 namespace: str = METRICS_NAMESPACE) -> None:
        self._client = client
        self._region = region_name
        self._namespace = namespace
        self._series_cache: tuple[float, list[tuple[str, dict[str, str]]]] | None = None

    @property
    def client(self) -> Any:
        if self._client is None:
            import boto3

            self._client = boto3.client("cloudwatch", region_name=self._region)
        return self._client

    def aggregate(self, *, since: datetime, until: datetime | None = None, by_user: bool = False
                  ) -> list[MetricAggregate]:
        if by_user:
            return []
        end = until or datetime.now(UTC)
        period = max(60, int((end - since).total_seconds()) // 60 * 60)
        series = self._series()
        queries: list[dict[str, Any]] = []
        for number, (name, dimensions) in enumerate(series):
            stats = ["SampleCount", "Sum"] + (["p50", "p95"] if name in names.DISTRIBUTIONS else [])
            metric = {"Namespace": self._namespace, "MetricName": name,
                      "Dimensions": [{"Name": k, "Value": v} for k, v in dimensions.items()]}
            queries += [{"Id": f"m{number}_{stat.lower()}", "ReturnData": True,
                         "MetricStat": {"Metric": metric, "Period": period, "Stat": stat}} for stat in stats]
        values: dict[str, float] = {}
        for start in range(0, len(queries), MAX_QUERIES):
            values.update(self._read(queries[start:start + MAX_QUERIES], since, end))
        result = []
        for number, (name, dimensions) in enumerate(series):
            count = int(values.get(f"m{number}_samplecount", 0))
            if not count:
                continue
            shown = {k: v for k, v in dimensions.items() if k != "service"}
            result.append(MetricAggregate(
                name=name, dimensions=shown, count=count, total=round(values.get(f"m{number}_sum", 0.0), 6),
                p50=values.get(f"m{number}_p50"), p95=values.get(f"m{number}_p95")))
        return sorted(result, key=lambda a: (a.name, tuple(a.dimensions.items())))

    def _series(self) -> list[tuple[str, dict[str, str]]]:
        if self._series_cache is not None and time.monotonic() - self._series_cache[0] < SERIES_TTL_S:
            return self._series_cache[1]
        found: list[tuple[str, dict[str, str]]] = []
        for page in self.client.get_paginator("list_metrics").paginate(Namespace=self._namespace):
            for metric in page.get("Metrics", []):
                name = metric["MetricName"]
                dimensions = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
                if name in names.DIMENSIONS and set(dimensions) - {"service"} == set(names.DIMENSIONS[name]):
                    own = {k: dimensions[k] for k in names.DIMENSIONS[name]}
                    found.append((name, {**own, "service": dimensions.get("service", "")}))
        ordered = sorted(found, key=lambda item: (item[0], tuple(item[1].items())))
        self._series_cache = (time.monotonic(), ordered)
        return ordered

    def _read(self, queries: list[dict[str, Any]], since: datetime, end: datetime) -> dict[str, float]:
        values: dict[str, float] = {}
        token: str | None = None
        while True:
            request: dict[str, Any] = {"MetricDataQueries": queries, "StartTime": since, "EndTime": end}
            if token:
                request["NextToken"] = token
            reply = self.client.get_metric_data(**request)
            for result in reply.get("MetricDataResults", []):
                if result.get("Values"):
                    values[result["Id"]] = float(sum(result["Values"]) if result["Id"].endswith(
                        ("_samplecount", "_sum")) else max(result["Values"]))
            token = reply.get("NextToken")
            if not token:
                return values
