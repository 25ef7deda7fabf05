"""One person's workspace accounts (tools/workspace.py) from their own Secrets Manager secret."""

from __future__ import annotations


def read_secret_string(name: str, region: str) -> str | None:
    """The secret's string, or None when the person has no secret (their tools report "not configured")."""
    import boto3

    client = boto3.client("secretsmanager", region_name=region)
    try:
        value = client.get_secret_value(SecretId=name)
    except client.exceptions.ResourceNotFoundException:
        return None
    return str(value.get("SecretString") or "") or None
