"""The two workflows, defined once in statemachines/*.asl.json, and the S3 -> EventBridge -> ingestion path.

Each ASL file names its Lambda tasks as `${PascalCaseFunctionArn}` placeholders; the substitutions here are
built from the catalogue's pipeline lists, and tests check both directions against the files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs.log_groups import encrypted_log_group
from voiceassist.constants.environment import INCOMING_PREFIX
from voiceassist.constants.functions import INGEST_PIPELINE_FUNCTIONS, QUERY_PIPELINE_FUNCTIONS, placeholder_for

INGEST_ASL = "ingest.asl.json"
QUERY_ASL = "query.asl.json"
# Operators drop documents under this prefix; API uploads (documents/) and artifacts/ never re-trigger.
UPLOAD_PREFIX = INCOMING_PREFIX


def substitutions(functions: Mapping[str, lambda_.IFunction], names: Iterable[str]) -> dict[str, str]:
    """ASL placeholder -> function ARN for the functions a workflow invokes."""
    return {placeholder_for(name): functions[name].function_arn for name in names}


class Pipelines(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        statemachines_dir: Path,
        functions: Mapping[str, lambda_.IFunction],
        key: kms.IKey,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        self._config = config
        self._key = key
        self._removal_policy = removal_policy
        self.ingest = self._state_machine(
            "Ingest",
            statemachines_dir / INGEST_ASL,
            sfn.StateMachineType.STANDARD,
            substitutions(functions, INGEST_PIPELINE_FUNCTIONS),
        )
        self.query = self._state_machine(
            "Query",
            statemachines_dir / QUERY_ASL,
            sfn.StateMachineType.EXPRESS,
            substitutions(functions, QUERY_PIPELINE_FUNCTIONS),
        )
        for name in (*INGEST_PIPELINE_FUNCTIONS, *QUERY_PIPELINE_FUNCTIONS):
            machine = self.ingest if name in INGEST_PIPELINE_FUNCTIONS else self.query
            functions[name].grant_invoke(machine)

    def _state_machine(
        self,
        construct_id: str,
        definition: Path,
        machine_type: sfn.StateMachineType,
        definition_substitutions: dict[str, str],
    ) -> sfn.StateMachine:
        # The overall limit is the ASL file's own TimeoutSeconds: DefinitionBody.from_file ignores a CDK timeout.
        log_group = encrypted_log_group(
            self,
            f"{construct_id}Logs",
            key=self._key,
            retention_days=self._config.retention.log_days,
            removal_policy=self._removal_policy,
            # Express workflows must log to a group whose name starts with /aws/vendedlogs/.
            log_group_name=f"/aws/vendedlogs/states/{self._config.prefix}-{construct_id.lower()}",
        )
        return sfn.StateMachine(
            self,
            construct_id,
            state_machine_name=f"{self._config.prefix}-{construct_id.lower()}",
            state_machine_type=machine_type,
            definition_body=sfn.DefinitionBody.from_file(str(definition)),
            definition_substitutions=definition_substitutions,
            tracing_enabled=True,
            encryption_configuration=sfn.CustomerManagedEncryptionConfiguration(self._key),
            # Every event is logged, but never the execution data: inputs and outputs can carry PHI.
            logs=sfn.LogOptions(destination=log_group, level=sfn.LogLevel.ALL, include_execution_data=False),
        )

    def reconcile_on_schedule(
        self, *, reconciler: lambda_.IFunction, dead_letter_queue: sqs.IQueue, minutes: int = 5
    ) -> events.Rule:
        """Every few minutes the reconciler compares PENDING/RUNNING jobs with their executions, and sweeps
        incoming/ for uploads whose event was lost (its events carry no key: a dead-letter queue is safe)."""
        rule = events.Rule(
            self,
            "ReconcileIngestJobs",
            description="Fail or re-drive ingestion jobs whose execution ended or is gone; start lost uploads",
            schedule=events.Schedule.rate(Duration.minutes(minutes)),
        )
        rule.add_target(targets.LambdaFunction(reconciler, dead_letter_queue=dead_letter_queue, retry_attempts=2,
                                               max_event_age=Duration.minutes(minutes)))
        return rule

    def trigger_ingestion_on_upload(self, *, bucket: s3.IBucket, trigger: lambda_.IFunction) -> events.Rule:
        """S3 Object Created (uploads only) -> EventBridge -> the trigger function, which starts ingestion.

        No dead-letter queue: an event holds the upload's raw key (a file name that may be PHI), and a queue
        would keep it 14 days. An event that fails every retry is dropped; the reconciler's sweep of incoming/
        (every five minutes, reconcile_on_schedule) starts its upload (ingest/upload_sweep.py, decision 0028)."""
        rule = events.Rule(
            self,
            "UploadedDocument",
            description="A document uploaded to the documents bucket starts its ingestion",
            event_pattern=events.EventPattern(
                source=["aws.s3"],
                detail_type=["Object Created"],
                detail={
                    "bucket": {"name": [bucket.bucket_name]},
                    "object": {"key": [{"prefix": UPLOAD_PREFIX}]},
                },
            ),
        )
        rule.add_target(
            targets.LambdaFunction(
                trigger,
                retry_attempts=4,
                max_event_age=Duration.hours(6),
            )
        )
        return rule
