"""AlertPublisher on Amazon SNS: the operators' topic (infra subscribes the configured e-mail addresses)."""

from __future__ import annotations

from typing import Any

SUBJECT_LIMIT = 100  # SNS refuses a longer e-mail subject


class SnsAlertPublisher:
    def __init__(self, topic_arn: str, *, client: Any = None, region_name: str | None = None) -> None:
        self.topic_arn = topic_arn
        self._client = client
        self._region_name = region_name

    def publish(self, subject: str, message: str) -> None:
        if self._client is None:
            import boto3

            self._client = boto3.client("sns", region_name=self._region_name)
        self._client.publish(TopicArn=self.topic_arn, Subject=subject[:SUBJECT_LIMIT], Message=message)
