"""Read a file of the incoming folder as it was checked: opened once, checked by its descriptor, read from it.

A check by name followed by a read by name (lstat, then read_bytes) reads whatever the name points to at the
second moment: a file swapped for a symlink in between has the link's target read. Here every component of
the path is opened relative to its parent's descriptor with O_NOFOLLOW (a symlink anywhere on the way is
refused, so the file is inside the folder), the file itself without blocking (a FIFO cannot hang the
watcher), the opened descriptor is checked with fstat (a regular file, one link, a size within the limit)
and the bytes are read from that descriptor. A hard link is refused: it is the same file as one elsewhere (a
link to a file the server's user can read but the person dropping it could not).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_CHUNK = 1024 * 1024


class Refused(Exception):  # noqa: N818 - a verdict, not a failure of the reader
    """The file is not read: the reason says why (it names no file: a file name may hold PHI)."""


@dataclass(frozen=True)
class CheckedFile:
    data: bytes
    device: int
    inode: int
    size: int
    mtime_ns: int

    def is_same_file(self, status: os.stat_result) -> bool:
        """Whether `status` (an lstat of the name) is still the file that was read, unchanged."""
        return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns) == (
            self.device, self.inode, self.size, self.mtime_ns)


def read_checked(folder: Path, relative: str, *, max_bytes: int) -> CheckedFile:
    """The bytes of `folder/relative`, read from the one descriptor that passed the checks; raises Refused."""
    parts = PurePosixPath(relative).parts
    if not parts or any(part in ("", ".", "..") for part in parts) or PurePosixPath(relative).is_absolute():
        raise Refused("not a path inside the incoming folder")
    descriptor = _open_beneath(folder, parts)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise Refused("not a regular file (symlinks, devices and pipes are never ingested)")
        if status.st_nlink != 1:
            raise Refused(f"a hard link ({status.st_nlink} names for one file): copy the file in, do not link it")
        if status.st_size == 0:
            raise Refused("the file is empty: drop a document with content")
        if status.st_size > max_bytes:
            raise Refused(f"the file is {status.st_size} bytes; the limit is {max_bytes} bytes")
        data = _read_all(descriptor, status.st_size)
    finally:
        os.close(descriptor)
    return CheckedFile(data=data, device=status.st_dev, inode=status.st_ino, size=status.st_size,
                       mtime_ns=status.st_mtime_ns)


def _open_beneath(folder: Path, parts: tuple[str, ...]) -> int:
    try:
        directory = os.open(folder, _DIRECTORY_FLAGS)
    except OSError as exc:
        raise Refused(f"the incoming folder cannot be opened ({exc.strerror})") from None
    try:
        for part in parts[:-1]:
            try:
                inner = os.open(part, _DIRECTORY_FLAGS, dir_fd=directory)
            except OSError as exc:  # ELOOP/ENOTDIR: a symlink (or a file) where a folder was
                raise Refused(f"a folder on its path is not a folder of the incoming folder ({exc.strerror})"
                              ) from None
            os.close(directory)
            directory = inner
        try:
            return os.open(parts[-1], _FILE_FLAGS, dir_fd=directory)
        except OSError as exc:  # ELOOP: the name is a symlink; ENOENT: removed since the listing
            raise Refused(f"not a regular file that can be opened ({exc.strerror}): symlinks are never followed"
                          ) from None
    finally:
        os.close(directory)


def _read_all(descriptor: int, size: int) -> bytes:
    """Exactly `size` bytes; a file that grew or shrank while being read is refused (it is being written)."""
    os.set_blocking(descriptor, True)
    pieces, remaining = [], size
    while remaining > 0:
        piece = os.read(descriptor, min(_CHUNK, remaining))
        if not piece:
            raise Refused("the file shrank while it was read: it is still being written")
        pieces.append(piece)
        remaining -= len(piece)
    if os.read(descriptor, 1):
        raise Refused("the file grew while it was read: it is still being written")
    return b"".join(pieces)
