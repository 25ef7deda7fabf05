"""A text's sentence vector as the input screen's meaning model reads it (the tests' shared embedder)."""

from __future__ import annotations

from typing import Any

import numpy as np


def sentence_vector(text: str, embedder: Any) -> np.ndarray:
    return np.asarray(embedder.embed([text])[0])
