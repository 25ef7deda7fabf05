"""A fit that writes the same file every time (bench/input_screen_classifier.py, bench/input_screen_train.py).

Call `same_fit_every_time()` before numpy is imported: a script run directly is started again with a fixed string
hash (the generated PHI sets' rows, voiceassist_local.evaluation.phi_sets, follow set order, which Python's
per-process hash seed varies), and BLAS runs one thread (a multi-threaded reduction sums in a varying order that
L-BFGS carries on; two fits of the meaning model differed in the fourth decimal without it).
"""
from __future__ import annotations

import os
import sys

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def same_fit_every_time(main_module: str) -> None:
    """`main_module`: the calling script's __name__ (only a script run directly is started again)."""
    if os.environ.get("PYTHONHASHSEED") != "0" and main_module == "__main__":
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    for variable in BLAS_THREADS:
        os.environ[variable] = "1"
