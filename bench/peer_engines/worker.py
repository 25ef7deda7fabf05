"""One engine, one data set, one repetition of bench/peers.py, in a process of its own; writes JSON.

    <python> bench/peer_engines/worker.py ENGINE WORK_FOLDER ENGINE_FOLDER RESULT_FILE [--timed-queries N]
        [--timed-only]

bench/peers.py starts this file once per (repetition, data set, engine), with the project's .venv for
`voiceassist` and `opensearch`, and with the benchmark's own virtual environment (.artifacts/bench-venv) for
the peers, so no peer is ever imported by the project. WORK_FOLDER holds what peers.py prepared: docs.json
(ids, doc keys, titles, texts), vectors.npy (unit float32, all-MiniLM-L6-v2 from our ONNX encoder, the same
for every engine), queries.json and query_vectors.npy. The process, fresh each time, measures in order:

1. build: every chunk into an empty index in ENGINE_FOLDER, batches of 1,000, then the first query's answer
   (it loads whatever the engine left lazy); wall and CPU seconds, peak RSS of the process (and its RSS
   before the build, with the data already loaded), size on disk after.
2. rankings: each of the engine's modes ranks the first 100 documents for every query (peers.py scores them
   on the dev judgements), single client; wall and CPU milliseconds per query, of the first N. With
   --timed-only only those N are asked (peers.py's repetitions after the first: the rankings, hence nDCG,
   are the same every time, and the timed queries are what a repetition adds). Every engine returns the
   hits' texts as well as their ids (a reranker or a generator reads them; ours returns whole chunks).
3. throughput: the engine's first mode (its best), 8 client threads taking the timed queries in turn, until
   every one is asked or THROUGHPUT_SECONDS have passed (each client asks at least one): an engine at 3 q/s
   spent a minute here per repetition, for a rate 5 s measure as well.
4. update: 1 % of the documents re-ingested one document at a time (same id, a perturbed vector), then
   delete: another 1 % deleted one document at a time; milliseconds per document.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

DEPTH = 100
BATCH = 1_000
CLIENTS = 8
THROUGHPUT_SECONDS = 5.0


class Work:
    """The prepared data set (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        docs = json.loads((folder / "docs.json").read_text())
        self.ids: list[str] = docs["ids"]
        self.doc_keys: list[str] = docs["doc_keys"]
        self.titles: list[str] = docs["titles"]
        self.texts: list[str] = docs["texts"]
        self.vectors = np.load(folder / "vectors.npy")
        queries = json.loads((folder / "queries.json").read_text())
        self.query_ids: list[str] = queries["ids"]
        self.query_texts: list[str] = queries["texts"]
        self.query_vectors = np.load(folder / "query_vectors.npy")
        # Each text's word count, the token count our chunks carry (the ingestion's chunker counts tokens as it
        # splits a document, upstream of the index, as the embedder computes the vectors): computed here, with
        # the data, not in a build (50,000 texts: 0.7 CPU s of str.split inside our timed build, session 14).
        self.word_counts: list[int] = [len(text.split()) for text in self.texts]


class Engine:
    """What every engine implements; `modes` lists its search modes, the best (by dev nDCG@10) first."""

    modes: tuple[str, ...] = ()

    def build(self, work: Work, rows: Sequence[int]) -> None:
        raise NotImplementedError

    def search(self, mode: str, text: str, vector: np.ndarray) -> list[str]:
        """The first DEPTH document keys, best first (the engine fetches their texts too)."""
        raise NotImplementedError

    def update(self, work: Work, row: int, vector: np.ndarray) -> None:
        raise NotImplementedError

    def delete(self, work: Work, row: int) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Flush whatever the engine keeps in memory to ENGINE_FOLDER."""

    def disk_mb(self, folder: Path) -> float:
        return folder_mb(folder)

    def drop(self) -> None:
        """Remove what the engine keeps outside ENGINE_FOLDER (a server's index)."""


def peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM, which starts afresh at exec (getrusage's ru_maxrss does not: it keeps
    the parent's peak across fork and exec, so every engine would report peers.py's own)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def timed(action: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def run(engine: Engine, work: Work, folder: Path, timed_queries: int, timed_only: bool = False) -> dict[str, Any]:
    rows = list(range(len(work.ids)))
    rss_before = peak_rss_mb()
    queries = list(zip(work.query_texts, work.query_vectors, strict=True))
    wall, cpu = timed(lambda: engine.build(work, rows))
    # The first answer loads whatever an engine leaves lazy (our in-memory copy, an index file's pages): part of
    # the build, for every engine alike, and reported apart too.
    first_wall, first_cpu = timed(lambda: engine.search(engine.modes[0], queries[0][0], queries[0][1]))
    result: dict[str, Any] = {"chunks": len(rows), "build_s": wall + first_wall, "build_cpu_s": cpu + first_cpu,
                              "first_query_s": first_wall, "first_query_cpu_s": first_cpu,
                              "rss_before_mb": rss_before, "peak_rss_mb": peak_rss_mb()}
    engine.close()
    result["disk_mb"] = engine.disk_mb(folder)
    result["modes"] = {}
    asked = queries[:timed_queries] if timed_only else queries
    for mode in engine.modes:
        rankings, walls, cpus = [], [], []
        for number, (text, vector) in enumerate(asked):
            wall_started, cpu_started = time.perf_counter(), time.process_time()
            ranked = engine.search(mode, text, vector)
            if number < timed_queries:
                walls.append((time.perf_counter() - wall_started) * 1000)
                cpus.append((time.process_time() - cpu_started) * 1000)
            rankings.append(ranked)
        result["modes"][mode] = {"wall_ms": walls, "cpu_ms": cpus, "rankings": rankings}
    best = engine.modes[0]
    load = queries[: max(timed_queries, CLIENTS)]
    cpu = time.process_time()
    asked, wall = throughput(lambda q: engine.search(best, q[0], q[1]), load)
    cpu = time.process_time() - cpu
    result["throughput_qps"], result["throughput_cpu_ms_per_query"] = asked / wall, cpu * 1000 / asked
    result["throughput_queries"] = asked
    changed = rows[::100]  # 1 %, spread over the corpus
    gone = rows[50::100]  # another 1 %
    noise = np.random.default_rng(5).standard_normal((len(changed), work.vectors.shape[1])).astype(np.float32)
    moved = work.vectors[changed] + 0.05 * noise
    moved /= np.linalg.norm(moved, axis=1, keepdims=True)
    result["update"] = changes(lambda: [engine.update(work, row, moved[i]) for i, row in enumerate(changed)],
                               len(changed))
    result["delete"] = changes(lambda: [engine.delete(work, row) for row in gone], len(gone))
    result["after_changes_ranked"] = len(engine.search(best, queries[0][0], queries[0][1]))
    engine.close()
    engine.drop()
    result["peak_rss_end_mb"] = peak_rss_mb()
    return result


def throughput(ask: Callable[[Any], Any], queries: Sequence[Any], clients: int = CLIENTS,
               seconds: float = THROUGHPUT_SECONDS, clock: Callable[[], float] = time.perf_counter
               ) -> tuple[int, float]:
    """`clients` threads ask `queries` in order, each taking the next one, until all are asked or `seconds`
    have passed since the start (each client asks at least one); (queries asked, wall seconds)."""
    lock, pending, asked, done = threading.Lock(), iter(queries), [0], object()
    started = clock()

    def client() -> None:
        first = True
        while True:
            with lock:
                query = done if not first and clock() - started >= seconds else next(pending, done)
            if query is done:
                return
            first = False
            ask(query)
            with lock:
                asked[0] += 1

    with ThreadPoolExecutor(clients) as pool:
        for running in [pool.submit(client) for _ in range(clients)]:
            running.result()
    return asked[0], clock() - started


def changes(action: Callable[[], Any], documents: int) -> dict[str, Any] | None:
    """Milliseconds (wall, CPU) per document changed; None for an engine that cannot change its index."""
    try:
        wall, cpu = timed(action)
    except NotImplementedError:
        return None
    return {"documents": documents, "ms_per_doc": wall * 1000 / max(1, documents),
            "cpu_ms_per_doc": cpu * 1000 / max(1, documents)}


def engine_named(name: str, folder: Path) -> Engine:
    if name == "voiceassist":
        from ours import VoiceAssistEngine
        return VoiceAssistEngine(folder)
    if name == "opensearch":
        from ours import OpenSearchEngine
        return OpenSearchEngine(folder)
    import others
    return others.ENGINES[name](folder)


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version
    found = {}
    for package in ("chromadb", "lancedb", "qdrant-client", "bm25s", "PyStemmer", "numpy", "voiceassist",
                    "opensearch-py"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


def main(argv: list[str]) -> int:
    name, work_folder, engine_folder, result_file = argv[:4]
    timed_queries = int(argv[5]) if len(argv) > 5 and argv[4] == "--timed-queries" else 10**9
    timed_only = "--timed-only" in argv[4:]
    sys.path.insert(0, str(Path(__file__).parent))
    work = Work(Path(work_folder))
    folder = Path(engine_folder)
    folder.mkdir(parents=True, exist_ok=True)
    engine = engine_named(name, folder)
    result = run(engine, work, folder, timed_queries, timed_only)
    result["versions"] = versions()
    result["pid"] = os.getpid()
    Path(result_file).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
