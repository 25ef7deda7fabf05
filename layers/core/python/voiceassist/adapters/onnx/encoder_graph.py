"""A BERT encoder (all-MiniLM-L6-v2's shape) written as an ONNX graph of onnxruntime's fused CPU kernels.

The graph is stated with a few lines of protobuf, so neither the `onnx` package nor an exported model file
is needed: the weights come straight from safetensors. Two precisions:

- fp32: Attention and BiasGelu kernels over the published weights; the vectors are the published model's
  (cosine to a float64 reference > 0.99999).
- int8 (dynamic quantisation): all four matrix products of a layer (query/key/value, attention output, the
  two feed-forward ones) take int8 weights, symmetric with one scale per output column, quantised here at
  load time, and quantise their input to uint8 per call (QAttention, DynamicQuantizeMatMul).

Each residual connection is Add then the standard LayerNormalization, not the fused SkipLayerNormalization:
in onnxruntime 1.31 on one CPU thread the fused kernel took 3.7 ms of an int8 156-token text's 18 ms, Add and
LayerNormalization 0.7 ms (17% less CPU per text for int8, 8% for fp32; the vectors are the same model's:
mean cosine to fp32 0.9952 either way on SciFact abstracts). `bench/embed.py --graph-ops` measures it.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

_ONNX_TYPES = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3, np.dtype(np.int32): 6,
               np.dtype(np.int64): 7}
_MICROSOFT = "com.microsoft"  # onnxruntime's contrib operators


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # protobuf writes a negative int64 as its two's complement
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, value: int | float | str | bytes) -> bytes:
    """One protobuf field: varint for int, fixed32 for float, length-delimited for str and bytes."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    if isinstance(value, float):
        return _varint(number << 3 | 5) + struct.pack("<f", value)
    payload = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


Chunks = list[bytes | memoryview]


def _message(number: int, chunks: Chunks) -> Chunks:
    """A length-delimited field whose payload is `chunks`, left in pieces: the weights (58 MB for int8) are copied
    once, when model() joins every piece, not once per level of nesting (that copying was 70 % of the load)."""
    return [_varint(number << 3 | 2) + _varint(sum(len(chunk) for chunk in chunks)), *chunks]


class _OnnxGraph:
    """Just enough of onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto) to state a graph."""

    def __init__(self) -> None:
        self._nodes: list[bytes] = []
        self._initializers: list[Chunks] = []

    def constant(self, array: npt.NDArray[Any]) -> str:
        name = f"constant_{len(self._initializers)}"
        dims = b"".join(_field(1, size) for size in array.shape)
        values = np.ascontiguousarray(array).data.cast("B")  # the array's bytes, not a copy of them
        self._initializers.append([dims + _field(2, _ONNX_TYPES[array.dtype]) + _field(8, name),
                                   *_message(9, [values])])
        return name

    def node(self, op_type: str, inputs: Sequence[str], *, domain: str = "", **attributes: int | float) -> str:
        return self.node_with_outputs(op_type, inputs, 1, domain=domain, **attributes)[0]

    def node_with_outputs(self, op_type: str, inputs: Sequence[str], count: int, *, domain: str = "",
                          **attributes: int | float) -> list[str]:
        """A node and the names of its first `count` outputs ("" skips an optional input)."""
        outputs = [f"{op_type}_{len(self._nodes)}_{index}" for index in range(count)]
        encoded = b"".join(_field(1, name) for name in inputs) + b"".join(_field(2, name) for name in outputs)
        encoded += _field(4, op_type) + _field(7, domain)
        for key, value in attributes.items():  # AttributeProto: name, then f and type FLOAT, or i and INT
            if isinstance(value, float):
                encoded += _field(5, _field(1, key) + _field(2, value) + _field(20, 1))
            else:
                encoded += _field(5, _field(1, key) + _field(3, value) + _field(20, 2))
        self._nodes.append(encoded)
        return outputs

    def model(self, inputs: Sequence[tuple[str, type]], output: str, output_dims: Sequence[str | int]
              ) -> bytes:
        graph: Chunks = [b"".join(_field(1, node) for node in self._nodes) + _field(2, "encoder")]
        for tensor in self._initializers:
            graph += _message(5, tensor)
        graph.append(b"".join(_field(11, _value_info(name, dtype, ("batch", "tokens"))) for name, dtype in inputs)
                     + _field(12, _value_info(output, np.float32, output_dims)))
        opsets = _field(8, _field(1, "") + _field(2, 17)) + _field(8, _field(1, _MICROSOFT) + _field(2, 1))
        return b"".join([_field(1, 8) + _field(2, "voiceassist") + opsets, *_message(7, graph)])


