"""The environment key's policy for the AWS services that encrypt with it on the app's behalf.

CloudWatch Logs encrypts the log groups; CloudWatch alarms publish to the encrypted SNS topic (without a grant
the alarm e-mails never arrive); EventBridge writes failed events to the encrypted dead-letter queue. Each
grant is limited to this account's resources.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms

# The services that use the key for this environment's own resources, besides CloudWatch Logs.
PUBLISHING_SERVICES: tuple[str, ...] = ("cloudwatch.amazonaws.com", "events.amazonaws.com")
_PUBLISH_ACTIONS = ["kms:Decrypt", "kms:GenerateDataKey*"]


def allow_services(key: kms.Key, stack: Stack) -> None:
    key.add_to_resource_policy(
        iam.PolicyStatement(
            sid="CloudWatchLogsEncryptsLogGroups",
            principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")],
            actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
            resources=["*"],
            conditions={
                "ArnLike": {
                    "kms:EncryptionContext:aws:logs:arn": stack.format_arn(
                        service="logs", resource="*", resource_name=None
                    )
                }
            },
        )
    )
    key.add_to_resource_policy(
        iam.PolicyStatement(
            sid="AlarmsAndEventsPublishToEncryptedTopicsAndQueues",
            principals=[iam.ServicePrincipal(service) for service in PUBLISHING_SERVICES],
            actions=_PUBLISH_ACTIONS,
            resources=["*"],
            conditions={"StringEquals": {"aws:SourceAccount": stack.account}},
        )
    )
