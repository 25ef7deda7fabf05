"""A DynamoDB table that is down, throttled or unreachable, raised as StoreUnavailable.

botocore raises these as a ClientError (ProvisionedThroughputExceededException, ThrottlingException, ...) or a
connection error once its own retries are spent. Left as they are, they reach the API as a 500, and the state
machines as an unnamed "ClientError" that no Retry or error mapping can tell from a bug. As StoreUnavailable,
the API answers 503 with Retry-After (routes/errors.py), and the query pipeline's failure names the store
(service.answer maps it back). Every other ClientError (a failed condition, a cancelled transaction) is left
as it is: the adapters handle those themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

from voiceassist.errors import StoreUnavailable

OUTAGE_CODES = frozenset({
    "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
    "ServiceUnavailable", "InternalServerError", "TransactionInProgressException",
})
_PASS_THROUGH = frozenset({"get_paginator", "get_waiter", "can_paginate", "close"})


class OutagesAsStoreUnavailable:
    """The DynamoDB client, each operation raising StoreUnavailable for an outage (the cause stays chained)."""

    def __init__(self, client: Any, table_name: str) -> None:
        self.client = client
        self.table_name = table_name

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.client, name)
        if name.startswith("_") or name in _PASS_THROUGH or not callable(attribute):
            return attribute
        return self._mapped(name, attribute)

    def _mapped(self, operation: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def mapped(*args: Any, **kwargs: Any) -> Any:
            try:
                return call(*args, **kwargs)
            except ClientError as exc:
                code = str(exc.response.get("Error", {}).get("Code", ""))
                if code not in OUTAGE_CODES:
                    raise
                raise StoreUnavailable(f"the DynamoDB table {self.table_name} is unavailable ({code} on "
                                       f"{operation}); try again") from exc
            except (ConnectionError, HTTPClientError) as exc:
                raise StoreUnavailable(f"the DynamoDB table {self.table_name} could not be reached "
                                       f"({type(exc).__name__}); try again") from exc

        return mapped