def _value_info(name: str, dtype: type, dims: Sequence[str | int]) -> bytes:
    shape = b"".join(_field(1, _field(1 if isinstance(size, int) else 2, size)) for size in dims)
    tensor_type = _field(1, _ONNX_TYPES[np.dtype(dtype)]) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor_type))


def quantized_columns(matrix: npt.NDArray[np.float32]
                      ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """Symmetric int8 weights with one scale per output column: matrix [in, out] ~= int8 * scale."""
    scale = np.maximum(np.abs(matrix).max(axis=0) / 127.0, np.float32(1e-12)).astype(np.float32)
    return np.clip(np.rint(matrix / scale), -127, 127).astype(np.int8), scale


def encoder_onnx_model(weights: dict[str, npt.NDArray[Any]], config: dict[str, Any], *, int8: bool = False
                       ) -> bytes:
    """A serialized ONNX model: (input_ids, attention_mask) [batch, tokens] -> token vectors [.., hidden].

    With `int8`, a row's vector depends on the other rows of its batch (the input's quantisation scale is
    the whole batch's), so callers run one text per call.
    """
    graph = _OnnxGraph()
    epsilon = float(config["layer_norm_eps"])
    heads = int(config["num_attention_heads"])

    def weight(name: str) -> str:
        return graph.constant(weights[name])

    def linear(inputs: str, name: str, *, with_bias: bool = True) -> str:  # torch's Linear keeps [out, in]
        matrix = np.ascontiguousarray(weights[f"{name}.weight"].T)
        bias = [weight(f"{name}.bias")] if with_bias else []
        if not int8:
            product = graph.node("MatMul", [inputs, graph.constant(matrix)])
            return graph.node("Add", [product, *bias]) if bias else product
        values, scale = quantized_columns(matrix)
        optional = ["", *bias] if bias else []  # input 4 is the zero point, absent: the weights are symmetric
        return graph.node("DynamicQuantizeMatMul", [inputs, graph.constant(values), graph.constant(scale),
                                                    *optional], domain=_MICROSOFT)

    def attention(hidden: str, qkv: npt.NDArray[np.float32], bias: npt.NDArray[np.float32], mask: str) -> str:
        if not int8:
            return graph.node("Attention", [hidden, graph.constant(qkv), graph.constant(bias), mask],
                              domain=_MICROSOFT, num_heads=heads)
        values, scale = quantized_columns(qkv)
        quantized, input_scale, input_zero = graph.node_with_outputs("DynamicQuantizeLinear", [hidden], 3)
        return graph.node("QAttention", [quantized, graph.constant(values), graph.constant(bias), input_scale,
                                         graph.constant(scale), mask, input_zero], domain=_MICROSOFT,
                          num_heads=heads)

    def residual(added: str, hidden: str, norm: str) -> str:
        total = graph.node("Add", [added, hidden])
        return graph.node("LayerNormalization", [total, weight(f"{norm}.weight"), weight(f"{norm}.bias")],
                          axis=-1, epsilon=epsilon)

    # a single text has token_type_ids all 0, so that embedding row is folded into the positions
    positions = (weights["embeddings.position_embeddings.weight"]
                 + weights["embeddings.token_type_embeddings.weight"][0])
    tokens = graph.node("Shape", ["input_ids"], start=1, end=2)
    first_positions = graph.node("Slice", [graph.constant(positions), graph.constant(np.zeros(1, np.int64)),
                                           tokens])
    words = graph.node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"])
    hidden = residual(words, first_positions, "embeddings.LayerNorm")
    mask = graph.node("Cast", ["attention_mask"], to=_ONNX_TYPES[np.dtype(np.int32)])
    for layer in range(int(config["num_hidden_layers"])):
        prefix = f"encoder.layer.{layer}."
        projections = [f"{prefix}attention.self.{part}" for part in ("query", "key", "value")]
        qkv = np.ascontiguousarray(np.concatenate([weights[f"{name}.weight"] for name in projections]).T)
        context = attention(hidden, qkv, np.concatenate([weights[f"{name}.bias"] for name in projections]), mask)
        hidden = residual(linear(context, f"{prefix}attention.output.dense"), hidden,
                          f"{prefix}attention.output.LayerNorm")
        inner = linear(hidden, f"{prefix}intermediate.dense", with_bias=False)  # BiasGelu adds it
        activated = graph.node("BiasGelu", [inner, weight(f"{prefix}intermediate.dense.bias")],
                               domain=_MICROSOFT)
        hidden = residual(linear(activated, f"{prefix}output.dense"), hidden, f"{prefix}output.LayerNorm")
    return graph.model([("input_ids", np.int64), ("attention_mask", np.int64)], hidden,
                       ("batch", "tokens", int(config["hidden_size"])))
