"""The environment's main stack: network, data, search, functions, pipelines, API and monitoring.

One stack, not one per layer: IAM grants then reference resources by logical id (no cross-stack exports
that pin resources in place), and cdk-nag sees every policy in its final form. The SageMaker endpoints
live in their own stack (stacks/models.py) so they can be removed and redeployed without touching data.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, Duration, RemovalPolicy, Stack, Tags
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.config import EnvironmentConfig, RemovalChoice, SourcePaths
from infra.constructs.api import WEBSOCKET_STAGE, Api
from infra.constructs.cost_alerts import CostAlerts
from infra.constructs.functions import ASYNC_FUNCTIONS, FunctionFactory
from infra.constructs.layers import Layers
from infra.constructs.log_groups import log_cdk_handlers
from infra.constructs.monitoring import Monitoring
from infra.constructs.network import Network
from infra.constructs.pipelines import Pipelines
from infra.constructs.search import Search
from infra.constructs.search_bootstrap import BOOTSTRAP, SearchBootstrap
from infra.constructs.secrets import Secrets
from infra.constructs.storage import Storage, empty_after
from infra.constructs.web import WebClient, web_origin
from infra.stacks.environment import (
    authorizer_environment,
    pubmed_environment,
    shared_environment,
    starter_environment,
    tool_runner_environment,
    voice_environment,
    workspace_environment,
)
from infra.stacks.grants import GrantTargets, grant_access
from infra.stacks.key_policy import allow_services
from voiceassist.constants.environment import ENV_ALERTS_TOPIC_ARN, ENV_CORS_ORIGINS, ENV_DATA_KEY_ID
from voiceassist.constants.functions import (
    FUNCTIONS_BY_NAME,
    PHI_DETECTOR_FUNCTION,
    TOOL_RUNNER,
    Access,
    discover_functions,
)


def removal_policy_for(config: EnvironmentConfig) -> RemovalPolicy:
    """retain: kept on stack delete and update (DeletionPolicy RetainExceptOnCreate), but deleted when the stack
    operation that created them rolls back, so a retried first deploy does not collide with the names a failed
    one left behind (the OpenSearch domain, the model bucket, ...: docs/decisions/0030)."""
    if config.removal is RemovalChoice.RETAIN:
        return RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
    return RemovalPolicy.DESTROY


class MainStack(Stack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        paths: SourcePaths,
        **kwargs: object,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            termination_protection=config.deletion_protection,
            description=f"VoiceAssist {config.name}: clinical question answering with a PHI boundary",
            **kwargs,  # type: ignore[arg-type]
        )
        self._zones = list(config.network.availability_zones)
        Tags.of(self).add("project", "voiceassist")
        Tags.of(self).add("environment", config.name)
        removal_policy = removal_policy_for(config)

        self.key = kms.Key(
            self,
            "DataKey",
            alias=f"alias/{config.prefix}",
            enable_key_rotation=True,
            rotation_period=Duration.days(365),
            removal_policy=removal_policy,
            description=f"{config.prefix}: documents, tables, search, logs, secrets, queues and topics",
        )
        allow_services(self.key, self)

        self.network = Network(self, "Network", config=config, key=self.key, removal_policy=removal_policy)
        self.storage = Storage(self, "Storage", config=config, key=self.key, removal_policy=removal_policy)
        self.secrets = Secrets(self, "Secrets", config=config, key=self.key, removal_policy=removal_policy)
        self.search = Search(
            self, "Search", config=config, network=self.network, key=self.key, removal_policy=removal_policy
        )

        specs = discover_functions(paths.functions_dir)
        factory = FunctionFactory(
            self,
            "Functions",
            config=config,
            paths=paths,
            layers=Layers(self, "Layers", paths=paths),
            network=self.network,
            key=self.key,
            removal_policy=removal_policy,
            # the environment key also wraps the data keys of PHI fields (adapters/aws/envelope_cipher.py)
            environment={**shared_environment(config, self.storage, self.search, self.secrets),
                         ENV_DATA_KEY_ID: self.key.key_arn},
        )
        app_specs = [spec for spec in specs if not spec.custom_resource]
        functions = {spec.name: factory.create(spec) for spec in app_specs}
        dead_letter_queues = {
            name: factory.add_dead_letter_queue(
                functions[name], f"{name.title().replace('_', '')}DeadLetters"
            )
            for name in sorted(ASYNC_FUNCTIONS)
        }
        # what another caller invokes: the warm `live` alias where the environment keeps one, else the function
        invoked = {**functions, **factory.aliases}
        self.pipelines = Pipelines(
            self,
            "Pipelines",
            config=config,
            statemachines_dir=paths.statemachines_dir,
            functions=invoked,
            key=self.key,
            removal_policy=removal_policy,
        )
        self.pipelines.trigger_ingestion_on_upload(
            bucket=self.storage.documents_bucket,
            trigger=functions["ingest_trigger"],
        )
        self.pipelines.reconcile_on_schedule(
            reconciler=functions["ingest_reconcile"], dead_letter_queue=dead_letter_queues["ingest_reconcile"]
        )
        # The deployed web client's own origin (its CloudFront domain) is allowed beside cdk.json's: the API's
        # preflight and error responses, the api function's CORS headers and the presigned-upload bucket rule.
        # The distribution is created after the API (it serves the API's URL), so by its fixed logical id.
        cors_origins = (*config.api.cors_origins, web_origin())
        self.api = Api(
            self,
            "Api",
            cors_origins=cors_origins,
            config=config,
            handler=functions["api"],
            stream_handler=functions["stream"],
            connect_authorizer=functions["stream_authorizer"],
            mcp_handler=functions["mcp"],
            key=self.key,
            removal_policy=removal_policy,
        )
        self.web = WebClient(
            self,
            "Web",
            config=config,
            web_dir=paths.web_dir,
            user_pool=self.api.user_pool,
            user_pool_client=self.api.user_pool_client,
            rest_api_url=self.api.rest_api.url,
            rest_api_origin=self.api.rest_api_origin,
            websocket_url=self.api.websocket_url,
            access_logs_bucket=self.storage.access_logs_bucket,
            removal_policy=removal_policy,
        )
        # `make destroy`: every writer goes before the bucket it writes into is emptied (constructs/storage.py).
        # Not the distribution: the documents bucket's CORS rule names it (a cycle); CloudFront's late log
        # deliveries are emptied by `make destroy` itself (infra/ops/lifecycle.py), which retries the delete.
        empty_after(self.storage.access_logs_bucket, self.storage.documents_bucket,
                    self.storage.model_artifacts_bucket, self.storage.audit_anchor_bucket, self.storage.voice_bucket,
                    self.web.bucket)
        empty_after(self.web.bucket, self.web.deployment)
        targets = GrantTargets(
            config=config,
            key=self.key,
            storage=self.storage,
            search=self.search,
            secrets=self.secrets,
            ingest=self.pipelines.ingest,
            query=self.pipelines.query,
            websocket_api=self.api.websocket_api,
            websocket_stage=WEBSOCKET_STAGE,
            tool_runner=invoked[TOOL_RUNNER],
            phi_detector=invoked[PHI_DETECTOR_FUNCTION],
            cost_alerts=CostAlerts(self, "CostAlerts", config=config, key=self.key).topic,
        )
        functions["api"].add_environment(ENV_CORS_ORIGINS, ",".join(cors_origins))
        self.storage.documents_bucket.add_cors_rule(  # browsers POST presigned uploads straight to S3
            allowed_methods=[s3.HttpMethods.POST],
            allowed_origins=list(cors_origins),
            allowed_headers=["*"],
            max_age=3600,
        )
        for name, value in authorizer_environment(self.api).items():
            functions["stream_authorizer"].add_environment(name, value)
        for spec in app_specs:
            grant_access(functions[spec.name], spec, targets)
            extra = {**starter_environment(spec, self.pipelines), **pubmed_environment(spec, config, self.secrets),
                     **workspace_environment(spec, config, self.secrets),
                     **voice_environment(spec, config, self.storage),
                     **tool_runner_environment(spec, invoked[TOOL_RUNNER], invoked[PHI_DETECTOR_FUNCTION]),
                     **({ENV_ALERTS_TOPIC_ARN: targets.cost_alerts.topic_arn} if Access.COST_ALERTS in spec.access
                        else {})}
            for name, value in extra.items():
                functions[spec.name].add_environment(name, value)
        SearchBootstrap(
            self,
            "SearchBootstrap",
            config=config,
            search=self.search,
            factory=factory,
            spec=FUNCTIONS_BY_NAME[BOOTSTRAP],
            code_dir=paths.functions_dir / BOOTSTRAP,
            readers=[functions[s.name] for s in app_specs if Access.SEARCH_READ in s.access],
            writers=[functions[s.name] for s in app_specs if Access.SEARCH_WRITE in s.access],
        )
        self.monitoring = Monitoring(
            self,
            "Monitoring",
            config=config,
            key=self.key,
            rest_api=self.api.rest_api,
            ingest=self.pipelines.ingest,
            query=self.pipelines.query,
            functions=functions,
            dead_letter_queues=dead_letter_queues,
            search_domain=self.search.domain,
        )
        self.functions = functions
        log_cdk_handlers(self, key=self.key, retention_days=config.retention.log_days, removal_policy=removal_policy)

        CfnOutput(self, "RestApiUrl", value=self.api.rest_api.url)
        CfnOutput(self, "WebSocketUrl", value=self.api.websocket_url)
        CfnOutput(self, "UserPoolId", value=self.api.user_pool.user_pool_id)
        CfnOutput(self, "UserPoolClientId", value=self.api.user_pool_client.user_pool_client_id)
        if self.api.smoke_client is not None:
            CfnOutput(self, "SmokeClientId", value=self.api.smoke_client.user_pool_client_id)
        CfnOutput(self, "WebUrl", value=self.web.url)
        CfnOutput(self, "DocumentsBucketName", value=self.storage.documents_bucket.bucket_name)
        CfnOutput(self, "AuditAnchorBucketName", value=self.storage.audit_anchor_bucket.bucket_name)
        CfnOutput(self, "VoiceBucketName", value=self.storage.voice_bucket.bucket_name)
        CfnOutput(self, "ModelArtifactsBucketName", value=self.storage.model_artifacts_bucket.bucket_name)
        CfnOutput(self, "AccessLogsBucketName", value=self.storage.access_logs_bucket.bucket_name)
        CfnOutput(self, "WebBucketName", value=self.web.bucket.bucket_name)
        CfnOutput(self, "OpenAiSecretArn", value=self.secrets.openai_api_key.secret_arn)
        if self.secrets.ncbi_api_key is not None:
            CfnOutput(self, "NcbiApiKeySecretArn", value=self.secrets.ncbi_api_key.secret_arn)
        if self.secrets.web_search_api_key is not None:
            CfnOutput(self, "WebSearchApiKeySecretArn", value=self.secrets.web_search_api_key.secret_arn)

    @property
    def availability_zones(self) -> list[str]:
        """The configured zones: CDK would otherwise look them up (synth stays offline)."""
        return self._zones

