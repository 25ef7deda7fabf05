"""FieldCipher by envelope encryption: each value gets a fresh AES-256-GCM data key, stored wrapped beside it.

On AWS, KMS generates and unwraps the data keys under the environment key (GenerateDataKey / Decrypt, with the
record's id as the encryption context, so CloudTrail names the record each unwrap was for). Locally a key file
wraps them (adapters/local/key_file_cipher.py). The token is `enc1.<wrapped key>.<nonce + ciphertext>`
(URL-safe base64); the record's id is also the GCM associated data, so a token moved to another record fails.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from typing import Any, Protocol

from voiceassist.errors import DependencyError, InvalidInput

PREFIX = "enc1"
_NONCE_BYTES = 12


class DataKeys(Protocol):
    def generate(self, context: str) -> tuple[bytes, bytes]:
        """A new data key: (plaintext key, wrapped key)."""
        ...

    def unwrap(self, wrapped: bytes, context: str) -> bytes: ...


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def is_token(value: str) -> bool:
    return value.startswith(PREFIX + ".")


class EnvelopeCipher:
    def __init__(self, keys: DataKeys) -> None:
        self._keys = keys

    def encrypt(self, plaintext: str, *, context: str) -> str:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        key, wrapped = self._keys.generate(context)
        nonce = os.urandom(_NONCE_BYTES)
        sealed = AESGCM(key).encrypt(nonce, plaintext.encode("utf-8"), context.encode("utf-8"))
        return f"{PREFIX}.{_b64(wrapped)}.{_b64(nonce + sealed)}"

    def decrypt(self, token: str, *, context: str) -> str:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        try:
            prefix, wrapped, sealed = token.split(".")
            if prefix != PREFIX:
                raise ValueError(prefix)
            body = _unb64(sealed)
            key = self._keys.unwrap(_unb64(wrapped), context)
            return AESGCM(key).decrypt(body[:_NONCE_BYTES], body[_NONCE_BYTES:], context.encode("utf-8")).decode()
        except (ValueError, InvalidTag) as exc:
            raise InvalidInput("an encrypted field does not decrypt for its record") from exc


class KmsDataKeys:
    """Data keys from KMS under the environment key (the key id or ARN from settings.data_key_id)."""

    def __init__(self, key_id: str, *, client: Any = None, region_name: str | None = None) -> None:
        if client is None:
            import boto3

            client = boto3.client("kms", region_name=region_name)
        self._client = client
        self._key_id = key_id

    @staticmethod
    def _context(context: str) -> Mapping[str, str]:
        return {"voiceassist:record": context}

    def generate(self, context: str) -> tuple[bytes, bytes]:
        reply = self._call("generate_data_key", KeyId=self._key_id, KeySpec="AES_256",
                           EncryptionContext=self._context(context))
        return reply["Plaintext"], reply["CiphertextBlob"]

    def unwrap(self, wrapped: bytes, context: str) -> bytes:
        reply = self._call("decrypt", CiphertextBlob=wrapped, KeyId=self._key_id,
                           EncryptionContext=self._context(context))
        return bytes(reply["Plaintext"])

    def _call(self, operation: str, **arguments: Any) -> Any:
        """KMS unavailable (or refusing) is a DependencyError (502, fail closed): nothing is stored unencrypted, and a
        value that cannot be unwrapped is never returned in any form."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return getattr(self._client, operation)(**arguments)
        except (BotoCoreError, ClientError) as exc:
            raise DependencyError(f"the key service could not {operation.replace('_', ' ')}: "
                                  f"{type(exc).__name__}") from exc


def seal_field(cipher: Any, fields: dict[str, Any], name: str, context: str) -> dict[str, Any]:
    """A copy of `fields` with `name` encrypted (None stays None); `cipher` None leaves it as is."""
    value = fields.get(name)
    if cipher is None or value is None:
        return fields
    return {**fields, name: cipher.encrypt(value, context=context)}


def open_field(cipher: Any, fields: dict[str, Any], name: str, context: str) -> dict[str, Any]:
    """The inverse of seal_field. A value written before encryption was on (no token prefix) reads as is."""
    value = fields.get(name)
    if not isinstance(value, str) or not is_token(value):
        return fields
    if cipher is None:
        raise InvalidInput("an encrypted field was read by a store without a cipher")
    return {**fields, name: cipher.decrypt(value, context=context)}
