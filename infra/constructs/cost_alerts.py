"""The operators' cost alerts (voiceassist.admin.billing): an encrypted topic, subscribed by the alarm e-mail.

A function granted COST_ALERTS publishes to it when a monthly cloud-model limit reaches its alert share and
when it is reached. Its own topic, not the alarms': an alert names the user whose limit it is, the alarms do not.
"""

from __future__ import annotations

from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra.config import EnvironmentConfig


class CostAlerts(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        self.topic = sns.Topic(self, "Topic", master_key=key, enforce_ssl=True,
                               display_name=f"{config.prefix} cost alerts")
        self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
