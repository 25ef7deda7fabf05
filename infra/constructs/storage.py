"""Documents and model-artifact buckets, their access-log bucket, and the DynamoDB tables.

Table keys come from voiceassist.adapters.aws.dynamodb_tables.TABLE_DESIGNS, the same design the adapters
and the SQLite mirror use, so infra cannot drift from the code that reads the tables.
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct, IConstruct

from infra.config import EnvironmentConfig
from infra.nag import acknowledge
from voiceassist.constants.environment import INCOMING_PREFIX
from voiceassist.constants.tables import (
    AUDIT,
    BILLING,
    DOCUMENTS,
    JOBS,
    SESSIONS,
    STATE,
    TABLE_DESIGNS,
    KeyAttribute,
    TableDesign,
)

IDEMPOTENCY = "idempotency"
# Powertools idempotency's fixed schema (its DynamoDBPersistenceLayer defaults).
_IDEMPOTENCY_DESIGN = TableDesign(partition_key=KeyAttribute("id", "S"), ttl_attribute="expiration")
_ATTRIBUTE_TYPES = {"S": dynamodb.AttributeType.STRING, "N": dynamodb.AttributeType.NUMBER}


class Storage(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        key: kms.IKey,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        self.access_logs_bucket = s3.Bucket(
            self,
            "AccessLogs",
            # S3 server access logging can only deliver to SSE-S3 buckets.
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
            removal_policy=removal_policy,
            # dev and staging: emptied (every version) by CloudFormation once its writers are gone (empty_after)
            auto_delete_objects=removal_policy == RemovalPolicy.DESTROY,
            lifecycle_rules=[
                s3.LifecycleRule(
                    expiration=Duration.days(config.retention.access_log_days),
                    noncurrent_version_expiration=Duration.days(1),
                )
            ],
        )
        acknowledge(
            self.access_logs_bucket,
            ("AwsSolutions-S1", "This is the access-log destination; logging it into itself would loop."),
            (
                "HIPAA.Security-S3BucketLoggingEnabled",
                "This is the access-log destination; logging it into itself would loop.",
            ),
            (
                "HIPAA.Security-S3DefaultEncryptionKMS",
                "S3 server access logging delivers only to SSE-S3 buckets; logs hold no document content.",
            ),
            (
                "HIPAA.Security-S3BucketReplicationEnabled",
                "Access logs are kept in-region for the retention period; replication adds nothing here.",
            ),
        )
        self.documents_bucket = self._data_bucket("Documents", "documents/", config, key, removal_policy)
        # Named, so the Models stack can grant read on it without a cross-stack export.
        self.model_artifacts_bucket = self._data_bucket(
            "ModelArtifacts",
            "models/",
            config,
            key,
            removal_policy,
            bucket_name=config.model_artifacts_bucket_name,
        )
        self._send_events_to_eventbridge(self.documents_bucket)
        self.audit_anchor_bucket = self._audit_anchor_bucket(config, key, removal_policy)
        # Transcribe Medical's recordings and transcripts while a job runs (adapters/aws/transcribe_medical_stt.py
        # deletes them after each job); expired after a day, old versions too, should a delete fail.
        self.voice_bucket = self._data_bucket("Voice", "voice/", config, key, removal_policy, expire_days=1)

        table_designs = {**TABLE_DESIGNS, IDEMPOTENCY: _IDEMPOTENCY_DESIGN}
        self.tables: dict[str, dynamodb.TableV2] = {
            logical: self._table(logical, design, config, key, removal_policy)
            for logical, design in table_designs.items()
        }

    @property
    def documents_table(self) -> dynamodb.TableV2:
        return self.tables[DOCUMENTS]

    @property
    def jobs_table(self) -> dynamodb.TableV2:
        return self.tables[JOBS]

    @property
    def sessions_table(self) -> dynamodb.TableV2:
        return self.tables[SESSIONS]

    @property
    def audit_table(self) -> dynamodb.TableV2:
        return self.tables[AUDIT]

    @property
    def state_table(self) -> dynamodb.TableV2:
        return self.tables[STATE]

    @property
    def billing_table(self) -> dynamodb.TableV2:
        return self.tables[BILLING]

    @property
    def idempotency_table(self) -> dynamodb.TableV2:
        return self.tables[IDEMPOTENCY]

    def _data_bucket(
        self,
        construct_id: str,
        log_prefix: str,
        config: EnvironmentConfig,
        key: kms.IKey,
        removal_policy: RemovalPolicy,
        bucket_name: str | None = None,
        expire_days: int | None = None,
    ) -> s3.Bucket:
        bucket = s3.Bucket(
            self,
            construct_id,
            bucket_name=bucket_name,
            encryption=s3.BucketEncryption.KMS,
            encryption_key=key,
            bucket_key_enabled=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=self.access_logs_bucket,
            server_access_logs_prefix=log_prefix,
            removal_policy=removal_policy,
            auto_delete_objects=removal_policy == RemovalPolicy.DESTROY,  # dev and staging: `make destroy` empties
            lifecycle_rules=[
                s3.LifecycleRule(
                    expiration=Duration.days(expire_days) if expire_days else None,
                    noncurrent_version_expiration=Duration.days(
                        1 if expire_days else config.retention.noncurrent_document_days),
                    abort_incomplete_multipart_upload_after=Duration.days(expire_days or 7),
                ),
                # An upload under incoming/ is moved to a key without its file name once screened
                # (ingest/settling.py); the version left behind under the raw name goes after a day.
                s3.LifecycleRule(
                    prefix=INCOMING_PREFIX,
                    noncurrent_version_expiration=Duration.days(1),
                    expired_object_delete_marker=True,
                ),
            ],
        )
        acknowledge(
            bucket,
            (
                "HIPAA.Security-S3BucketReplicationEnabled",
                "Single-region deployment by design (data residency); versioning gives recovery.",
            ),
        )
        return bucket

    def _audit_anchor_bucket(
        self, config: EnvironmentConfig, key: kms.IKey, removal_policy: RemovalPolicy
    ) -> s3.Bucket:
        """Write-once anchors of the audit chain (adapters/aws/s3_audit_anchor.py): where the environment keeps
        its data, every object version is locked in compliance mode for the retention period (nobody, root
        included, can delete or shorten it), so a record deleted from the audit table stays anchored. In dev
        and staging (`removal: destroy`) Object Lock is on but without a default retention: those environments
        are disposable, and `make destroy` must be able to empty the bucket (a locked version cannot be)."""
        disposable = removal_policy == RemovalPolicy.DESTROY
        bucket = s3.Bucket(
            self,
            "AuditAnchors",
            encryption=s3.BucketEncryption.KMS,
            encryption_key=key,
            bucket_key_enabled=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_lock_enabled=True,
            object_lock_default_retention=None if disposable else s3.ObjectLockRetention.compliance(
                Duration.days(config.retention.audit_anchor_days)),
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=self.access_logs_bucket,
            server_access_logs_prefix="audit-anchors/",
            removal_policy=removal_policy,
            auto_delete_objects=disposable,
        )
        acknowledge(
            bucket,
            (
                "HIPAA.Security-S3BucketReplicationEnabled",
                "Single-region deployment by design (data residency); Object Lock keeps every version.",
            ),
        )
        return bucket

    @staticmethod
    def _send_events_to_eventbridge(bucket: s3.Bucket) -> None:
        # Set on the template directly: CDK's `event_bridge_enabled` adds a notifications Lambda instead.
        cfn_bucket: s3.CfnBucket = bucket.node.default_child  # type: ignore[assignment]
        cfn_bucket.notification_configuration = s3.CfnBucket.NotificationConfigurationProperty(
            event_bridge_configuration=s3.CfnBucket.EventBridgeConfigurationProperty(
                event_bridge_enabled=True
            )
        )

    def _table(
        self,
        logical: str,
        design: TableDesign,
        config: EnvironmentConfig,
        key: kms.IKey,
        removal_policy: RemovalPolicy,
    ) -> dynamodb.TableV2:
        table = dynamodb.TableV2(
            self,
            f"{logical.capitalize()}Table",
            partition_key=_attribute(design.partition_key),
            sort_key=_attribute(design.sort_key) if design.sort_key else None,
            billing=dynamodb.Billing.on_demand(),
            encryption=dynamodb.TableEncryptionV2.customer_managed_key(key),
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            deletion_protection=config.deletion_protection,
            time_to_live_attribute=design.ttl_attribute,
            removal_policy=removal_policy,
            global_secondary_indexes=[
                dynamodb.GlobalSecondaryIndexPropsV2(
                    index_name=index.name,
                    partition_key=_attribute(index.partition_key),
                    sort_key=_attribute(index.sort_key) if index.sort_key else None,
                )
                for index in design.indexes
            ],
        )
        return table


def _attribute(attribute: KeyAttribute) -> dynamodb.Attribute:
    return dynamodb.Attribute(name=attribute.name, type=_ATTRIBUTE_TYPES[attribute.type])


def empty_after(bucket: s3.Bucket, *writers: IConstruct) -> None:
    """On delete, CloudFormation empties `bucket` (its auto-delete custom resource) only after every writer is
    gone: each writer depends on the emptying, so it is deleted first. A writer that is itself an emptied bucket
    (its deletions are logged into `bucket`) counts by its own emptying: the bucket itself cannot depend on it,
    as `bucket`'s policy names it (the log delivery's source ARN). A retained bucket is left alone."""
    eraser = bucket.node.try_find_child("AutoDeleteObjectsCustomResource")
    if eraser is None:
        return
    for writer in writers:
        writer_eraser = writer.node.try_find_child("AutoDeleteObjectsCustomResource")
        (writer_eraser or writer).node.add_dependency(eraser)
