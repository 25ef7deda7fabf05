"""Dashboard and alarms; every alarm notifies the environment's alarm e-mail through an encrypted topic.

What each alarm means and what to do is in docs/operations.md ("Alarms"); the alarm names here match it.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs import operator_metrics
from voiceassist.constants.environment import METRIC_CIRCUIT_BREAKER_OPENED as CIRCUIT_BREAKER_OPENED
from voiceassist.constants.environment import METRIC_PHI_DETECTOR_ERRORS as PHI_DETECTOR_ERRORS
from voiceassist.constants.environment import METRICS_NAMESPACE, SERVICE

API_P95_LATENCY_MS = 10_000


class Monitoring(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        key: kms.IKey,
        rest_api: apigw.RestApi,
        ingest: sfn.StateMachine,
        query: sfn.StateMachine,
        functions: Mapping[str, lambda_.IFunction],
        dead_letter_queues: Mapping[str, sqs.IQueue],
        search_domain: opensearch.Domain,
    ) -> None:
        super().__init__(scope, construct_id)
        self.topic = sns.Topic(
            self, "AlarmTopic", master_key=key, enforce_ssl=True, display_name=f"{config.prefix} alarms"
        )
        self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
        self._prefix = config.prefix
        self.alarms: list[cloudwatch.Alarm] = []

        self._alarm(
            "Api5xx",
            rest_api.metric_server_error(period=Duration.minutes(5), statistic="Sum"),
            threshold=5,
            description="The REST API returned 5xx responses",
        )
        self._alarm(
            "ApiP95Latency",
            rest_api.metric_latency(period=Duration.minutes(5), statistic="p95"),
            threshold=API_P95_LATENCY_MS,
            evaluation_periods=3,
            description="REST API p95 latency above 10 s for 15 minutes",
        )
        self._alarm(
            "IngestFailures",
            ingest.metric_failed(period=Duration.minutes(5)),
            threshold=1,
            description="An ingestion workflow failed (the job is FAILED with a reason)",
        )
        self._alarm(
            "QueryFailures",
            query.metric_failed(period=Duration.minutes(5)),
            threshold=3,
            description="Query workflows failed",
        )
        self._alarm(
            "QueryTimeouts",
            query.metric_timed_out(period=Duration.minutes(5)),
            threshold=1,
            description="Query workflows timed out",
        )
        self._alarm(
            "CircuitBreakerOpen",
            _custom(CIRCUIT_BREAKER_OPENED),
            threshold=1,
            description="A model or source circuit breaker opened (fallbacks are serving)",
        )
        self._alarm(
            "PhiDetectorErrors",
            _custom(PHI_DETECTOR_ERRORS),
            threshold=1,
            description="The PHI detector failed; queries were routed as PHI (fail closed)",
        )
        self._alarm(
            "PhiDetectorFunctionErrors",
            functions["query_detect_phi"].metric_errors(period=Duration.minutes(5)),
            threshold=1,
            description="The PHI detection function itself errored",
        )
        self._alarm(
            "StreamAuthorizerErrors",
            functions["stream_authorizer"].metric_errors(period=Duration.minutes(5)),
            threshold=1,
            description="The WebSocket authorizer could not check tokens (JWKS unreachable or not configured); "
            "every connection is refused",
        )
        # The upload trigger keeps no dead-letter queue (its events hold raw keys, decision 0028): an event
        # dropped after every retry is counted here, and the reconciler's sweep of incoming/ starts its upload.
        self._alarm(
            "IngestTriggerEventsDropped",
            functions["ingest_trigger"].metric("AsyncEventsDropped", period=Duration.minutes(5), statistic="Sum"),
            threshold=1,
            description="Upload events failed every retry of ingest_trigger; the reconciler's sweep of incoming/ "
            "starts their uploads within minutes (see its log for failures by key hash)",
        )
        for name, queue in dead_letter_queues.items():
            self._alarm(
                f"{_pascal(name)}DeadLetters",
                queue.metric_approximate_number_of_messages_visible(period=Duration.minutes(5)),
                threshold=1,
                description=f"Events for {name} failed every retry",
            )
        self._alarm(
            "SearchClusterRed",
            search_domain.metric_cluster_status_red(period=Duration.minutes(1)),
            threshold=1,
            description="OpenSearch cluster status is red",
        )
        self._alarm(
            "SearchIndexWritesBlocked",
            search_domain.metric_cluster_index_writes_blocked(period=Duration.minutes(5)),
            threshold=1,
            description="OpenSearch blocks index writes (usually low disk)",
        )
        operator_metrics.add_alarms(self._alarm, rest_api)
        self.dashboard = self._dashboard(rest_api, ingest, query, functions)
        for row in operator_metrics.dashboard_rows():
            self.dashboard.add_widgets(*row)

    def _alarm(
        self,
        name: str,
        metric: cloudwatch.IMetric,
        *,
        threshold: float,
        description: str,
        evaluation_periods: int = 1,
    ) -> None:
        alarm = cloudwatch.Alarm(
            self,
            name,
            alarm_name=f"{self._prefix}-{name}",
            metric=metric,
            threshold=threshold,
            evaluation_periods=evaluation_periods,
            alarm_description=description,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        self.alarms.append(alarm)

    def _dashboard(
        self,
        rest_api: apigw.RestApi,
        ingest: sfn.StateMachine,
        query: sfn.StateMachine,
        functions: Mapping[str, lambda_.IFunction],
    ) -> cloudwatch.Dashboard:
        dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=self._prefix)
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="API requests and errors",
                left=[
                    rest_api.metric_count(),
                    rest_api.metric_client_error(),
                    rest_api.metric_server_error(),
                ],
            ),
            cloudwatch.GraphWidget(
                title="API latency p50 / p95",
                left=[rest_api.metric_latency(statistic="p50"), rest_api.metric_latency(statistic="p95")],
            ),
            cloudwatch.GraphWidget(
                title="Workflows",
                left=[
                    ingest.metric_succeeded(),
                    ingest.metric_failed(),
                    query.metric_succeeded(),
                    query.metric_failed(),
                    query.metric_timed_out(),
                ],
            ),
        )
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Function errors",
                left=[fn.metric_errors(label=name) for name, fn in sorted(functions.items())],
            ),
            cloudwatch.GraphWidget(
                title="Function p95 duration",
                left=[
                    fn.metric_duration(statistic="p95", label=name) for name, fn in sorted(functions.items())
                ],
            ),
            cloudwatch.GraphWidget(
                title="Circuit breakers and PHI detector",
                left=[_custom(CIRCUIT_BREAKER_OPENED), _custom(PHI_DETECTOR_ERRORS)],
            ),
        )
        return dashboard


def _custom(metric_name: str) -> cloudwatch.Metric:
    return cloudwatch.Metric(
        namespace=METRICS_NAMESPACE,
        metric_name=metric_name,
        dimensions_map={"service": SERVICE},
        statistic="Sum",
        period=Duration.minutes(5),
    )


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
