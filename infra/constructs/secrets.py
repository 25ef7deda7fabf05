"""Third-party API keys: Secrets Manager secrets encrypted with the environment key.

Functions receive a secret's ARN (never its value) and read it at run time; operators put the value with
`aws secretsmanager put-secret-value` (docs/operations.md). The NCBI key exists only where PubMed is enabled,
the web search key only where web search is. The workspace tools' per-user account secrets are not created
here: operators put one per person under the environment's prefix (docs/tools.md "Workspace").
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
        self._key = key
        self._removal_policy = removal_policy
        self.openai_api_key = self._operator_secret(
            "OpenAiApiKey",
            description=f"OpenAI API key for {config.prefix} (PHI-free questions only); set by operators",
            rotated_in="the OpenAI console",
        )
        self.ncbi_api_key: secretsmanager.Secret | None = None
        if config.pubmed.enabled:
            # Created as {"api_key": ""} (plus a generated filler): PubMed works keyless at NCBI's 3 requests/s
            # until an operator puts a key (voiceassist.adapters.aws.secrets_manager reads either shape).
            self.ncbi_api_key = self._operator_secret(
                "NcbiApiKey",
                description=f"NCBI E-utilities API key for {config.prefix} PubMed searches; set by operators",
                rotated_in="the NCBI account settings",
                generate=secretsmanager.SecretStringGenerator(
                    secret_string_template='{"api_key": ""}', generate_string_key="placeholder"),
            )

        self.web_search_api_key: secretsmanager.Secret | None = None
        if config.web_search.enabled:
            self.web_search_api_key = self._operator_secret(
                "WebSearchApiKey",
                description=f"Web search (Brave Search API) key for {config.prefix}, PHI-free queries only; "
                            "set by operators",
                rotated_in="the Brave Search API dashboard",
                generate=secretsmanager.SecretStringGenerator(
                    secret_string_template='{"api_key": ""}', generate_string_key="placeholder"),
            )

    def _operator_secret(self, construct_id: str, *, description: str, rotated_in: str,
                         generate: secretsmanager.SecretStringGenerator | None = None) -> secretsmanager.Secret:
        secret = secretsmanager.Secret(
            self,
            construct_id,
            description=description,
            encryption_key=self._key,
            removal_policy=self._removal_policy,
            generate_secret_string=generate,
        )
        reason = (
            f"A third-party API key cannot be rotated by a Lambda here: operators rotate it in {rotated_in} "
            "and put the new value (docs/operations.md, 'Secrets')."
        )
        acknowledge(
            secret,
            ("AwsSolutions-SMG4", reason),
            ("HIPAA.Security-SecretsManagerRotationEnabled", reason),
        )
        return secret
