"""One OpenBLAS thread for the calling thread, for the length of a `with` block.

numpy hands a matrix product or a LAPACK routine to OpenBLAS, which splits it over a thread per core. On a
small problem with many steps (the eigen-decomposition of a 384 x 384 matrix) the helper thread is woken and
waited for at every step: on this shared 2-core machine `np.linalg.eigh` of the dense basis's matrix cost
0.7-0.8 CPU s and 7-9 s wall with two threads, 0.02 CPU s and 0.15-0.4 s wall with one, the same
eigenvectors (docs/benchmarks.md, "Peers"). OpenBLAS >= 0.3.27 has `openblas_set_num_threads_local`, which
sets the count for the calling thread only and returns the one it had; numpy's wheels bundle such a build.
It is reached with ctypes, in the library numpy already loaded (no dependency: threadpoolctl does the same
thing for every BLAS). Where numpy uses another BLAS, or an older OpenBLAS, the block runs unchanged.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

_SETTERS = ("openblas_set_num_threads_local", "scipy_openblas_set_num_threads_local64_")


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with one OpenBLAS thread on this thread; the count it had is restored after."""
    setter = thread_count_setter()
    if setter is None:
        yield
        return
    previous = setter(1)
    try:
        yield
    finally:
        setter(previous)


@functools.cache
def thread_count_setter() -> Callable[[int], int] | None:
    """OpenBLAS's per-thread setter in a library this process loaded, or None when there is none."""
    for path in _loaded_openblas():
        try:
            library = ctypes.CDLL(str(path))  # already loaded by numpy: the same library, not a second copy
        except OSError:
            continue
        for name in _SETTERS:
            function = getattr(library, name, None)
            if function is not None:
                function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
                return functools.partial(_call, function)
    return None


def _call(function: Callable[[int], int], count: int) -> int:
    return int(function(count))


def _loaded_openblas() -> list[Path]:
    """OpenBLAS libraries mapped into this process (Linux), else those numpy's wheel bundles."""
    np.linalg.norm(np.ones(1))  # numpy's linear algebra (and its BLAS) is loaded
    maps = Path("/proc/self/maps")
    if sys.platform.startswith("linux") and maps.exists():
        found = {
            Path(line.split(None, 5)[5].strip())
            for line in maps.read_text().splitlines()
            if len(line.split(None, 5)) == 6 and "openblas" in line.rsplit("/", 1)[-1].lower()
        }
        return sorted(path for path in found if path.exists())
    bundled = Path(np.__file__).parent
    return sorted([*bundled.parent.glob("numpy.libs/*openblas*"), *bundled.glob(".dylibs/*openblas*")])
