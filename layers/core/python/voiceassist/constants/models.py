"""Which in-boundary embedding model vectors come from, without loading it.

Only strings: infra (at synth) and anything else that records or compares model ids imports this instead of
onnx_embedder, which pulls in numpy and the encoder graph.
"""

from __future__ import annotations

from typing import Literal

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
Precision = Literal["int8", "fp32"]


def model_id(precision: Precision) -> str:
    """The id vectors are recorded under: the published model's for fp32, marked for int8."""
    return MODEL_ID if precision == "fp32" else f"{MODEL_ID}+int8"

# The precision a deployment embeds at unless configured otherwise (Settings.embedding_precision).
DEFAULT_PRECISION: Precision = "int8"
DIMENSION = 384  # all-MiniLM-L6-v2's sentence vectors
