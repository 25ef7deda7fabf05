"""The local FieldCipher's key: a 256-bit key file (mode 0600) under the data dir, created on first use.

It wraps each value's data key with AES-256-GCM (the envelope format is adapters/aws/envelope_cipher.py), as
KMS does on AWS. Losing the file loses the encrypted fields; it is never written anywhere else.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from voiceassist.adapters.aws.envelope_cipher import EnvelopeCipher
from voiceassist.errors import InvalidInput

KEY_FILE_NAME = "field.key"
_KEY_BYTES = 32
_NONCE_BYTES = 12


def _read_or_create(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(os.urandom(_KEY_BYTES))
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        raise InvalidInput(f"invalid configuration: the key file {path} must be readable by its owner only")
    key = path.read_bytes()
    if len(key) != _KEY_BYTES:
        raise InvalidInput(f"invalid configuration: the key file {path} is not a 256-bit key")
    return key


class KeyFileDataKeys:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._key: bytes | None = None

    def _master(self) -> bytes:
        if self._key is None:
            self._key = _read_or_create(self._path)
        return self._key

    def generate(self, context: str) -> tuple[bytes, bytes]:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        key = os.urandom(_KEY_BYTES)
        nonce = os.urandom(_NONCE_BYTES)
        return key, nonce + AESGCM(self._master()).encrypt(nonce, key, context.encode("utf-8"))

    def unwrap(self, wrapped: bytes, context: str) -> bytes:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        return AESGCM(self._master()).decrypt(wrapped[:_NONCE_BYTES], wrapped[_NONCE_BYTES:], context.encode())


def key_file_cipher(data_dir: Path) -> EnvelopeCipher:
    return EnvelopeCipher(KeyFileDataKeys(data_dir / KEY_FILE_NAME))
