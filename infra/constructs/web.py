"""The web client on AWS: its files in a private S3 bucket, served by CloudFront through origin access
control over TLS with strict security headers, and a Cognito hosted-UI client (authorization code + PKCE).

The bucket holds only the client's static files and its config.json (the API, WebSocket and Cognito
addresses): no PHI ever reaches it, so it uses SSE-S3. The page calls the REST API, its WebSocket and the
Cognito domain directly; the Content-Security-Policy names exactly those origins.
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Duration, Fn, RemovalPolicy, Stack
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.nag import acknowledge
from voiceassist.constants.web import (
    ADMIN_GROUP,
    HSTS_MAX_AGE_SECONDS,
    PERMISSIONS_POLICY,
    content_security_policy,
)

DISTRIBUTION_LOGICAL_ID = "WebDistribution"  # fixed: the API allows its origin before it is created (web_origin)
OAUTH_SCOPES = (cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE)


# What BucketDeployment grants its handler on "*" to invalidate the distribution after a deploy.
INVALIDATION_ACTIONS = ("cloudfront:CreateInvalidation", "cloudfront:GetInvalidation")


class WebClient(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        web_dir: Path,
        user_pool: cognito.UserPool,
        user_pool_client: cognito.UserPoolClient,
        rest_api_url: str,
        rest_api_origin: str,
        websocket_url: str,
        access_logs_bucket: s3.IBucket,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        self.domain = user_pool.add_domain(
            "HostedUi",
            cognito_domain=cognito.CognitoDomainOptions(domain_prefix=f"{config.prefix}-{stack.account}"),
        )
        cognito.CfnUserPoolGroup(
            self,
            "AdminGroup",
            user_pool_id=user_pool.user_pool_id,
            group_name=ADMIN_GROUP,
            description="Sees the web client's document panel (upload, job progress, delete)",
        )
        self.bucket = self._bucket(access_logs_bucket, removal_policy)
        self.headers = self._headers(
            # the API's origin from its id, not its URL: the URL names the stage, whose deployment holds the
            # preflight methods, which allow this distribution's origin (a cycle)
            connect_sources=[rest_api_origin, _origin_of(websocket_url), self.domain.base_url()]
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment=f"{config.prefix} web client",
            default_root_object="index.html",
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(self.bucket),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                allowed_methods=cloudfront.AllowedMethods.ALLOW_GET_HEAD,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                response_headers_policy=self.headers,
                compress=True,
            ),
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            enable_logging=True,
            log_bucket=access_logs_bucket,
            log_file_prefix="cloudfront/",
        )
        cfn_distribution: cloudfront.CfnDistribution = self.distribution.node.default_child  # type: ignore[assignment]
        cfn_distribution.override_logical_id(DISTRIBUTION_LOGICAL_ID)
        self.origin = f"https://{self.distribution.distribution_domain_name}"
        self.url = f"{self.origin}/"
        self.client = user_pool_client
        self._sign_in_through_hosted_ui(user_pool_client)
        self.deployment = s3deploy.BucketDeployment(
            self,
            "Deployment",
            destination_bucket=self.bucket,
            sources=[
                s3deploy.Source.asset(str(web_dir)),
                s3deploy.Source.json_data("config.json", self.client_config(rest_api_url, websocket_url)),
            ],
            distribution=self.distribution,
            distribution_paths=["/*"],
            prune=True,
            retain_on_delete=removal_policy != RemovalPolicy.DESTROY,
            cache_control=[s3deploy.CacheControl.no_cache()],  # a deploy is visible at once, never mixed
        )
        # aws-cdk-lib allows its handler the invalidations of every distribution of the account ("*"); the actions
        # take a distribution ARN, so every other distribution is denied (decision 0030, session 11).
        self.deployment.handler_role.add_to_principal_policy(
            iam.PolicyStatement(
                effect=iam.Effect.DENY,
                actions=list(INVALIDATION_ACTIONS),
                not_resources=[self.distribution.distribution_arn],
            )
        )
        self._acknowledge()

    def _sign_in_through_hosted_ui(self, client: cognito.UserPoolClient) -> None:
        """The API's one public client (no secret) gets the hosted UI's code grant, back to this distribution.

        One client, so the WebSocket authorizer, which checks the token's audience against it, accepts the
        page's tokens too. The Api construct creates it first (OAuth off); its callback needs this distribution.
        """
        cfn: cognito.CfnUserPoolClient = client.node.default_child  # type: ignore[assignment]
        cfn.allowed_o_auth_flows_user_pool_client = True
        cfn.allowed_o_auth_flows = ["code"]  # never "implicit": tokens must not travel in URLs
        cfn.allowed_o_auth_scopes = [scope.scope_name for scope in OAUTH_SCOPES]
        cfn.callback_ur_ls = [self.url]
        cfn.logout_ur_ls = [self.url]
        cfn.supported_identity_providers = ["COGNITO"]

    def client_config(self, rest_api_url: str, websocket_url: str) -> dict[str, object]:
        """config.json: what the page reads before anything else (web/app.js)."""
        return {
            "mode": "aws",
            "api_base": rest_api_url,  # ends in "/": the page trims it
            "websocket_url": websocket_url,
            "auth": {
                "domain": self.domain.base_url(),
                "client_id": self.client.user_pool_client_id,
                "redirect_uri": self.url,
                "scopes": " ".join(scope.scope_name for scope in OAUTH_SCOPES),
            },
        }

    def _bucket(self, access_logs_bucket: s3.IBucket, removal_policy: RemovalPolicy) -> s3.Bucket:
        bucket = s3.Bucket(
            self,
            "Files",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=access_logs_bucket,
            server_access_logs_prefix="web/",
            removal_policy=removal_policy,
            auto_delete_objects=removal_policy == RemovalPolicy.DESTROY,  # dev and staging: `make destroy` empties
            lifecycle_rules=[s3.LifecycleRule(noncurrent_version_expiration=Duration.days(30))],
        )
        acknowledge(
            bucket,
            (
                "HIPAA.Security-S3DefaultEncryptionKMS",
                "The web client's public static files and its config.json: no PHI; SSE-S3 lets CloudFront's "
                "origin access control read them without a key grant.",
            ),
            (
                "HIPAA.Security-S3BucketReplicationEnabled",
                "Built from the repository on every deploy: a lost bucket is redeployed, not restored.",
            ),
        )
        return bucket

    def _headers(self, *, connect_sources: list[str]) -> cloudfront.ResponseHeadersPolicy:
        return cloudfront.ResponseHeadersPolicy(
            self,
            "SecurityHeaders",
            comment="Strict CSP, HSTS, no framing, no sniffing, no referrer",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=content_security_policy(connect_sources), override=True
                ),
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=Duration.seconds(HSTS_MAX_AGE_SECONDS),
                    include_subdomains=True,
                    preload=True,
                    override=True,
                ),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True
                ),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.NO_REFERRER, override=True
                ),
            ),
            custom_headers_behavior=cloudfront.ResponseCustomHeadersBehavior(
                custom_headers=[
                    cloudfront.ResponseCustomHeader(
                        header="Permissions-Policy", value=PERMISSIONS_POLICY, override=True
                    )
                ]
            ),
        )

    def _acknowledge(self) -> None:
        deploy_time = ("CDK's BucketDeployment handler: runs only while CloudFormation deploys, copies the web "
                       "client's static files (no PHI), and CloudFormation reports its failures.")
        for child in Stack.of(self).node.children:
            if child.node.id.startswith("Custom::CDKBucketDeployment"):
                acknowledge(
                    child,
                    ("AwsSolutions-L1", "Its runtime is chosen by aws-cdk-lib and moves with each upgrade."),
                    ("HIPAA.Security-LambdaConcurrency", deploy_time),
                    ("HIPAA.Security-LambdaDLQ", deploy_time),
                    ("HIPAA.Security-LambdaInsideVPC", deploy_time + " It reads the CDK asset bucket."),
                    (
                        "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                        "AWSLambdaBasicExecutionRole]",
                        "Writes its own log group only: the AWS-managed basic execution policy.",
                    ),
                    ("AwsSolutions-IAM5[Resource::*]",
                     "CloudFront invalidations (CreateInvalidation, GetInvalidation) after a deploy, as CDK grants."),
                    (f"AwsSolutions-IAM5[Resource::arn:aws:s3:::cdk-hnb659fds-assets-{Stack.of(self).account}-"
                     f"{Stack.of(self).region}/*]", "Reads the web client's zipped asset from CDK's asset bucket."),
                    (f"AwsSolutions-IAM5[Resource::<{Stack.of(self).get_logical_id(self.bucket.node.default_child)}"
                     ".Arn>/*]", "Writes and prunes the web client's files in its own bucket."),
                )
        acknowledge(
            self.distribution,
            (
                "AwsSolutions-CFR1",
                "Clinicians sign in from anywhere the organisation operates; Cognito and the API's WAF gate "
                "every request that reaches data.",
            ),
            (
                "AwsSolutions-CFR2",
                "Static files only; the data-bearing REST API has its own regional WAF (constructs/api.py).",
            ),
            (
                "AwsSolutions-CFR4",
                "The default *.cloudfront.net certificate: TLS 1.2+ is enforced for viewers with a custom "
                "domain; attach one (ACM in us-east-1) to pin the security policy for every client.",
            ),
        )


def _origin_of(url: str) -> str:
    """scheme://host of a URL that may be a CDK token (the stage path is dropped)."""
    parts = Fn.split("/", url)
    return Fn.join("", [Fn.select(0, parts), "//", Fn.select(2, parts)])


def web_origin() -> str:
    """https://<the web client's CloudFront domain>, usable before the distribution is created."""
    return Fn.join("", ["https://", Fn.get_att(DISTRIBUTION_LOGICAL_ID, "DomainName").to_string()])
