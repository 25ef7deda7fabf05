"""The OpenAI API key: a Secrets Manager secret encrypted with the environment key.

Functions receive the secret's ARN (never its value) and read it at run time; operators put the value
with `aws secretsmanager put-secret-value` (docs/operations.md).
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.nag import acknowledge


class Secrets(Construct):
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
        self.openai_api_key = secretsmanager.Secret(
            self,
            "OpenAiApiKey",
            description=f"OpenAI API key for {config.prefix} (PHI-free questions only); set by operators",
            encryption_key=key,
            removal_policy=removal_policy,
        )
        reason = (
            "A third-party API key cannot be rotated by a Lambda here: operators rotate it in the OpenAI "
            "console and put the new value (docs/operations.md, 'Secrets')."
        )
        acknowledge(
            self.openai_api_key,
            ("AwsSolutions-SMG4", reason),
            ("HIPAA.Security-SecretsManagerRotationEnabled", reason),
        )
