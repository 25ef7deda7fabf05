"""The cost alerts' publishers: SNS on AWS (moto: the topic's subscriber receives subject and message), a warning
log line locally."""

from __future__ import annotations

import json
import logging

import boto3
import pytest
from moto import mock_aws

from voiceassist import observability
from voiceassist.adapters.aws.sns_alerts import SUBJECT_LIMIT, SnsAlertPublisher
from voiceassist.adapters.local.log_alerts import LogAlertPublisher

SUBJECT = "VoiceAssist cost: user:clinician-1 80% of its monthly limit"
MESSAGE = "user:clinician-1 has spent $4.0000 of its $5.00 monthly cloud-model limit in 2026-11."


def test_sns_alert_reaches_the_topics_subscriber(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        sns, sqs = boto3.client("sns"), boto3.client("sqs")
        topic = sns.create_topic(Name="cost-alerts")["TopicArn"]
        queue = sqs.create_queue(QueueName="operator")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)

        SnsAlertPublisher(topic, client=sns).publish(SUBJECT + " " + "x" * SUBJECT_LIMIT, MESSAGE)

        body = json.loads(sqs.receive_message(QueueUrl=queue)["Messages"][0]["Body"])
    assert body["Message"] == MESSAGE
    assert body["Subject"].startswith(SUBJECT) and len(body["Subject"]) == SUBJECT_LIMIT


def test_local_alert_is_a_warning_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=observability.logger.name):
        LogAlertPublisher().publish(SUBJECT, MESSAGE)

    assert any(r.levelno == logging.WARNING and SUBJECT in r.getMessage() for r in caplog.records)
