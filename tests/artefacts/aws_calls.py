"""Records the AWS calls a function makes (botocore API calls and OpenSearch HTTP requests), so the packaging
test can compare what each function uses with the grants the catalogue gives it (issue 11)."""

from __future__ import annotations

from typing import Any

calls: list[list[str]] = []


def _resources(params: dict[str, Any]) -> list[str]:
    found = [str(params[name]) for name in ("TableName", "Bucket", "stateMachineArn", "SecretId", "EndpointName",
                                                "KeyId", "executionArn", "modelId", "FunctionName")
             if name in params]
    found += list(params.get("RequestItems", {}))  # BatchGetItem / BatchWriteItem
    for item in params.get("TransactItems", []):
        found += [str(part["TableName"]) for part in item.values() if isinstance(part, dict) and "TableName" in part]
    return found or [""]


def install() -> None:
    """Wrap botocore's API call and opensearch-py's transport (both ship in every artefact)."""
    import botocore.client

    make_api_call = botocore.client.BaseClient._make_api_call

    def recorded(self: Any, operation: str, params: dict[str, Any]) -> Any:
        service = self.meta.service_model.service_name
        calls.extend([service, operation, resource] for resource in _resources(params))
        return make_api_call(self, operation, params)

    botocore.client.BaseClient._make_api_call = recorded  # type: ignore[method-assign]

    from opensearchpy.transport import Transport

    perform = Transport.perform_request

    def recorded_request(self: Any, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(["opensearch", method, url])
        return perform(self, method, url, *args, **kwargs)

    Transport.perform_request = recorded_request  # type: ignore[method-assign]


def drain() -> list[list[str]]:
    taken = list(calls)
    calls.clear()
    return taken
