"""EventPublisher on API Gateway's WebSocket management API (post_to_connection)."""

from __future__ import annotations

import json
import threading
from typing import Any

from voiceassist.errors import DependencyError, NotFound


class ApiGatewayEventPublisher:
    def __init__(self, endpoint_url: str, *, client: Any = None, region_name: str | None = None) -> None:
        self.endpoint_url = endpoint_url
        self._client = client
        self._region_name = region_name
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3

                self._client = boto3.client("apigatewaymanagementapi", endpoint_url=self.endpoint_url,
                                            region_name=self._region_name)
            return self._client

    def publish(self, connection_id: str, event: dict[str, Any]) -> None:
        from botocore.exceptions import ClientError

        try:
            self.client.post_to_connection(ConnectionId=connection_id,
                                           Data=json.dumps(event, default=str).encode("utf-8"))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "GoneException":
                raise NotFound(f"connection {connection_id} is gone") from None
            raise DependencyError(f"could not post to connection {connection_id}") from None
