"""Reading ahead: work a question's steps will ask for, started when the question arrives, beside the steps.

The local runtime runs a question's steps one after another in one process, and nothing heavy in them releases
the GIL; a detector whose detections run in a process of their own (`begin`: adapters/presidio/worker.py) lets
the knowledge-base search run beside the PHI detection instead of after it (`retrieval.search_ahead` starts it;
this module keeps what runs ahead until its step collects it). With the detector in this process, the question's
texts are embedded ahead instead (query/embedding_ahead.py; the ONNX run releases the GIL), kept here until Classify
Intent collects them. On AWS every step is its own Lambda, and nothing calls this.

The PHI boundary holds: what runs ahead stays inside it. The search ahead is the one Search One Source runs for
the knowledge base, for any question, PHI or not (the index, the in-boundary embedder and an in-boundary
reranker); with an embedder or a reranker outside the boundary nothing is searched ahead. Its hits are used only
by the step that would have searched with exactly the same text, filters, depth and mode (else it searches
itself), and only after Detect PHI and Classify Intent have run as always; a question they refuse or send
elsewhere never reads them.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from voiceassist.models import SearchFilters, SearchHit, SearchMode
from voiceassist.observability import log_failure
from voiceassist.query.state import QueryContext

# Searches started ahead and never collected (a question refused or answered by a tool) are dropped past these.
MAX_AHEAD = 16
AHEAD_TTL_S = 60.0
# How long the step waits for a search already running ahead before it searches itself.
COLLECT_TIMEOUT_S = 5.0

SearchKey = tuple[int, bytes, str, int, str]
EmbeddingKey = tuple[int, bytes]

_lock = threading.Lock()
_ahead: OrderedDict[SearchKey, tuple[float, Future[list[SearchHit]]]] = OrderedDict()
_embeddings: OrderedDict[EmbeddingKey, tuple[float, Future[None]]] = OrderedDict()
_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="read-ahead")


def search_key(ctx: QueryContext, question: str, *, filters: SearchFilters, top_k: int, mode: SearchMode
               ) -> SearchKey:
    """What makes two knowledge-base searches the same one (the question by its hash: the map holds no PHI)."""
    digest = hashlib.sha256(question.encode("utf-8", "surrogatepass")).digest()
    return id(ctx), digest, filters.model_dump_json(), top_k, mode.value


def start(key: SearchKey, search: Callable[[], list[SearchHit]]) -> None:
    """Run `search` on a reading-ahead thread, its hits kept under `key` for one `collect`."""
    _keep(_ahead, key, _threads.submit(search))


def collect(key: SearchKey) -> list[SearchHit] | None:
    """The hits searched ahead under `key` (once), or None: none started, or it failed (the caller searches)."""
    return _take(_ahead, key, "the search ahead failed; searching again")


def embedding_key(ctx: QueryContext, question: str) -> EmbeddingKey:
    """A question's embedding ahead, by the question's hash (the map holds no PHI)."""
    return id(ctx), hashlib.sha256(question.encode("utf-8", "surrogatepass")).digest()


def start_embedding(key: EmbeddingKey, embed: Callable[[], None]) -> None:
    """Run `embed` (texts into the embedder's recent vectors) on a reading-ahead thread, for one
    `wait_for_embedding`."""
    _keep(_embeddings, key, _threads.submit(embed))


def wait_for_embedding(key: EmbeddingKey) -> bool:
    """Wait for the embedding started ahead under `key` (once); False when none was started, it had not begun
    (still queued behind other questions' work: cancelled, the caller is as quick), or it failed or is still
    running after COLLECT_TIMEOUT_S (the caller's own embedder call then embeds what it finds missing)."""
    with _lock:
        started = _embeddings.get(key)
    if started is not None and started[1].cancel():
        with _lock:
            _embeddings.pop(key, None)
        return False
    return _take(_embeddings, key, "the embedding ahead failed") is not None


def _keep(table: OrderedDict[Any, tuple[float, Future[Any]]], key: Any, future: Future[Any]) -> None:
    now = time.monotonic()
    with _lock:
        table[key] = (now, future)
        while table and (len(table) > MAX_AHEAD or now - next(iter(table.values()))[0] > AHEAD_TTL_S):
            table.popitem(last=False)


def _take(table: OrderedDict[Any, tuple[float, Future[Any]]], key: Any, failed: str) -> Any:
    with _lock:
        started = table.pop(key, None)
    if started is None:
        return None
    try:
        result = started[1].result(timeout=COLLECT_TIMEOUT_S)
    except FutureTimeout:
        return None
    except Exception as exc:  # noqa: BLE001 - the step's own call reports what fails
        log_failure(failed, exc)
        return None
    return True if result is None else result
