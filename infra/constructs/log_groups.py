"""Every log group of the app: KMS-encrypted with the environment key and kept for the configured period."""

from __future__ import annotations

from aws_cdk import CfnResource, RemovalPolicy, Stack
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

_RETENTION_BY_DAYS: dict[int, logs.RetentionDays] = {
    1: logs.RetentionDays.ONE_DAY,
    3: logs.RetentionDays.THREE_DAYS,
    5: logs.RetentionDays.FIVE_DAYS,
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    60: logs.RetentionDays.TWO_MONTHS,
    90: logs.RetentionDays.THREE_MONTHS,
    120: logs.RetentionDays.FOUR_MONTHS,
    150: logs.RetentionDays.FIVE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
    400: logs.RetentionDays.THIRTEEN_MONTHS,
    545: logs.RetentionDays.EIGHTEEN_MONTHS,
    731: logs.RetentionDays.TWO_YEARS,
    1096: logs.RetentionDays.THREE_YEARS,
    1827: logs.RetentionDays.FIVE_YEARS,
    2192: logs.RetentionDays.SIX_YEARS,
    2557: logs.RetentionDays.SEVEN_YEARS,
    2922: logs.RetentionDays.EIGHT_YEARS,
    3288: logs.RetentionDays.NINE_YEARS,
    3653: logs.RetentionDays.TEN_YEARS,
}


# HIPAA identifiers CloudWatch Logs can recognise: masked in every application log group (reading them
# unmasked needs logs:Unmask), in case a log line ever carries what the app itself never logs on purpose.
PHI_IDENTIFIERS = (
    logs.DataIdentifier.NAME,
    logs.DataIdentifier.ADDRESS,
    logs.DataIdentifier.EMAILADDRESS,
    logs.DataIdentifier.PHONENUMBER_US,
    logs.DataIdentifier.SSN_US,
    logs.DataIdentifier.DRIVERSLICENSE_US,
    logs.DataIdentifier.HEALTHINSURANCECLAIMNUMBER_US,
    logs.DataIdentifier.MEDICAREBENEFICIARYNUMBER_US,
    logs.DataIdentifier.NATIONALPROVIDERID_US,
    logs.DataIdentifier.DRUGENFORCEMENTAGENCYNUMBER_US,
)


def encrypted_log_group(
    scope: Construct,
    construct_id: str,
    *,
    key: kms.IKey,
    retention_days: int,
    removal_policy: RemovalPolicy,
    log_group_name: str | None = None,
    mask_phi: bool = False,
) -> logs.LogGroup:
    return logs.LogGroup(
        scope,
        construct_id,
        log_group_name=log_group_name,
        encryption_key=key,
        retention=_RETENTION_BY_DAYS[retention_days],
        removal_policy=removal_policy,
        data_protection_policy=logs.DataProtectionPolicy(
            identifiers=list(PHI_IDENTIFIERS), name="voiceassist-phi", description="mask HIPAA identifiers"
        )
        if mask_phi
        else None,
    )


def log_cdk_handlers(
    stack: Stack, *, key: kms.IKey, retention_days: int, removal_policy: RemovalPolicy
) -> list[logs.LogGroup]:
    """CDK's own handler functions (the custom-resource providers: bucket auto-delete, default security group
    restriction, the web deployment) name no log group, so Lambda would create `/aws/lambda/<name>` itself on
    their first run: unencrypted and kept forever (checkov's and our review, decision 0030 session 11). Each
    function of the stack without one gets an encrypted log group of the stack, like ours (their roles carry
    AWSLambdaBasicExecutionRole: they may write into it). Call it once the stack is built."""
    added = []
    for node in stack.node.find_all():
        if not isinstance(node, CfnResource) or node.cfn_resource_type != "AWS::Lambda::Function":
            continue
        if isinstance(node, lambda_.CfnFunction) and node.logging_config is not None:
            continue  # ours: FunctionFactory gives each function its log group
        scope = node.node.scope
        assert isinstance(scope, Construct)  # the function's construct (CDK's provider or SingletonFunction)
        log_group = encrypted_log_group(
            scope, f"{node.node.id}Logs", key=key, retention_days=retention_days, removal_policy=removal_policy
        )
        node.add_property_override("LoggingConfig.LogGroup", log_group.log_group_name)
        added.append(log_group)
    return added
