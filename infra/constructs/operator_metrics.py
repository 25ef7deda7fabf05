"""The operator's metrics on CloudWatch (decision 0040): the alarms and the dashboard rows, generated from
voiceassist.constants.metrics, the names the functions publish as EMF (adapters/aws/emf_metrics.py).

Alarms: each watched stage's p95 over its budget (StageP95<Stage>), the tool error rate, the API error rate, the
model cost burn, a spike of input-screen blocks, and ingestion failures by the hour. What each means and what to
do: docs/operations.md, "Alarms". Series whose members the template cannot know (a status, a model, a tool) are
graphed with SEARCH expressions, so a new model or tool shows without a deploy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch

from voiceassist.constants import metrics as names
from voiceassist.constants.environment import METRICS_NAMESPACE, SERVICE

AddAlarm = Callable[..., None]  # Monitoring._alarm(name, metric, *, threshold, description, evaluation_periods)


def metric(name: str, *, statistic: str = "Sum", period: Duration | None = None, label: str | None = None,
           **dimensions: str) -> cloudwatch.Metric:
    """One series of the VoiceAssist namespace: a metric's own dimensions, or a rollup's (constants.ROLLUPS)."""
    return cloudwatch.Metric(namespace=METRICS_NAMESPACE, metric_name=name, statistic=statistic,
                             dimensions_map={**dimensions, "service": SERVICE}, label=label,
                             period=period or Duration.minutes(5))


def add_alarms(alarm: AddAlarm, rest_api: apigw.RestApi) -> None:
    for stage, budget in names.STAGE_BUDGETS_MS.items():
        alarm(f"StageP95{_pascal(stage)}", metric(names.STAGE_LATENCY, statistic="p95", stage=stage),
              threshold=budget, evaluation_periods=3,
              description=f"The {stage} stage's p95 is above its budget of {budget:g} ms for 15 minutes")
    quarter = Duration.minutes(15)
    calls = {f"o{n}": metric(names.TOOL_CALLS, period=quarter, outcome=outcome)
             for n, outcome in enumerate(names.TOOL_OUTCOMES)}
    failed = [key for key, outcome in zip(calls, names.TOOL_OUTCOMES, strict=True) if outcome in ("error", "timeout")]
    alarm("ToolErrorRate", cloudwatch.MathExpression(
        expression=f"IF(({_sum(calls)}) >= 5, ({_sum(failed)}) / ({_sum(calls)}), 0)", using_metrics=calls,
        period=quarter, label="tool calls ending in error or time-out, share"),
        threshold=names.ERROR_RATE_THRESHOLD,
        description=f"Over {names.ERROR_RATE_THRESHOLD:.0%} of tool calls failed or timed out in 15 minutes "
                    "(at least 5 calls)")
    alarm("ApiErrorRate", cloudwatch.MathExpression(
        expression="IF(requests >= 20, errors / requests, 0)", period=quarter, label="5xx share",
        using_metrics={"errors": rest_api.metric_server_error(period=quarter, statistic="Sum"),
                       "requests": rest_api.metric_count(period=quarter, statistic="Sum")}),
        threshold=names.ERROR_RATE_THRESHOLD,
        description=f"Over {names.ERROR_RATE_THRESHOLD:.0%} of API requests answered 5xx in 15 minutes")
    alarm("CostBurn", metric(names.MODEL_COST, period=Duration.hours(1)), threshold=names.COST_BURN_USD_PER_HOUR,
          description=f"Models cost more than ${names.COST_BURN_USD_PER_HOUR:g} in one hour")
    alarm("SafetyBlocksSpike", metric(names.INPUT_SCREEN_BLOCKS, period=quarter),
          threshold=names.SAFETY_BLOCKS_PER_15_MIN,
          description=f"The input screen refused {names.SAFETY_BLOCKS_PER_15_MIN} or more requests in 15 minutes")
    alarm("IngestionFailuresPerHour", metric(names.INGESTION_FAILURES, period=Duration.hours(1)),
          threshold=names.INGESTION_FAILURES_PER_HOUR,
          description=f"{names.INGESTION_FAILURES_PER_HOUR} or more ingestion jobs failed in one hour")


def dashboard_rows() -> list[list[cloudwatch.IWidget]]:
    stages = [metric(names.STAGE_LATENCY, statistic="p95", stage=stage, label=stage)
              for stage in names.STAGE_BUDGETS_MS]
    return [
        [cloudwatch.GraphWidget(title="Stage p95 (ms)", left=stages, width=12),
         cloudwatch.GraphWidget(title="Question p50 / p95 (ms)", width=12, left=[
             metric(names.QUESTION_LATENCY, statistic="p50", label="p50"),
             metric(names.QUESTION_LATENCY, statistic="p95", label="p95")])],
        [_search("Questions by status", names.QUESTIONS),
         _search("PHI routing", names.PHI_ROUTING),
         _search("Input-screen and grounding blocks", names.INPUT_SCREEN_BLOCKS, names.GROUNDING_BLOCKS)],
        [_search("Tool calls by tool and outcome", names.TOOL_CALLS),
         _search("Tool p95 (ms)", names.TOOL_LATENCY, statistic="p95"),
         _search("Tokens by model", names.MODEL_TOKENS)],
        [_search("Cost by model (USD)", names.MODEL_COST),
         _search("Ingestion jobs and failures by reason", names.INGESTION_JOBS, names.INGESTION_FAILURES),
         cloudwatch.GraphWidget(title="Ingestion: chunks, p95 duration (ms)", width=8,
                                left=[metric(names.INGESTION_CHUNKS, label="chunks")],
                                right=[metric(names.INGESTION_DURATION, statistic="p95", label="p95 ms")])],
    ]


def _search(title: str, *metric_names: str, statistic: str = "Sum") -> cloudwatch.GraphWidget:
    """Every series of the metrics with their own dimensions (not the rollups), found when the graph is drawn."""
    expressions: list[cloudwatch.IMetric] = []
    for name in metric_names:
        schema = ",".join((METRICS_NAMESPACE, *names.DIMENSIONS[name], "service"))
        expressions.append(cloudwatch.MathExpression(
            expression=f"SEARCH('{{{schema}}} MetricName=\"{name}\"', '{statistic}', 300)", label=name,
            using_metrics={}, period=Duration.minutes(5)))
    return cloudwatch.GraphWidget(title=title, width=8, left=expressions)


def _sum(keys: Iterable[str]) -> str:
    return " + ".join(f"FILL({key}, 0)" for key in keys)


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
