"""CloudFormation custom resource: make the OpenSearch domain ready for the app.

Runs as the domain's master user. The OpenSearch adapter creates what the app reads and writes
(OpenSearchIndex.bootstrap: pipeline, first physical index behind the alias; idempotent); then the
functions' IAM roles are mapped to two fine-grained security roles limited to the app's indices.
Delete does nothing: the data goes (or stays) with the domain's own removal policy.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from voiceassist.observability import log_failure, logger

READER_ROLE = "voiceassist_reader"
WRITER_ROLE = "voiceassist_writer"
# OpenSearch Security checks each transport action either as a cluster permission or against the index
# (privileges/Utils.java isClusterPerm: `cluster:*`, and the multi-index requests such as
# `indices:data/write/bulk` itself); docs/decisions/0030-deployable-on-aws-rules.md names the sources.
_READ_CLUSTER = ["cluster_composite_ops_ro", "cluster:admin/search/pipeline/get"]
_READ_ACTIONS = ["read", "search", "indices:admin/get", "indices:admin/aliases/get"]
# _bulk is a cluster permission (its items are then checked per index: indices:data/write/bulk[s], .../index)
_WRITE_CLUSTER = [*_READ_CLUSTER, "indices:data/write/bulk"]
_WRITE_ACTIONS = [
    *_READ_ACTIONS,
    "crud",
    "create_index",
    "manage_aliases",
    "indices:admin/mapping/put",
    "indices:admin/refresh*",  # activate() refreshes before its _update_by_query; ?refresh=true refreshes after
    "indices:data/write/bulk*",
    "indices:data/write/update/byquery",
    "indices:data/write/delete/byquery",
]


def role_definitions(index_alias: str) -> dict[str, dict[str, Any]]:
    """The two fine-grained roles (the Security REST API's role bodies), limited to the app's indices."""
    pattern = f"{index_alias}*"
    return {
        role: {"cluster_permissions": cluster,
               "index_permissions": [{"index_patterns": [pattern], "allowed_actions": actions}]}
        for role, cluster, actions in ((READER_ROLE, _READ_CLUSTER, _READ_ACTIONS),
                                       (WRITER_ROLE, _WRITE_CLUSTER, _WRITE_ACTIONS))
    }


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: Any) -> None:
    properties = event["ResourceProperties"]
    physical_id = event.get("PhysicalResourceId") or f"{properties['Endpoint']}/{properties['IndexAlias']}"
    status, reason = "SUCCESS", "ready"
    try:
        if event["RequestType"] in ("Create", "Update"):
            prepare_domain(properties)
    except Exception as exc:  # CloudFormation waits an hour for a reply that never comes otherwise
        log_failure("search bootstrap failed", exc)
        status, reason = (
            "FAILED",
            f"{type(exc).__name__}: see the function's log stream {context.log_stream_name}",
        )
    send_response(event, status=status, reason=reason, physical_id=physical_id)


def prepare_domain(properties: dict[str, Any]) -> None:
    from voiceassist.adapters.aws.opensearch_index import OpenSearchIndex

    index = OpenSearchIndex(
        endpoint=properties["Endpoint"],
        index_alias=properties["IndexAlias"],
        pipeline=properties["PipelineName"],
        region=properties["Region"],
        dimension=int(properties["Dimension"]),
        embedding_model=properties.get("EmbeddingModel"),
    )
    index.bootstrap()
    client = index.client  # the same SigV4-signed client (the function's role is the domain's master user)
    roles = role_definitions(properties["IndexAlias"])
    for role, backend_roles in ((READER_ROLE, properties["ReaderRoleArns"]),
                                (WRITER_ROLE, properties["WriterRoleArns"])):
        client.transport.perform_request("PUT", f"/_plugins/_security/api/roles/{role}", body=roles[role])
        client.transport.perform_request(
            "PUT",
            f"/_plugins/_security/api/rolesmapping/{role}",
            body={
                "backend_roles": sorted(backend_roles),
            },
        )
    logger.info("search domain ready", extra={"alias": properties["IndexAlias"]})


def send_response(event: dict[str, Any], *, status: str, reason: str, physical_id: str) -> None:
    """PUT the result to CloudFormation's pre-signed URL (the protocol of Lambda-backed custom resources)."""
    body = json.dumps(
        {
            "Status": status,
            "Reason": reason,
            "PhysicalResourceId": physical_id,
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
            "Data": {},
        }
    ).encode("utf-8")
    request = urllib.request.Request(
        event["ResponseURL"],
        data=body,
        method="PUT",
        headers={"Content-Type": "", "Content-Length": str(len(body))},
    )
    with urllib.request.urlopen(request, timeout=30):  # noqa: S310 - the URL is CloudFormation's own
        pass
