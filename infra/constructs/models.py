"""In-boundary SageMaker endpoints: Llama 3.1 8B (LMI/vLLM) and, optionally, an embedding model.

Weights come from the environment's model-artifacts bucket (uncompressed, under a prefix); containers run
with network isolation inside the VPC's isolated subnets, so PHI prompts never leave the boundary.
"""

from __future__ import annotations

from aws_cdk import ArnFormat, Aws, Stack
from aws_cdk import aws_applicationautoscaling as autoscaling
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

from infra.config import LlmConfig
from infra.nag import acknowledge

VARIANT = "AllTraffic"
# Instance families with local NVMe storage: SageMaker encrypts it in hardware and rejects a KmsKeyId.
_NVME_FAMILIES = (
    "ml.g4dn",
    "ml.g5",
    "ml.g6",
    "ml.g6e",
    "ml.p3dn",
    "ml.p4d",
    "ml.p4de",
    "ml.p5",
    "ml.m5d",
    "ml.c5d",
    "ml.r5d",
    "ml.inf2",
    "ml.trn1",
)


def has_instance_storage(instance_type: str) -> bool:
    return instance_type.rsplit(".", 1)[0] in _NVME_FAMILIES


class ModelEndpoint(Construct):
    """One model, its endpoint configuration and endpoint, with a least-privilege execution role."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        image_uri: str,
        instance_type: str,
        initial_instance_count: int,
        artifacts_bucket_name: str,
        model_data_prefix: str,
        environment: dict[str, str],
        vpc: ec2.IVpc,
        subnets: ec2.SubnetSelection,
        security_group: ec2.ISecurityGroup,
        key: kms.IKey,
    ) -> None:
        super().__init__(scope, construct_id)
        self.endpoint_name = endpoint_name
        role = self._execution_role(endpoint_name, image_uri, artifacts_bucket_name, model_data_prefix, key)
        model = sagemaker.CfnModel(
            self,
            "Model",
            execution_role_arn=role.role_arn,
            enable_network_isolation=True,
            vpc_config=sagemaker.CfnModel.VpcConfigProperty(
                security_group_ids=[security_group.security_group_id],
                subnets=vpc.select_subnets(subnet_group_name=subnets.subnet_group_name).subnet_ids,
            ),
            primary_container=sagemaker.CfnModel.ContainerDefinitionProperty(
                image=image_uri,
                environment=environment,
                model_data_source=sagemaker.CfnModel.ModelDataSourceProperty(
                    s3_data_source=sagemaker.CfnModel.S3DataSourceProperty(
                        s3_uri=f"s3://{artifacts_bucket_name}/{model_data_prefix}",
                        s3_data_type="S3Prefix",
                        compression_type="None",
                    )
                ),
            ),
        )
        model.node.add_dependency(role)
        config = sagemaker.CfnEndpointConfig(
            self,
            "Config",
            kms_key_id=None if has_instance_storage(instance_type) else key.key_arn,
            production_variants=[
                sagemaker.CfnEndpointConfig.ProductionVariantProperty(
                    variant_name=VARIANT,
                    model_name=model.attr_model_name,
                    instance_type=instance_type,
                    initial_instance_count=initial_instance_count,
                    container_startup_health_check_timeout_in_seconds=900,
                    model_data_download_timeout_in_seconds=1200,
                )
            ],
        )
        if has_instance_storage(instance_type):
            reason = (
                f"{instance_type} has local NVMe storage, which SageMaker encrypts in hardware "
                "(XTS-AES-256) and for which it rejects a KmsKeyId."
            )
            acknowledge(
                config,
                ("AwsSolutions-SM2", reason),
                ("HIPAA.Security-SageMakerEndpointConfigurationKMSKeyConfigured", reason),
            )
        self.endpoint = sagemaker.CfnEndpoint(
            self,
            "Endpoint",
            endpoint_name=endpoint_name,
            endpoint_config_name=config.attr_endpoint_config_name,
        )

    def _execution_role(
        self, endpoint_name: str, image_uri: str, bucket_name: str, prefix: str, key: kms.IKey
    ) -> iam.Role:
        stack = Stack.of(self)
        repository_account, _, _, region = image_uri.split(".")[:4]
        repository = image_uri.split("/", 1)[1].split(":", 1)[0]
        role = iam.Role(self, "ExecutionRole", assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"))
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["s3:GetObject"], resources=[f"arn:{Aws.PARTITION}:s3:::{bucket_name}/{prefix}*"]
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["s3:ListBucket"],
                resources=[f"arn:{Aws.PARTITION}:s3:::{bucket_name}"],
                conditions={"StringLike": {"s3:prefix": [f"{prefix}*"]}},
            )
        )
        key.grant_decrypt(role)
        role.add_to_policy(
            iam.PolicyStatement(
                actions=[
                    "ecr:BatchGetImage",
                    "ecr:GetDownloadUrlForLayer",
                    "ecr:BatchCheckLayerAvailability",
                ],
                resources=[f"arn:{Aws.PARTITION}:ecr:{region}:{repository_account}:repository/{repository}"],
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=[
                    "ecr:GetAuthorizationToken",
                    "cloudwatch:PutMetricData",
                    "ec2:CreateNetworkInterface",
                    "ec2:CreateNetworkInterfacePermission",
                    "ec2:DeleteNetworkInterface",
                    "ec2:DeleteNetworkInterfacePermission",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeVpcs",
                    "ec2:DescribeDhcpOptions",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeSecurityGroups",
                ],
                resources=["*"],
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=[
                    "logs:CreateLogGroup",
                    "logs:CreateLogStream",
                    "logs:PutLogEvents",
                    "logs:DescribeLogStreams",
                ],
                resources=[
                    stack.format_arn(
                        service="logs",
                        resource="log-group",
                        resource_name=f"/aws/sagemaker/Endpoints/{endpoint_name}:*",
                        arn_format=ArnFormat.COLON_RESOURCE_NAME,
                    )
                ],
            )
        )
        return role


class EndpointAutoscaling(Construct):
    """Target tracking on invocations per instance, plus an optional off-hours schedule."""

    def __init__(
        self, scope: Construct, construct_id: str, *, endpoint: ModelEndpoint, llm: LlmConfig
    ) -> None:
        super().__init__(scope, construct_id)
        scheduled_actions = []
        if llm.scale_down is not None:
            off_hours = llm.scale_down.off_hours_capacity
            scheduled_actions = [
                autoscaling.CfnScalableTarget.ScheduledActionProperty(
                    scheduled_action_name="off-hours",
                    schedule=llm.scale_down.scale_down_cron,
                    scalable_target_action=autoscaling.CfnScalableTarget.ScalableTargetActionProperty(
                        min_capacity=off_hours, max_capacity=off_hours
                    ),
                ),
                autoscaling.CfnScalableTarget.ScheduledActionProperty(
                    scheduled_action_name="working-hours",
                    schedule=llm.scale_down.scale_up_cron,
                    scalable_target_action=autoscaling.CfnScalableTarget.ScalableTargetActionProperty(
                        min_capacity=llm.min_capacity, max_capacity=llm.max_capacity
                    ),
                ),
            ]
        target = autoscaling.CfnScalableTarget(
            self,
            "Target",
            service_namespace="sagemaker",
            resource_id=f"endpoint/{endpoint.endpoint_name}/variant/{VARIANT}",
            scalable_dimension="sagemaker:variant:DesiredInstanceCount",
            min_capacity=llm.min_capacity,
            max_capacity=llm.max_capacity,
            scheduled_actions=scheduled_actions or None,
        )
        target.add_resource_dependency(endpoint.endpoint)
        tracking = autoscaling.CfnScalingPolicy
        policy = tracking(
            self,
            "InvocationsPerInstance",
            policy_name=f"{endpoint.endpoint_name}-invocations",
            policy_type="TargetTrackingScaling",
            scaling_target_id=target.ref,
            target_tracking_scaling_policy_configuration=tracking.TargetTrackingScalingPolicyConfigurationProperty(
                target_value=llm.invocations_per_instance,
                predefined_metric_specification=tracking.PredefinedMetricSpecificationProperty(
                    predefined_metric_type="SageMakerVariantInvocationsPerInstance"
                ),
                scale_in_cooldown=600,
                scale_out_cooldown=120,
            ),
        )
        policy.add_resource_dependency(target)
