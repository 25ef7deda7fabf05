"""CoalescingEmbedder: concurrent embed calls share one model call, and each caller gets its own rows."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest

from voiceassist.adapters.onnx.embedding import CoalescingEmbedder
from voiceassist.ports import Embedder, Vectors


class GatedEmbedder:
    """Records every call; the first call holds the model at a gate, so later callers must queue behind it."""

    model_id = "gated"
    dimension = 2
    max_tokens = 100
    in_boundary = True

    def __init__(self, fail_after_gate: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.fail_after_gate = fail_after_gate

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        if len(self.calls) == 1:
            self.entered.set()
            self.gate.wait(timeout=30)
        elif self.fail_after_gate:
            raise RuntimeError("the model crashed")
        return np.array([vector_of(text) for text in texts], dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def vector_of(text: str) -> list[float]:
    return [float(len(text)), float(sum(map(ord, text)))]


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=8) as executor:
        yield executor


def _hold_the_model(embedder: CoalescingEmbedder, inner: GatedEmbedder, pool: ThreadPoolExecutor
                    ) -> Future[Vectors]:
    first = pool.submit(embedder.embed, ["first"])
    assert inner.entered.wait(timeout=30)
    return first


def _queue(embedder: CoalescingEmbedder, pool: ThreadPoolExecutor, calls: list[list[str]]
           ) -> list[Future[Vectors]]:
    futures = [pool.submit(embedder.embed, texts) for texts in calls]
    deadline = time.monotonic() + 30
    while embedder.queued_calls < len(calls) and time.monotonic() < deadline:  # until all found the model busy
        time.sleep(0.001)
    assert embedder.queued_calls == len(calls)
    return futures


def test_coalescing_embedder_merges_the_calls_that_wait_for_a_busy_model(pool: ThreadPoolExecutor) -> None:
    inner = GatedEmbedder()
    embedder = CoalescingEmbedder(inner)
    first = _hold_the_model(embedder, inner, pool)
    waiting = [["metformin", "insulin"], ["warfarin"], ["apixaban", "heparin", "aspirin"]]
    futures = _queue(embedder, pool, waiting)

    inner.gate.set()

    assert first.result(timeout=30).tolist() == [vector_of("first")]
    for texts, future in zip(waiting, futures, strict=True):
        assert future.result(timeout=30).tolist() == [vector_of(text) for text in texts]
    assert len(inner.calls) == 2
    assert sorted(inner.calls[1]) == sorted(text for texts in waiting for text in texts)


def test_coalescing_embedder_never_merges_more_than_max_batch_texts(pool: ThreadPoolExecutor) -> None:
    inner = GatedEmbedder()
    embedder = CoalescingEmbedder(inner, max_batch=3)
    first = _hold_the_model(embedder, inner, pool)
    futures = _queue(embedder, pool, [["a", "b"], ["c", "d"], ["e"]])

    inner.gate.set()

    for future in [first, *futures]:
        future.result(timeout=30)
    assert all(len(call) <= 3 for call in inner.calls)
    assert sorted(text for call in inner.calls[1:] for text in call) == ["a", "b", "c", "d", "e"]


def test_coalescing_embedder_gives_a_failure_to_every_caller_of_the_merged_call(pool: ThreadPoolExecutor) -> None:
    inner = GatedEmbedder(fail_after_gate=True)
    embedder = CoalescingEmbedder(inner)
    first = _hold_the_model(embedder, inner, pool)
    futures = _queue(embedder, pool, [["metformin"], ["warfarin"]])

    inner.gate.set()

    assert first.result(timeout=30).shape == (1, 2)
    for future in futures:
        with pytest.raises(RuntimeError, match="the model crashed"):
            future.result(timeout=30)


def test_coalescing_embedder_is_an_embedder_of_the_same_model() -> None:
    inner = GatedEmbedder()
    inner.gate.set()
    embedder = CoalescingEmbedder(inner)

    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dimension, embedder.max_tokens) == ("gated", 2, 100)
    assert embedder.embed(["alone"]).tolist() == [vector_of("alone")]
    assert embedder.embed([]).shape[0] == 0
    assert embedder.count_tokens("two words") == 2
