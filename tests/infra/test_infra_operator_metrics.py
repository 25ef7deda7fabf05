"""The operator's metrics on CloudWatch (decision 0040): the synthesized dashboard graphs every metric the
functions publish, under the names of voiceassist.constants.metrics, and the alarms watch them (stage p95 over
budget, error rates, cost burn, safety-block spikes, ingestion failures); the API function may read them back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Synthesized, resources

from voiceassist.constants import metrics as names
from voiceassist.constants.environment import METRICS_NAMESPACE, SERVICE


def alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(a["AlarmName"]).split("-", 2)[-1]: a for a in resources(template, "AWS::CloudWatch::Alarm").values()}


def dimensions(metric: dict[str, Any]) -> dict[str, str]:
    return {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_every_stage_budget_has_a_p95_alarm_on_the_published_metric(synthesized: Synthesized, env: str) -> None:
    found = alarms(synthesized.main(env))
    for stage, budget in names.STAGE_BUDGETS_MS.items():
        alarm = found["StageP95" + "".join(part.capitalize() for part in stage.split("_"))]
        assert (alarm["Namespace"], alarm["MetricName"]) == (METRICS_NAMESPACE, names.STAGE_LATENCY)
        assert dimensions(alarm) == {"stage": stage, "service": SERVICE}
        assert (alarm["ExtendedStatistic"], alarm["Threshold"]) == ("p95", budget)
        assert alarm["AlarmActions"], "an alarm nobody hears"


def test_rollup_alarms_watch_cost_blocks_and_ingestion_failures(synthesized: Synthesized) -> None:
    found = alarms(synthesized.main("dev"))
    for alarm_name, metric, threshold in (
            ("CostBurn", names.MODEL_COST, names.COST_BURN_USD_PER_HOUR),
            ("SafetyBlocksSpike", names.INPUT_SCREEN_BLOCKS, names.SAFETY_BLOCKS_PER_15_MIN),
            ("IngestionFailuresPerHour", names.INGESTION_FAILURES, names.INGESTION_FAILURES_PER_HOUR)):
        alarm = found[alarm_name]
        assert (alarm["MetricName"], alarm["Statistic"], alarm["Threshold"]) == (metric, "Sum", threshold)
        # the rollup dimension set the EMF lines declare (constants.metrics.ROLLUPS): service alone
        assert names.ROLLUPS[metric] == () and dimensions(alarm) == {"service": SERVICE}


def test_the_tool_error_rate_alarm_divides_failed_calls_by_all_calls(synthesized: Synthesized) -> None:
    alarm = alarms(synthesized.main("dev"))["ToolErrorRate"]
    queries = alarm["Metrics"]
    outcomes = {dimensions(q["MetricStat"]["Metric"])["outcome"]: q["Id"] for q in queries if "MetricStat" in q}
    assert set(outcomes) == set(names.TOOL_OUTCOMES)
    assert all(q["MetricStat"]["Metric"]["MetricName"] == names.TOOL_CALLS for q in queries if "MetricStat" in q)
    (expression,) = [q["Expression"] for q in queries if "Expression" in q]
    failed, _, total = expression.split(">= 5, (", 1)[1].partition(") / (")  # IF((all) >= 5, (failed) / (all), 0)
    assert f"FILL({outcomes['error']}, 0)" in failed and f"FILL({outcomes['timeout']}, 0)" in failed
    assert f"FILL({outcomes['ok']}, 0)" not in failed and f"FILL({outcomes['ok']}, 0)" in total
    assert alarm["Threshold"] == names.ERROR_RATE_THRESHOLD
    assert "ApiErrorRate" in alarms(synthesized.main("dev"))


def test_the_dashboard_graphs_every_metric_by_its_constant_name(synthesized: Synthesized) -> None:
    (dashboard,) = resources(synthesized.main("dev"), "AWS::CloudWatch::Dashboard").values()
    body = json.dumps(dashboard["DashboardBody"]).replace("\\", "")  # the body is JSON inside a Fn::Join

    assert [name for name in names.UNITS if f'"{name}"' not in body] == []
    assert [stage for stage in names.STAGE_BUDGETS_MS if f'"stage","{stage}"' not in body] == []
    assert "SEARCH('{VoiceAssist,tool,outcome,service} MetricName=\"ToolCalls\"', 'Sum', 300)" in body


def test_only_the_api_function_may_read_metrics_back(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    readers = []
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if "cloudwatch:GetMetricData" in actions:
                assert "cloudwatch:ListMetrics" in actions and statement["Resource"] == "*"
                assert not [a for a in actions if a.startswith("cloudwatch:") and a not in (
                    "cloudwatch:GetMetricData", "cloudwatch:ListMetrics", "cloudwatch:PutMetricData")]
                readers.append(policy["PolicyName"])
    assert len(readers) == 1 and "Api" in str(readers[0])
