"""Model-independent pieces of sentence embedding: weights, length-sorted batching, padding, mean pooling.

Pooling follows sentence-transformers exactly (mean of the token vectors under the attention mask, then
L2 normalisation), so any encoder that returns token vectors yields the published sentence vectors.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from voiceassist.ports import Vectors

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
