"""The REST API (Cognito authorizer, request validation, throttling, WAF, access logs) and the WebSocket API.

Clinicians sign in to the Cognito user pool (MFA required, no self sign-up); the REST API proxies every
authorised request to the `api` function, whose Powertools resolver validates bodies against its models.
WebSocket APIs take no Cognito authorizer: `$connect` has a Lambda REQUEST authorizer (`stream_authorizer`)
that verifies the same pool's tokens, offered by the client as a subprotocol (voiceassist.authentication).
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs.api_edge import (
    BINARY_MEDIA_TYPES,
    add_error_responses,
    add_execution_log_group,
    add_smoke_client,
    cors_preflight,
)
from infra.constructs.log_groups import encrypted_log_group
from infra.nag import acknowledge
from voiceassist.constants.environment import SUBPROTOCOL_HEADER

# One path scheme (docs/operations.md "API paths"): a client's URL is RestApiUrl (the stage URL, ending in
# /api/) less its trailing slash + the route, which always starts with /v1 (/v1/query): API Gateway strips the
# stage, so the api function sees /v1/query, as the local server does. The stage is not named v1 so that the
# version appears once (…/api/v1/query), never /v1/v1/.
REST_STAGE = "api"
WEBSOCKET_STAGE = "v1"  # wss://…/v1: the WebSocket API has no resource paths
_MANAGED_RULE_GROUPS = (
    "AWSManagedRulesCommonRuleSet",
    "AWSManagedRulesKnownBadInputsRuleSet",
    "AWSManagedRulesAmazonIpReputationList",
    "AWSManagedRulesSQLiRuleSet",
)


class Api(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        handler: lambda_.IFunction,
        stream_handler: lambda_.IFunction,
        connect_authorizer: lambda_.IFunction,
        key: kms.IKey,
        mcp_handler: lambda_.IFunction | None = None,
        removal_policy: RemovalPolicy,
        cors_origins: Sequence[str] = (),
    ) -> None:
        """cors_origins: the browser origins (cdk.json api.cors_origins, then the deployed web client's own)."""
        super().__init__(scope, construct_id)
        self._config = config
        self.cors_origins = tuple(cors_origins) or config.api.cors_origins
        self._key = key
        self._removal_policy = removal_policy
        self.user_pool = self._user_pool()
        self.user_pool_client = self.user_pool.add_client(
            "WebClient",
            auth_flows=cognito.AuthFlow(user_srp=True),
            # SRP sign-in only. CDK's default would also allow the implicit and code grants with an example.com
            # callback, live as soon as the pool has a domain (the web client's hosted UI adds one).
            disable_o_auth=True,
            generate_secret=False,
            prevent_user_existence_errors=True,
            access_token_validity=Duration.hours(1),
            id_token_validity=Duration.hours(1),
            refresh_token_validity=Duration.hours(12),
        )
        self.smoke_client = add_smoke_client(self.user_pool, config)
        self.rest_api = self._rest_api(handler)
        add_error_responses(self.rest_api, self.cors_origins)
        if mcp_handler is not None:
            self._mcp_route(mcp_handler)
        add_execution_log_group(self, self.rest_api, stage=REST_STAGE, key=key,
                                retention_days=config.retention.log_days, removal_policy=removal_policy)
        self.web_acl = self._web_acl()
        wafv2.CfnWebACLAssociation(
            self,
            "WebAclAssociation",
            resource_arn=self.rest_api.deployment_stage.stage_arn,
            web_acl_arn=self.web_acl.attr_arn,
        )
        self.websocket_api, self.websocket_stage = self._websocket_api(stream_handler, connect_authorizer)

    def _user_pool(self) -> cognito.UserPool:
        pool = cognito.UserPool(
            self,
            "UserPool",
            self_sign_up_enabled=False,
            sign_in_aliases=cognito.SignInAliases(email=True),
            mfa=cognito.Mfa.REQUIRED,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            password_policy=cognito.PasswordPolicy(
                min_length=12,
                require_digits=True,
                require_lowercase=True,
                require_uppercase=True,
                require_symbols=True,
                temp_password_validity=Duration.days(3),
            ),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            feature_plan=cognito.FeaturePlan.PLUS,
            standard_threat_protection_mode=cognito.StandardThreatProtectionMode.FULL_FUNCTION,
            deletion_protection=self._config.deletion_protection,
            removal_policy=self._removal_policy,
        )
        return pool

    def _rest_api(self, handler: lambda_.IFunction) -> apigw.LambdaRestApi:
        access_logs = encrypted_log_group(
            self,
            "RestAccessLogs",
            key=self._key,
            retention_days=self._config.retention.log_days,
            removal_policy=self._removal_policy,
        )
        authorizer = apigw.CognitoUserPoolsAuthorizer(self, "Authorizer", cognito_user_pools=[self.user_pool])
        api = apigw.LambdaRestApi(
            self,
            "RestApi",
            rest_api_name=f"{self._config.prefix}-api",
            handler=handler,
            proxy=True,
            cloud_watch_role=True,
            cloud_watch_role_removal_policy=self._removal_policy,
            endpoint_types=[apigw.EndpointType.REGIONAL],
            binary_media_types=BINARY_MEDIA_TYPES,
            default_cors_preflight_options=cors_preflight(self.cors_origins),
            default_method_options=apigw.MethodOptions(
                authorizer=authorizer,
                authorization_type=apigw.AuthorizationType.COGNITO,
            ),
            deploy_options=apigw.StageOptions(
                stage_name=REST_STAGE,
                throttling_rate_limit=self._config.api.throttle_rate_limit,
                throttling_burst_limit=self._config.api.throttle_burst_limit,
                tracing_enabled=True,
                # Execution logs carry errors only, never request or response bodies (PHI).
                logging_level=apigw.MethodLoggingLevel.ERROR,
                data_trace_enabled=False,
                metrics_enabled=True,
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.json_with_standard_fields(
                    caller=False,
                    http_method=True,
                    ip=True,
                    protocol=True,
                    request_time=True,
                    resource_path=True,
                    response_length=True,
                    status=True,
                    user=True,
                ),
            ),
        )
        # Basic validation at the edge; the api function's resolver validates bodies against its models.
        validator = api.add_request_validator(
            "RequestValidator", validate_request_body=True, validate_request_parameters=True
        )
        for method in api.node.find_all():
            if isinstance(method, apigw.CfnMethod):
                method.request_validator_id = validator.request_validator_id
        acknowledge(
            api,
            (
                "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AmazonAPIGatewayPushToCloudWatchLogs]",
                "API Gateway's account-level logging role: the AWS-managed policy is the documented one.",
            ),
            (
                "HIPAA.Security-APIGWCacheEnabledAndEncrypted",
                "Responses are answers to clinicians' questions and may carry PHI: they are never cached.",
            ),
            (
                "HIPAA.Security-APIGWSSLEnabled",
                "The only backend is a Lambda proxy integration; client certificates apply to HTTP backends.",
            ),
        )
        return api

    def _mcp_route(self, handler: lambda_.IFunction) -> None:
        """POST /v1/mcp goes to its own function (the MCP SDK's layer), with the same Cognito authorizer; every
        other path stays on the API function's proxy."""
        v1 = self.rest_api.root.get_resource("v1") or self.rest_api.root.add_resource("v1")
        validator = self.rest_api.node.find_child("RequestValidator")
        assert isinstance(validator, apigw.RequestValidator)
        v1.add_resource("mcp").add_method("POST", apigw.LambdaIntegration(handler), request_validator=validator)

    def _web_acl(self) -> wafv2.CfnWebACL:
        rules = [
            wafv2.CfnWebACL.RuleProperty(
                name=group,
                priority=priority,
                override_action=wafv2.CfnWebACL.OverrideActionProperty(none={}),
                statement=wafv2.CfnWebACL.StatementProperty(
                    managed_rule_group_statement=wafv2.CfnWebACL.ManagedRuleGroupStatementProperty(
                        vendor_name="AWS",
                        name=group,
                        # Document uploads are larger than the common rule set's 8 KB body limit.
                        rule_action_overrides=[
                            wafv2.CfnWebACL.RuleActionOverrideProperty(
                                name="SizeRestrictions_BODY",
                                action_to_use=wafv2.CfnWebACL.RuleActionProperty(count={}),
                            )
                        ]
                        if group == "AWSManagedRulesCommonRuleSet"
                        else None,
                    )
                ),
                visibility_config=_visibility(group),
            )
            for priority, group in enumerate(_MANAGED_RULE_GROUPS, start=1)
        ]
        rules.insert(
            0,
            wafv2.CfnWebACL.RuleProperty(
                name="RatePerClientIp",
                priority=0,
                action=wafv2.CfnWebACL.RuleActionProperty(block={}),
                statement=wafv2.CfnWebACL.StatementProperty(
                    rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                        limit=self._config.api.waf_requests_per_5_minutes, aggregate_key_type="IP"
                    )
                ),
                visibility_config=_visibility("RatePerClientIp"),
            ),
        )
        acl = wafv2.CfnWebACL(
            self,
            "WebAcl",
            scope="REGIONAL",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            visibility_config=_visibility(f"{self._config.prefix}-api"),
            rules=rules,
        )
        waf_logs = encrypted_log_group(
            self,
            "WafLogs",
            key=self._key,
            retention_days=self._config.retention.log_days,
            removal_policy=self._removal_policy,
            log_group_name=f"aws-waf-logs-{self._config.prefix}",
        )
        wafv2.CfnLoggingConfiguration(
            self,
            "WafLogging",
            resource_arn=acl.attr_arn,
            log_destination_configs=[waf_logs.log_group_arn],
            redacted_fields=[
                wafv2.CfnLoggingConfiguration.FieldToMatchProperty(single_header={"Name": "authorization"})
            ],
        )
        return acl

    def _websocket_api(
        self, handler: lambda_.IFunction, connect_authorizer: lambda_.IFunction
    ) -> tuple[apigwv2.WebSocketApi, apigwv2.WebSocketStage]:
        integration = integrations.WebSocketLambdaIntegration("Stream", handler)
        # The token travels as a subprotocol (browsers cannot set Authorization on a WebSocket, and a
        # query string would put it in URLs); without that header API Gateway refuses before any Lambda runs.
        authorizer = authorizers.WebSocketLambdaAuthorizer(
            "ConnectAuthorizer",
            connect_authorizer,
            authorizer_name=f"{self._config.prefix}-cognito-token",
            identity_source=[f"route.request.header.{SUBPROTOCOL_HEADER}"],
        )
        api = apigwv2.WebSocketApi(
            self,
            "WebSocketApi",
            api_name=f"{self._config.prefix}-stream",
            connect_route_options=apigwv2.WebSocketRouteOptions(integration=integration, authorizer=authorizer),
            disconnect_route_options=apigwv2.WebSocketRouteOptions(integration=integration),
            default_route_options=apigwv2.WebSocketRouteOptions(integration=integration),
        )
        stage = apigwv2.WebSocketStage(
            self,
            "WebSocketStage",
            web_socket_api=api,
            stage_name=WEBSOCKET_STAGE,
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(
                rate_limit=self._config.api.throttle_rate_limit,
                burst_limit=self._config.api.throttle_burst_limit,
            ),
        )
        access_logs = encrypted_log_group(
            self,
            "WebSocketAccessLogs",
            key=self._key,
            retention_days=self._config.retention.log_days,
            removal_policy=self._removal_policy,
        )
        cfn_stage: apigwv2.CfnStage = stage.node.default_child  # type: ignore[assignment]
        cfn_stage.access_log_settings = apigwv2.CfnStage.AccessLogSettingsProperty(
            destination_arn=access_logs.log_group_arn,
            format=(
                '{"requestId":"$context.requestId","ip":"$context.identity.sourceIp",'
                '"routeKey":"$context.routeKey","status":"$context.status",'
                '"connectionId":"$context.connectionId","requestTime":"$context.requestTime"}'
            ),
        )
        for route in api.node.find_all():
            if isinstance(route, apigwv2.CfnRoute) and route.route_key != "$connect":
                acknowledge(
                    route,
                    (
                        "AwsSolutions-APIG4",
                        "API Gateway authorizes a WebSocket connection once, on $connect (Lambda authorizer "
                        "verifying the Cognito token); this route only carries messages of such a connection.",
                    ),
                )
        return api, stage

    @property
    def rest_api_origin(self) -> str:
        """https://<id>.execute-api.<region>.<suffix>: the REST API's origin, without its stage."""
        stack = Stack.of(self)
        return f"https://{self.rest_api.rest_api_id}.execute-api.{stack.region}.{stack.url_suffix}"

    @property
    def websocket_url(self) -> str:
        return f"wss://{self.websocket_api.api_id}.execute-api.{Stack.of(self).region}.amazonaws.com/{WEBSOCKET_STAGE}"


def _visibility(metric_name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
    return wafv2.CfnWebACL.VisibilityConfigProperty(
        cloud_watch_metrics_enabled=True, metric_name=metric_name, sampled_requests_enabled=False
    )
