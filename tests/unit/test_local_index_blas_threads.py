"""One OpenBLAS thread around the embedded index's basis fit and projections (adapters/local/blas_threads):
the thread count is lowered for the block and restored after, even when the block fails, and the basis
is the one the default threads give."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from voiceassist.adapters.local import blas_threads, rows
from voiceassist.adapters.local.blas_threads import one_blas_thread, thread_count_setter
from voiceassist.adapters.local.rows import APPROXIMATE_FROM, LoadedRows
from voiceassist.models import SourceType

DIMENSION = 384


class RecordingSetter:
    """A stand-in for OpenBLAS's per-thread setter: it keeps the count and records every call."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.calls: list[int] = []

    def __call__(self, count: int) -> int:
        self.calls.append(count)
        previous, self.count = self.count, count
        return previous


def test_blas_threads_block_runs_on_one_thread_and_restores_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a BLAS with 4 threads on this thread
    setter = RecordingSetter(4)
    monkeypatch.setattr(blas_threads, "thread_count_setter", lambda: setter)

    # When a block runs under one_blas_thread
    with one_blas_thread():
        inside = setter.count

    # Then it ran with one thread, and the 4 are back afterwards
    assert inside == 1
    assert setter.count == 4 and setter.calls == [1, 4]


def test_blas_threads_count_is_restored_when_the_block_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    setter = RecordingSetter(2)
    monkeypatch.setattr(blas_threads, "thread_count_setter", lambda: setter)

    with pytest.raises(np.linalg.LinAlgError), one_blas_thread():
        np.linalg.eigh(np.full((3, 3), np.nan))

    assert setter.count == 2


def test_blas_threads_without_openblas_the_block_still_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blas_threads, "thread_count_setter", lambda: None)

    with one_blas_thread():
        product = np.ones((300, 4)).T @ np.ones((300, 4))

    assert product[0, 0] == 300


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numpy's Linux wheels bundle OpenBLAS")
def test_blas_threads_reach_the_openblas_numpy_loaded() -> None:
    # Given numpy's own OpenBLAS (the pinned wheel bundles one with the per-thread setter)
    setter = thread_count_setter()
    assert setter is not None

    # When the count is read inside the block (setting it returns the one it replaces)
    with one_blas_thread():
        inside = setter(1)
    outside = setter(1)
    setter(outside)

    # Then the block had one thread and the count outside is numpy's own again
    assert inside == 1
    assert outside >= 1


def test_blas_threads_basis_is_the_default_threads_basis() -> None:
    # Given more rows than the exact limit, with a few strong directions as sentence vectors have
    rng = np.random.default_rng(11)
    mixing = rng.standard_normal((DIMENSION, DIMENSION)) * np.linspace(3, 0.1, DIMENSION)[:, None]
    vectors = rng.standard_normal((APPROXIMATE_FROM + 1_000, DIMENSION)) @ mixing + 0.5
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    loaded = LoadedRows(DIMENSION)
    loaded.append(
        [
            (i + 1, vector.tobytes(), f"doc-{i}", 1, SourceType.JOURNAL.value, None, 2020, b"")
            for i, vector in enumerate(vectors)
        ]
    )

    # When the basis is fitted (one BLAS thread) and the same decomposition runs with numpy's default threads
    projected, basis = loaded._projection()
    sample = vectors[:: max(1, len(vectors) // 4096)]
    expected = np.linalg.eigh(sample.T @ sample)[1][:, ::-1][:, : rows.PROJECTED_DIMENSIONS]

    # Then the directions are the same (each up to its sign) and every row is projected on them
    signs = np.sign(np.sum(basis * expected, axis=0))
    assert np.abs(basis - expected * signs).max() < 1e-4
    assert np.abs(projected[: len(vectors)] - vectors @ basis).max() < 1e-4
