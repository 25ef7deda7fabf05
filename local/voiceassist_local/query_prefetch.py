"""A question's knowledge-base embedding, started beside PHI detection instead of after it (local runs only).

On the local runner every step of a question runs in one process, one after the other: Detect PHI (Presidio and
spaCy, ~12 ms), then Classify, then Search One Source, whose first act is to embed the expanded question with the
ONNX MiniLM (~4 ms). onnxruntime releases the GIL while it runs, so when the run starts the embedding is
submitted to a thread of its own and overlaps PHI detection; Search One Source's `embedder.embed([text])` then
takes the finished vector instead of computing it again (the same text gives the same vector: the int8 model
embeds each text alone).

The PHI boundary (docs/architecture.md, "The PHI boundary"): the embedding is computed before the PHI verdict, so it
is started only when the embedder is in-boundary (`in_boundary`: the ONNX model in this process, where embeddings
of PHI text are computed anyway). A cloud embedder is never called ahead: it gets a text only after Detect PHI,
through the same checks as before. A vector nobody took (a question that was not searched: a clarification, a
calculator, a refusal) is dropped when the run ends; nothing is kept across runs.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from voiceassist.ports import Embedder, Vectors
from voiceassist.query.expansion import expand_query


class PrefetchingEmbedder:
    """An Embedder that can start one text's embedding ahead of its use (`prefetch`); `embed([text])` of a
    prefetched text waits for that vector. Every other call goes straight to the wrapped embedder."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id, self.dimension, self.max_tokens = inner.model_id, inner.dimension, inner.max_tokens
        self.in_boundary = inner.in_boundary
        self._lock = threading.Lock()
        self._pending: dict[str, Future[Vectors]] = {}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-ahead")

    def __getattr__(self, name: str) -> Any:  # the wrapped embedder's other attributes (precision, ...)
        return getattr(self.inner, name)

    def prefetch(self, text: str) -> Future[Vectors] | None:
        """Start embedding `text` on the pool, if the embedder keeps text in the boundary. Returns the new future
        (None: not started, or this text is already on its way)."""
        if not self.inner.in_boundary:
            return None  # never ahead of the PHI verdict outside the boundary
        with self._lock:
            if text in self._pending:
                return None
            future = self._pool.submit(self.inner.embed, [text])
            self._pending[text] = future
        return future

    def discard(self, text: str, future: Future[Vectors] | None) -> None:
        """Drop `future` (the run that started it ended) if nobody took it."""
        if future is None:
            return
        with self._lock:
            if self._pending.get(text) is future:
                del self._pending[text]
        future.cancel()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if len(texts) == 1 and not isinstance(texts, str):
            with self._lock:
                future = self._pending.pop(texts[0], None)
            if future is not None and not future.cancelled():
                return future.result().copy()  # an embedder failure is raised here, as the embedding call's own
        return self.inner.embed(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def knowledge_base_text(payload: dict[str, Any]) -> str | None:
    """The text Search One Source embeds for the query execution's input `payload` (its question, expanded)."""
    request = payload.get("request")
    question = request.get("query") if isinstance(request, dict) else None
    return expand_query(question) if isinstance(question, str) and question else None
