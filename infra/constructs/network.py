"""The VPC: functions in private subnets with egress (OpenAI, PubMed), data and models in isolated ones.

AWS APIs that carry PHI (the SageMaker or Bedrock runtime, whichever serves the environment's in-boundary model,
Secrets Manager, Step Functions, Lambda, KMS (the sessions' data keys), Textract (scanned pages), S3, DynamoDB, and
Comprehend Medical where the environment runs it as its PHI detector) are reached through VPC endpoints so that
traffic never crosses the NAT gateway (tests/infra/test_infra_reachability.py checks every function's calls).
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs.dns_firewall import DnsFirewall
from infra.constructs.log_groups import encrypted_log_group
from infra.nag import acknowledge
from voiceassist.constants.environment import PhiDetectorKind

APP_SUBNETS = "app"
DATA_SUBNETS = "data"
PUBLIC_SUBNETS = "public"

_INTERFACE_ENDPOINTS: dict[str, ec2.InterfaceVpcEndpointAwsService] = {
    "SecretsManager": ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
    "StepFunctions": ec2.InterfaceVpcEndpointAwsService.STEP_FUNCTIONS,
    "StepFunctionsSync": ec2.InterfaceVpcEndpointAwsService.STEP_FUNCTIONS_SYNC,
    # api and mcp invoke query_tools, the remote tool runner (tools/remote.py): tool arguments may carry PHI
    "Lambda": ec2.InterfaceVpcEndpointAwsService.LAMBDA_,
    # GenerateDataKey / Decrypt of the sessions' clinical context (adapters/aws/envelope_cipher.py): query_assemble
    # has no other way out, and the others must not send a PHI record's data key through the NAT
    "Kms": ec2.InterfaceVpcEndpointAwsService.KMS,
    # ingest_ocr starts and reads text detection jobs of scanned documents (the extracted text comes back here)
    "Textract": ec2.InterfaceVpcEndpointAwsService.TEXTRACT,
    # the api's voice routes (speech.py): recordings and what is said stay off the NAT (decision 0031). No
    # transcribestreaming endpoint: nothing calls the streaming API yet (batch jobs), and it would cost as much.
    "Transcribe": ec2.InterfaceVpcEndpointAwsService.TRANSCRIBE,
    "Polly": ec2.InterfaceVpcEndpointAwsService.POLLY,
}


class Network(Construct):
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
        self.vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr(config.network.cidr),
            availability_zones=list(config.network.availability_zones),
            nat_gateways=config.network.nat_gateways,
            restrict_default_security_group=True,
            subnet_configuration=[
                # Public subnets hold only the NAT gateways (which have their own Elastic IPs).
                ec2.SubnetConfiguration(
                    name=PUBLIC_SUBNETS,
                    subnet_type=ec2.SubnetType.PUBLIC,
                    cidr_mask=24,
                    map_public_ip_on_launch=False,
                ),
                ec2.SubnetConfiguration(
                    name=APP_SUBNETS, subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, cidr_mask=22
                ),
                ec2.SubnetConfiguration(
                    name=DATA_SUBNETS, subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, cidr_mask=24
                ),
            ],
        )
        self._add_flow_logs(config, key, removal_policy)
        for subnet in self.vpc.public_subnets:
            acknowledge(
                subnet,
                (
                    "HIPAA.Security-VPCNoUnrestrictedRouteToIGW",
                    "Public subnets hold only the NAT gateways; their default route to the internet "
                    "gateway is what gives the functions HTTPS egress to OpenAI and PubMed.",
                ),
            )

        self.function_security_group = ec2.SecurityGroup(
            self,
            "FunctionSecurityGroup",
            vpc=self.vpc,
            allow_all_outbound=False,
            # Changing GroupDescription replaces the group (and every function's network interfaces): keep it.
            description="Lambda functions: outbound to AWS endpoints, OpenSearch, and HTTPS egress",
        )
        # Everything the functions call speaks HTTPS: the VPC endpoints, OpenSearch, and through the NAT
        # OpenAI, PubMed, Cognito's JWKS and the WebSocket @connections API. DNS to the VPC resolver is not
        # filtered by security groups.
        self.function_security_group.add_egress_rule(
            ec2.Peer.any_ipv4(), ec2.Port.tcp(443), "HTTPS only: AWS APIs, OpenSearch, OpenAI, PubMed"
        )
        # Functions that call only AWS: VPC endpoints and OpenSearch (the VPC), S3 and DynamoDB (gateways).
        self.internal_security_group = ec2.SecurityGroup(
            self,
            "InternalFunctionSecurityGroup",
            vpc=self.vpc,
            allow_all_outbound=False,
            description="Lambda functions without internet egress: VPC endpoints, OpenSearch, S3, DynamoDB",
        )
        self.internal_security_group.add_egress_rule(
            ec2.Peer.ipv4(self.vpc.vpc_cidr_block), ec2.Port.tcp(443), "VPC endpoints and OpenSearch"
        )
        for name, prefix_list in (
            ("S3", config.network.s3_prefix_list_id),
            ("DynamoDB", config.network.dynamodb_prefix_list_id),
        ):
            self.internal_security_group.add_egress_rule(
                ec2.Peer.prefix_list(prefix_list), ec2.Port.tcp(443), f"{name} through its gateway endpoint"
            )
        DnsFirewall(self, "DnsFirewall", config=config, vpc=self.vpc)
        self.model_security_group = ec2.SecurityGroup(
            self,
            "ModelSecurityGroup",
            vpc=self.vpc,
            allow_all_outbound=False,
            description="SageMaker endpoints: network-isolated containers, no inbound",
        )
        self.model_security_group.add_egress_rule(
            ec2.Peer.ipv4(self.vpc.vpc_cidr_block), ec2.Port.tcp(443), "S3 and ECR over the VPC endpoints"
        )
        # The S3 gateway endpoint routes to S3's public addresses (its prefix list), not to the VPC CIDR.
        self.model_security_group.add_egress_rule(
            ec2.Peer.prefix_list(config.network.s3_prefix_list_id),
            ec2.Port.tcp(443),
            "S3 (model weights) through the gateway endpoint",
        )
        self._add_endpoints(config)

    @property
    def function_security_groups(self) -> tuple[ec2.SecurityGroup, ec2.SecurityGroup]:
        """With internet egress (through the NAT, names limited by the DNS firewall), and without."""
        return self.function_security_group, self.internal_security_group

    @property
    def app_subnets(self) -> ec2.SubnetSelection:
        return ec2.SubnetSelection(subnet_group_name=APP_SUBNETS)

    @property
    def data_subnets(self) -> ec2.SubnetSelection:
        return ec2.SubnetSelection(subnet_group_name=DATA_SUBNETS)

    def _add_flow_logs(self, config: EnvironmentConfig, key: kms.IKey, removal_policy: RemovalPolicy) -> None:
        log_group = encrypted_log_group(
            self, "FlowLogs", key=key, retention_days=config.retention.log_days, removal_policy=removal_policy
        )
        role = iam.Role(self, "FlowLogsRole", assumed_by=iam.ServicePrincipal("vpc-flow-logs.amazonaws.com"))
        self.vpc.add_flow_log(
            "FlowLog",
            destination=ec2.FlowLogDestination.to_cloud_watch_logs(log_group, role),
            traffic_type=ec2.FlowLogTrafficType.ALL,
        )

    def _add_endpoints(self, config: EnvironmentConfig) -> None:
        self.vpc.add_gateway_endpoint("S3", service=ec2.GatewayVpcEndpointAwsService.S3)
        self.vpc.add_gateway_endpoint("DynamoDb", service=ec2.GatewayVpcEndpointAwsService.DYNAMODB)
        endpoint_group = ec2.SecurityGroup(
            self,
            "EndpointSecurityGroup",
            vpc=self.vpc,
            allow_all_outbound=False,
            description="Interface endpoints: HTTPS from the functions only",
        )
        for group in self.function_security_groups:
            endpoint_group.add_ingress_rule(group, ec2.Port.tcp(443), "functions to AWS APIs")
        endpoints = dict(_INTERFACE_ENDPOINTS)
        if config.llm.on_sagemaker or config.embedding.enabled:
            endpoints["SageMakerRuntime"] = ec2.InterfaceVpcEndpointAwsService.SAGEMAKER_RUNTIME
        if config.llm.on_bedrock:
            # Prompts may carry PHI: Bedrock is reached over PrivateLink, never through the NAT (decision 0016).
            endpoints["BedrockRuntime"] = ec2.InterfaceVpcEndpointAwsService.BEDROCK_RUNTIME
        if config.phi_detector is not PhiDetectorKind.PRESIDIO:
            # DetectPHI carries the question's text: keep it off the NAT (docs/phi.md, "Detectors").
            endpoints["ComprehendMedical"] = ec2.InterfaceVpcEndpointAwsService.COMPREHEND_MEDICAL
        zones = config.network.availability_zones[:config.network.endpoint_zones]
        for name, service in endpoints.items():
            self.vpc.add_interface_endpoint(
                name,
                service=service,
                subnets=ec2.SubnetSelection(subnet_group_name=APP_SUBNETS, availability_zones=list(zones)),
                security_groups=[endpoint_group],
                private_dns_enabled=True,
                open=False,
            )
