"""cdk-nag on every stack (AwsSolutions and HIPAA Security), and the reviewed ways to acknowledge a finding.

cdk-nag 3 reports through CDK's policy-validation plugins: any unacknowledged finding fails synth. Every
acknowledgment carries a reason and is written into the template's Metadata (`cdk_nag.rules_to_suppress`)
so a security review can read each one next to the resource it concerns.

IAM wildcard findings (AwsSolutions-IAM5) name the resolved resource, so they are acknowledged by an
aspect that matches them against a short list of allowances (each with its reason) after all grants exist.
A `Resource::*` allowance also names the only actions it may cover, which is stricter than cdk-nag itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jsii
from aws_cdk import Acknowledgment, Aspects, IAspect, Stack, Validations
from aws_cdk import aws_iam as iam
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks
from constructs import IConstruct

WILDCARD_RULE = "AwsSolutions-IAM5"


def apply_nag_packs(scope: IConstruct) -> None:
    """Check everything under `scope` (an App or Stage) with both packs at synth."""
    Validations.of(scope).add_plugins(
        AwsSolutionsChecks(scope, write_suppressions_to_cloud_formation=True),
        HIPAASecurityChecks(scope, write_suppressions_to_cloud_formation=True),
    )
    Aspects.of(scope).add(AcknowledgeAllowedWildcards(WILDCARD_ALLOWANCES))
    for stack in (child for child in scope.node.children if isinstance(child, Stack)):
        acknowledge(
            stack,
            (
                "HIPAA.Security-IAMNoInlinePolicy",
                "Each AWS::IAM::Policy here is CDK's per-role grant policy: attached to exactly one role, "
                "created and deleted with it, reviewable in this template (IAM5 checks its wildcards).",
            ),
        )


def acknowledge(construct: IConstruct, *rules: tuple[str, str]) -> None:
    """Acknowledge findings on a construct and everything under it; each rule is (rule id, reason)."""
    for rule_id, reason in rules:
        if not reason.strip():
            raise ValueError(f"acknowledging {rule_id} needs a reason")
    Validations.of(construct).acknowledge(*(Acknowledgment(id=rule, reason=reason) for rule, reason in rules))


@dataclass(frozen=True)
class WildcardAllowance:
    """A wildcard an IAM policy may carry: `finding` full-matches "Action::..." or "Resource::..."."""

    finding: re.Pattern[str]
    reason: str
    # For a Resource finding: every action granted on that resource must be one of these (None: any).
    only_actions: frozenset[str] | None = field(default=None)


def _allow(pattern: str, reason: str, only_actions: Iterable[str] | None = None) -> WildcardAllowance:
    return WildcardAllowance(re.compile(pattern), reason, frozenset(only_actions) if only_actions else None)


_ENI_ACTIONS = (
    "ec2:CreateNetworkInterface",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DeleteNetworkInterface",
    "ec2:AssignPrivateIpAddresses",
    "ec2:UnassignPrivateIpAddresses",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeVpcs",
    "ec2:DescribeDhcpOptions",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterfacePermission",
)
_LOG_DELIVERY_ACTIONS = (
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
    "logs:DescribeLogGroups",
)

WILDCARD_ALLOWANCES: tuple[WildcardAllowance, ...] = (
    _allow(
        r"Action::s3:(GetObject|GetBucket|List|DeleteObject|Abort|PutObject)\*",
        "CDK bucket grants name S3 actions by family (GetObject*, List*, ...); each is scoped to one bucket.",
    ),
    _allow(
        r"Action::kms:(GenerateDataKey|ReEncrypt)\*",
        "KMS grants for the environment key; data keys are generated per object and per item.",
    ),
    _allow(
        r"Resource::<[A-Za-z0-9]*(Documents|ModelArtifacts|AuditAnchors)[A-Za-z0-9]*\.Arn>/(\*|[A-Za-z0-9._/-]+/\*)",
        "Objects inside one bucket (or one prefix of it); object keys are per document, model file or audit "
        "anchor.",
    ),
    _allow(
        r"Resource::<[A-Za-z0-9]*Table[A-Za-z0-9]*\.Arn>/index/\*",
        "The table's global secondary indexes, listed in voiceassist.adapters.aws.dynamodb_tables.",
    ),
    _allow(
        r"Resource::<[A-Za-z0-9]*SearchDomain[A-Za-z0-9]*\.Arn>/\*",
        "HTTP paths of the one OpenSearch domain; fine-grained access control maps each role to the "
        "voiceassist indices only.",
    ),
    _allow(
        r"Resource::arn:(aws|<AWS::Partition>):s3:::voiceassist-[a-z]+-models-\d{12}-[a-z0-9-]+/"
        r"[A-Za-z0-9._/-]+/\*",
        "Model weights under the endpoint's own prefix of the model-artifacts bucket.",
    ),
    _allow(
        r"Resource::arn:aws[a-z-]*:logs:[a-z0-9-]+:\d{12}:log-group:/aws/sagemaker/Endpoints/[a-z0-9-]+:\*",
        "The endpoint's own log group; SageMaker names its streams per instance.",
    ),
    _allow(
        r"Resource::<[A-Za-z0-9]*Function[A-Za-z0-9]*\.Arn>:\*",
        "Versions and aliases of a function the workflow invokes (CDK grants both forms).",
    ),
    _allow(
        r"Resource::arn:(aws[a-z-]*|<AWS::Partition>):execute-api:([a-z0-9-]+|<AWS::Region>):"
        r"(\d{12}|<AWS::AccountId>):<[A-Za-z0-9]*WebSocketApi[A-Za-z0-9]*>/[A-Za-z0-9_-]+/POST/@connections/\*",
        "Posting to WebSocket connections of this API's stage; connection ids are created per client.",
    ),
    _allow(
        r"Resource::arn:(aws[a-z-]*|<AWS::Partition>):states:([a-z0-9-]+|<AWS::Region>):(\d{12}|<AWS::AccountId>):"
        r"execution:\{.*PipelinesIngest[A-Za-z0-9]*.*\}:\*",
        "Executions of the ingest workflow (named per job attempt): the reconciler describes them.",
        only_actions=("states:DescribeExecution",),
    ),
    _allow(
        r"Resource::arn:(aws[a-z-]*|<AWS::Partition>):secretsmanager:([a-z0-9-]+|<AWS::Region>):"
        r"(\d{12}|<AWS::AccountId>):secret:voiceassist-[a-z]+/workspace/\*",
        "The workspace tools' per-user account secrets, one per person (<prefix><user id>) put by operators: "
        "the function reads the caller's own (docs/tools.md 'Workspace').",
        only_actions=("secretsmanager:GetSecretValue",),
    ),
    _allow(
        r"Resource::arn:(aws[a-z-]*|<AWS::Partition>):transcribe:([a-z0-9-]+|<AWS::Region>):"
        r"(\d{12}|<AWS::AccountId>):medical-transcription-job/voiceassist-\*",
        "Transcribe Medical jobs the voice routes start, one per recording, named voiceassist-<random>: read and "
        "deleted by name.",
        only_actions=("transcribe:GetMedicalTranscriptionJob", "transcribe:DeleteMedicalTranscriptionJob"),
    ),
    _allow(
        r"Resource::<StorageVoice[A-Za-z0-9]*\.Arn>/voice/\*",
        "The voice bucket's transient prefix: one recording and one transcript per job, deleted after it.",
        only_actions=("s3:PutObject", "s3:GetObject", "s3:DeleteObject"),
    ),
    _allow(
        r"Resource::\*",
        "X-Ray segments, VPC network interfaces, CloudWatch metrics (written and read), ECR auth, log-delivery "
        "setup and "
        "Textract text detection jobs, Comprehend Medical DetectPHI, Polly SynthesizeSpeech (without "
        "lexicons) and Transcribe StartMedicalTranscriptionJob (pinned by its condition keys to the voice bucket, "
        "prefix and key) have no resource-level permissions; "
        "only those actions are granted on '*'.",
        only_actions=(
            "xray:PutTraceSegments",
            "xray:PutTelemetryRecords",
            "xray:GetSamplingRules",
            "xray:GetSamplingTargets",
            "cloudwatch:PutMetricData",
            "cloudwatch:ListMetrics",
            "cloudwatch:GetMetricData",
            "ecr:GetAuthorizationToken",
            "textract:StartDocumentTextDetection",
            "textract:GetDocumentTextDetection",
            "comprehendmedical:DetectPHI",
            "polly:SynthesizeSpeech",
            "transcribe:StartMedicalTranscriptionJob",
            *_ENI_ACTIONS,
            *_LOG_DELIVERY_ACTIONS,
        ),
    ),
)


@jsii.implements(IAspect)
class AcknowledgeAllowedWildcards:
    """Acknowledge the IAM5 findings that an allowance covers; anything else stays a violation."""

    def __init__(self, allowances: Iterable[WildcardAllowance]) -> None:
        self._allowances = tuple(allowances)

    def visit(self, node: IConstruct) -> None:
        document = _policy_document(node)
        if document is None:
            return
        for finding, actions in wildcard_findings(document).items():
            allowance = self._covering(finding, actions)
            if allowance is not None:
                acknowledge(node, (f"{WILDCARD_RULE}[{finding}]", allowance.reason))

    def _covering(self, finding: str, actions: frozenset[str]) -> WildcardAllowance | None:
        for allowance in self._allowances:
            if not allowance.finding.fullmatch(finding):
                continue
            if allowance.only_actions is None or actions <= allowance.only_actions:
                return allowance
        return None


def _policy_document(node: IConstruct) -> dict[str, Any] | None:
    if isinstance(node, iam.CfnPolicy | iam.CfnManagedPolicy):
        resolved: dict[str, Any] = Stack.of(node).resolve(node.policy_document)
        return resolved
    return None


def wildcard_findings(document: dict[str, Any]) -> dict[str, frozenset[str]]:
    """cdk-nag's IAM5 findings of a resolved policy document, each with the actions granted alongside it."""
    findings: dict[str, set[str]] = {}
    for statement in document.get("Statement", []):
        if statement.get("Effect") != "Allow":
            continue
        actions = set(_as_list(statement.get("Action")))
        for action in actions:
            if "*" in action:
                findings.setdefault(f"Action::{action}", set()).add(action)
        for resource in _as_list(statement.get("Resource")):
            flat = flatten_reference(resource)
            if "*" in flat:
                findings.setdefault(f"Resource::{flat}", set()).update(actions)
    return {finding: frozenset(actions) for finding, actions in findings.items()}


def flatten_reference(reference: Any) -> str:
    """The string cdk-nag prints for a CloudFormation reference (mirrors its flattenCfnReference)."""
    if reference is None:
        return ""
    if isinstance(reference, str):
        return reference.replace("${", "<").replace("}", ">")
    if isinstance(reference, dict):
        if "Fn::Join" in reference:
            delimiter, items = reference["Fn::Join"]
            return str(delimiter).join(flatten_reference(item) for item in items)
        if "Fn::Sub" in reference:
            return flatten_reference(reference["Fn::Sub"])
        if "Fn::GetAtt" in reference:
            resource, attribute = reference["Fn::GetAtt"]
            return f"<{flatten_reference(resource)}.{flatten_reference(attribute)}>"
        if "Fn::ImportValue" in reference:
            return flatten_reference(reference["Fn::ImportValue"])
        if "Ref" in reference:
            return f"<{flatten_reference(reference['Ref'])}>"
    return json.dumps(reference, separators=(",", ":"))


def _as_list(value: Any) -> Iterator[Any]:
    if value is None:
        return iter(())
    return iter(value if isinstance(value, list) else [value])
