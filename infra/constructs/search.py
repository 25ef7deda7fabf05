"""The OpenSearch domain: in the VPC's isolated subnets, encrypted at rest and in transit, FGAC.

The domain's master user is an IAM role used only by the bootstrap custom resource (search_bootstrap.py),
which creates the index, its alias, the hybrid search pipeline and the role mapping for the functions.
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_opensearchservice as opensearch
from constructs import Construct

from infra.config import EnvironmentConfig
from infra.constructs.log_groups import encrypted_log_group
from infra.constructs.network import Network
from infra.nag import acknowledge


class Search(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        network: Network,
        key: kms.IKey,
        removal_policy: RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        search = config.search
        self.admin_role = iam.Role(
            self,
            "AdminRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="OpenSearch master user: used only by the index bootstrap custom resource",
        )
        self.security_group = ec2.SecurityGroup(
            self,
            "SecurityGroup",
            vpc=network.vpc,
            allow_all_outbound=False,
            description="OpenSearch: HTTPS from the functions only",
        )
        for group in network.function_security_groups:
            self.security_group.add_ingress_rule(group, ec2.Port.tcp(443), "functions")

        zone_count = len(config.network.availability_zones) if search.zone_awareness else 1
        log_groups = {
            name: encrypted_log_group(
                self,
                f"{name}Logs",
                key=key,
                retention_days=config.retention.log_days,
                removal_policy=removal_policy,
            )
            for name in ("Application", "SlowSearch", "SlowIndex", "Audit")
        }
        self.domain = opensearch.Domain(
            self,
            "SearchDomain",
            domain_name=config.prefix,
            version=opensearch.EngineVersion.open_search(search.engine_version.removeprefix("OpenSearch_")),
            vpc=network.vpc,
            vpc_subnets=[
                ec2.SubnetSelection(
                    subnets=network.vpc.select_subnets(
                        subnet_group_name=network.data_subnets.subnet_group_name
                    ).subnets[:zone_count]
                )
            ],
            security_groups=[self.security_group],
            capacity=opensearch.CapacityConfig(
                data_node_instance_type=search.data_node_type,
                data_nodes=search.data_node_count,
                master_node_instance_type=search.master_node_type,
                master_nodes=search.master_node_count or None,
                multi_az_with_standby_enabled=False,
            ),
            ebs=opensearch.EbsOptions(volume_size=search.volume_gb, volume_type=ec2.EbsDeviceVolumeType.GP3),
            zone_awareness=opensearch.ZoneAwarenessConfig(
                enabled=search.zone_awareness, availability_zone_count=zone_count if zone_count > 1 else None
            ),
            encryption_at_rest=opensearch.EncryptionAtRestOptions(enabled=True, kms_key=key),
            node_to_node_encryption=True,
            enforce_https=True,
            tls_security_policy=opensearch.TLSSecurityPolicy.TLS_1_2_PFS,
            fine_grained_access_control=opensearch.AdvancedSecurityOptions(
                master_user_arn=self.admin_role.role_arn
            ),
            logging=opensearch.LoggingOptions(
                app_log_enabled=True,
                app_log_group=log_groups["Application"],
                slow_search_log_enabled=True,
                slow_search_log_group=log_groups["SlowSearch"],
                slow_index_log_enabled=True,
                slow_index_log_group=log_groups["SlowIndex"],
                audit_log_enabled=True,
                audit_log_group=log_groups["Audit"],
            ),
            # The log-publishing policy is written below as a plain resource (no CDK custom resource).
            suppress_logs_resource_policy=True,
            off_peak_window_enabled=True,
            enable_auto_software_update=True,
            removal_policy=removal_policy,
        )
        self._allow_log_publishing(list(log_groups.values()))
        # Written on the template rather than through `access_policies` (which adds a custom-resource Lambda):
        # IAM principals of this account only; fine-grained access control then maps roles to indices.
        cfn_domain: opensearch.CfnDomain = self.domain.node.default_child  # type: ignore[assignment]
        cfn_domain.access_policies = {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {
                        "AWS": f"arn:{Stack.of(self).partition}:iam::{Stack.of(self).account}:root"
                    },
                    "Action": "es:ESHttp*",
                    "Resource": Stack.of(self).format_arn(
                        service="es", resource="domain", resource_name=f"{config.prefix}/*"
                    ),
                }
            ],
        }
        acknowledge(
            self.domain,
            (
                "AwsSolutions-OS3",
                "The domain has only a VPC endpoint, reachable from the functions' security "
                "group; source-IP conditions do not apply inside a VPC.",
            ),
        )
        if not search.master_node_count:
            acknowledge(
                self.domain,
                (
                    "AwsSolutions-OS4",
                    f"{config.name}: data nodes act as masters to keep a small domain cheap; "
                    "prod runs three dedicated masters.",
                ),
            )
        if not search.zone_awareness:
            acknowledge(
                self.domain,
                (
                    "AwsSolutions-OS7",
                    f"{config.name}: one zone is acceptable outside prod; prod spreads across zones.",
                ),
            )

    @property
    def endpoint(self) -> str:
        return self.domain.domain_endpoint

    def _allow_log_publishing(self, log_groups: list[logs.LogGroup]) -> None:
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": "es.amazonaws.com"},
                    "Action": ["logs:PutLogEvents", "logs:CreateLogStream"],
                    "Resource": [group.log_group_arn for group in log_groups],
                }
            ],
        }
        logs.CfnResourcePolicy(
            self,
            "LogPublishing",
            policy_name=f"{Stack.of(self).stack_name}-opensearch-logs",
            policy_document=Stack.of(self).to_json_string(policy),
        )
        self.domain.node.add_dependency(self.node.find_child("LogPublishing"))
