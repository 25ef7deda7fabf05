"""BlobStore on a folder: keys are relative paths under the root, metadata in sidecar JSON files.

The object `a/b.pdf` is the file `<root>/a/b.pdf`, so a person can browse and drop documents; its
metadata (JSON) sits in `<root>/.meta/a/b.pdf`, a tree of its own shaped like the objects' tree, so a
sidecar can never clash with an object nor with another sidecar. Writes go to a temporary file renamed
into place, so a reader never sees half an object.

The key and metadata rules are S3's (and S3BlobStore applies the same ones), so a key or a metadata entry
that works locally also works on AWS.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from pathlib import Path

from voiceassist.adapters.local.atomic_file import write_atomically
from voiceassist.errors import Conflict, InvalidInput, NotFound

METADATA_DIR = ".meta"
MAX_KEY_BYTES = 1024  # S3's limit
MAX_METADATA_BYTES = 2048  # S3's limit on user metadata (names and values together)
_METADATA_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
_PRINTABLE_ASCII = re.compile(r"^[\x20-\x7e]*$")


def validate_blob_key(key: str) -> str:
    """A relative path of non-empty segments without `.`/`..`; raises InvalidInput otherwise."""
    if not key or len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise InvalidInput(f"a blob key must be 1 to {MAX_KEY_BYTES} bytes long (got {len(key.encode())})")
    if key.startswith("/") or "\x00" in key:
        raise InvalidInput(f"blob key {key!r} must be a relative path without NUL characters")
    segments = key.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise InvalidInput(f"blob key {key!r} must not contain empty, '.' or '..' path segments")
    if segments[0] == METADATA_DIR:
        raise InvalidInput(f"blob keys under {METADATA_DIR}/ are reserved for metadata")
    return key


def normalise_metadata(metadata: Mapping[str, str] | None) -> dict[str, str]:
    """User metadata as S3 keeps it: lower-case names, printable-ASCII values, 2 KB in all."""
    normalised: dict[str, str] = {}
    for name, value in (metadata or {}).items():
        if not _METADATA_NAME.match(name):
            raise InvalidInput(f"metadata name {name!r} may hold only letters, digits, '.', '_' and '-'")
        if not isinstance(value, str) or not _PRINTABLE_ASCII.match(value):
            raise InvalidInput(
                f"metadata {name!r} must be printable ASCII text (percent-encode anything else)"
            )
        normalised[name.lower()] = value
    size = sum(len(name) + len(value) for name, value in normalised.items())
    if size > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata takes {size} bytes; the limit is {MAX_METADATA_BYTES}")
    return normalised


class FolderBlobStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream",
            metadata: dict[str, str] | None = None) -> None:
        path = self._path(key)
        sidecar = {"content_type": content_type, "metadata": normalise_metadata(metadata)}
        try:
            write_atomically(path, data)
            write_atomically(self._sidecar(key), json.dumps(sidecar).encode("utf-8"))
        except (NotADirectoryError, FileExistsError, IsADirectoryError) as exc:
            raise Conflict(f"blob key {key!r} clashes with a stored key that is a folder of it, or under it"
                           ) from exc

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
            raise NotFound(f"blob {key!r} does not exist") from exc

    def head(self, key: str) -> dict[str, str]:
        if not self.exists(key):
            raise NotFound(f"blob {key!r} does not exist")
        try:
            sidecar = json.loads(self._sidecar(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError):
            return {}  # a file a person dropped into the folder has no metadata
        metadata: dict[str, str] = sidecar["metadata"]
        return metadata

    def delete(self, key: str) -> None:
        for path in (self._path(key), self._sidecar(key)):
            # A path through a file, or a folder, is no object by that key: deleting it is already done.
            with contextlib.suppress(NotADirectoryError, IsADirectoryError):
                path.unlink(missing_ok=True)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def _path(self, key: str) -> Path:
        return self.root / validate_blob_key(key)

    def _sidecar(self, key: str) -> Path:
        return self.root / METADATA_DIR / validate_blob_key(key)

