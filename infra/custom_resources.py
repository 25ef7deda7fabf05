"""Every custom resource answers CloudFormation within a bounded time.

Without `ServiceTimeout`, a custom resource whose function never replies (a crash on import, a network
that cannot reach the response URL) holds the stack for an hour before CloudFormation gives up. This aspect
gives every custom resource in the app, CDK's own included (bucket auto-delete, default security group
restriction), a timeout a little above its function's own.
"""

from __future__ import annotations

import jsii
from aws_cdk import Aspects, CfnResource, IAspect
from constructs import IConstruct

# Seconds CloudFormation waits for a reply: above the longest custom-resource handler, CDK's own included (bucket
# deployment, auto-delete and default security group handlers run up to 900 s; the search bootstrap 300 s), so
# CloudFormation never gives up on a handler still working (tests/infra/test_infra_deployable.py compares).
SERVICE_TIMEOUT_SECONDS = 960
CUSTOM_RESOURCE_TYPE = "AWS::CloudFormation::CustomResource"


def is_custom_resource(resource_type: str) -> bool:
    return resource_type == CUSTOM_RESOURCE_TYPE or resource_type.startswith("Custom::")


@jsii.implements(IAspect)
class BoundedCustomResources:
    def visit(self, node: IConstruct) -> None:
        if isinstance(node, CfnResource) and is_custom_resource(node.cfn_resource_type):
            node.add_property_override("ServiceTimeout", str(SERVICE_TIMEOUT_SECONDS))


def bound_custom_resources(scope: IConstruct) -> None:
    Aspects.of(scope).add(BoundedCustomResources())
