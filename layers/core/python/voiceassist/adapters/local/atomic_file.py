"""Replace a file's content all at once: a reader (or a crash) sees the old bytes or the new, never half."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes, *, flush_to_disk: bool = True) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, then rename it over `path`.

    `flush_to_disk=False` leaves out the fsync: the rename is still all-or-nothing for readers and for a crashed
    process (the bytes are in the page cache), not for a power loss, which may leave the old bytes (never half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            if flush_to_disk:
                os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
