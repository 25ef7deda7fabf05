"""Model-independent pieces of sentence embedding: weights, length-sorted batching, padding, mean pooling,
and merging concurrent calls into one model call (CoalescingEmbedder).

Pooling follows sentence-transformers exactly (mean of the token vectors under the attention mask, then
L2 normalisation), so any encoder that returns token vectors yields the published sentence vectors.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from voiceassist.adapters.turn_taking import TakeTurns
from voiceassist.ports import Embedder, Vectors

TokenIds = npt.NDArray[np.int64]


def length_sorted_batches(lengths: Sequence[int], *, token_budget: int, max_batch: int
                          ) -> Iterator[list[int]]:
    """Indices of the inputs grouped shortest first, each group padded to at most `token_budget` tokens.

    Sorting by length means each batch pads to a length close to every member's own, so almost no work is
    spent on padding; the budget keeps the attention matrices of long inputs inside the CPU caches.
    """
    if token_budget < 1 or max_batch < 1:
        raise ValueError("token_budget and max_batch must be at least 1")
    order = sorted(range(len(lengths)), key=lambda index: lengths[index])
    batch: list[int] = []
    for index in order:
        # the batch pads to the length of its newest (longest) member
        if len(batch) == max_batch or (batch and (len(batch) + 1) * lengths[index] > token_budget):
            yield batch
            batch = []
        batch.append(index)
    if batch:
        yield batch


def pad_right(sequences: Sequence[Sequence[int]], *, pad_id: int) -> tuple[TokenIds, TokenIds]:
    """Token ids padded on the right to the longest sequence, and the attention mask (1 = real token)."""
    width = max((len(sequence) for sequence in sequences), default=0)
    ids = np.full((len(sequences), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(sequences), width), dtype=np.int64)
    for row, sequence in enumerate(sequences):
        ids[row, : len(sequence)] = sequence
        mask[row, : len(sequence)] = 1
    return ids, mask


def mean_pool_normalised(token_vectors: npt.NDArray[np.float32], mask: TokenIds) -> Vectors:
    """Sentence vectors from [batch, tokens, dim] token vectors: masked mean, then unit length."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (token_vectors * weights).sum(axis=1)
    # the same clamps as sentence-transformers (1e-9 on the count, 1e-12 on the norm)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


_SAFETENSORS_DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Tensors of a .safetensors file (an 8-byte header length, a JSON header, raw little-endian data)."""
    with path.open("rb") as file:
        (header_length,) = struct.unpack("<Q", file.read(8))
        header: dict[str, Any] = json.loads(file.read(header_length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_length)
    tensors: dict[str, npt.NDArray[Any]] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        if entry["dtype"] not in _SAFETENSORS_DTYPES:
            raise ValueError(f"{path}: tensor {name} has the unsupported dtype {entry['dtype']}")
        dtype = _SAFETENSORS_DTYPES[entry["dtype"]]
        tensors[name] = np.frombuffer(data[start:end], dtype=dtype).reshape(entry["shape"])
    return tensors


class CoalescingEmbedder:
    """An Embedder that merges concurrent embed calls into one call of the embedder it wraps.

    Bulk ingestion runs many executions at once, each embedding a document of one or two chunks: one model
    call each would give the model batches of one or two, too small to sort by length or to split across
    cores. Here a caller that finds the model busy queues its texts, and whoever runs the model next takes
    everything queued (up to `max_batch` texts) in one call: group commit, as databases batch their log
    writes. No timer and no thread of its own: an idle model embeds a lone call at once, and a busy one
    gathers the calls that arrive while it works (onnxruntime releases the GIL, so they keep arriving).
    """

    def __init__(self, inner: Embedder, *, max_batch: int = 256) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self.max_tokens = inner.max_tokens
        self.in_boundary = inner.in_boundary
        self._max_batch = max_batch
        self._turns: TakeTurns[_EmbedRequest] = TakeTurns(self._run, self._take_batch)

    def embed(self, texts: Sequence[str]) -> Vectors:
        if isinstance(texts, str) or not texts:
            return self.inner.embed(texts)  # the wrapped embedder says what is wrong, or returns no rows
        request = _EmbedRequest(list(texts))
        self._turns.submit(request)
        if request.error is not None:
            raise request.error
        return request.vectors

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    @property
    def queued_calls(self) -> int:
        """Calls waiting for the model to finish the one it is running."""
        return self._turns.queued

    def _take_batch(self, queue: list[_EmbedRequest]) -> list[_EmbedRequest]:
        """The oldest queued requests, up to max_batch texts (always at least one request)."""
        batch = [queue.pop(0)]
        size = len(batch[0].texts)
        while queue and size + len(queue[0].texts) <= self._max_batch:
            size += len(queue[0].texts)
            batch.append(queue.pop(0))
        return batch

    def _run(self, batch: list[_EmbedRequest]) -> None:
        try:
            vectors = self.inner.embed([text for request in batch for text in request.texts])
        except Exception as error:  # every caller of the merged call sees the failure as its own
            for request in batch:
                request.error = error
        else:
            start = 0
            for request in batch:
                request.vectors = vectors[start:start + len(request.texts)]
                start += len(request.texts)
        for request in batch:
            request.finished = True


@dataclass
class _EmbedRequest:
    texts: list[str]
    vectors: Vectors = field(default_factory=lambda: np.empty((0, 0), dtype=np.float32))
    error: Exception | None = None
    finished: bool = False
