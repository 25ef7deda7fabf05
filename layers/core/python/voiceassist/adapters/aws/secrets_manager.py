"""Third-party API keys from Secrets Manager: read once per container, never from environment variables.

A key secret holds `{"api_key": "..."}` (the shape infra creates; an empty key until an operator puts one)
or the bare key.
"""

from __future__ import annotations

import json
from functools import lru_cache


@lru_cache(maxsize=8)
def secret_api_key(secret_arn: str, region: str) -> str | None:
    """The key in the secret, or None when it holds none yet."""
    import boto3

    value = boto3.client("secretsmanager", region_name=region).get_secret_value(SecretId=secret_arn)
    return api_key_in(str(value.get("SecretString") or ""))


def api_key_in(secret: str) -> str | None:
    """The key in a secret's string: `{"api_key": "..."}` or the bare key; None for an empty one."""
    try:
        value = json.loads(secret)
    except ValueError:
        return secret.strip() or None
    if isinstance(value, dict):
        return str(value.get("api_key") or "").strip() or None
    return secret.strip() or None
