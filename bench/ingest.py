"""Ingestion throughput through the real pipeline on the embedded stack; prints JSON.

    .venv/bin/python bench/ingest.py [--corpus ../shared/eval/scifact/corpus.jsonl] [--limit N]
                                     [--pdf ../shared/eval/pdf/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf]
                                     [--precision int8 fp32]

Each input goes into a fresh temporary data folder through what `voiceassist ingest-jsonl` and
`voiceassist ingest` run: one ingest.asl.json execution per document, the real handlers, SQLite stores,
the local hybrid index and the local ONNX embedder (loaded before the clock starts). `--precision` lists the
embedder precisions to run, one after the other, so that they can be compared under the same load. A BEIR
abstract is one page. `stage_seconds` sums the time executions spent inside each stage; concurrent executions
overlap, so the sums exceed the wall time, and Embed's includes waiting for a shared model call.
`matmul_gflops` is what numpy got from the same cores just before: the machine is shared, so read the
throughput against it (the embedder's work is almost all matrix products).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from embed import matmul_gflops  # bench/ is the script's folder, so its siblings import directly
from voiceassist_local import bulk

from voiceassist import service
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.ingest import stages as ingestion
from voiceassist.models import JobState
from voiceassist.observability import logger
from voiceassist.ports import Embedder
from voiceassist.settings import Settings

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
STAGES = ("start_job", "extract_document", "clean_document", "chunk_document", "embed_document",
          "index_document", "finalize_document")


@contextmanager
def stage_clock() -> Iterator[dict[str, float]]:
    """Seconds spent inside each stage function, summed over executions (the handlers call them by name)."""
    totals = dict.fromkeys(STAGES, 0.0)
    lock = threading.Lock()
    originals = {name: getattr(ingestion, name) for name in STAGES}

    def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                with lock:
                    totals[name] += time.perf_counter() - started
        return run

    for name, function in originals.items():
        setattr(ingestion, name, timed(name, function))
    try:
        yield totals
    finally:
        for name, function in originals.items():
            setattr(ingestion, name, function)


@contextmanager
def fresh_stack(embedder: Embedder) -> Iterator[Dependencies]:
    with tempfile.TemporaryDirectory(prefix="voiceassist-bench-") as folder:
        deps = Dependencies(Settings(data_dir=Path(folder) / "data"))
        deps.settings.data_dir.mkdir(parents=True)
        deps.embedder = embedder
        use_dependencies(deps)
        try:
            yield deps
        finally:
            use_dependencies(None)
            runner = deps.__dict__.get("pipelines")
            if runner is not None:
                runner.close()


def rates(pages: int, chunks: int, seconds: float, cpu_seconds: float, stages: dict[str, float]
          ) -> dict[str, Any]:
    return {"pages": pages, "chunks": chunks, "seconds": round(seconds, 1), "cpu_seconds": round(cpu_seconds, 1),
            "pages_per_s": round(pages / seconds, 2), "chunks_per_s": round(chunks / seconds, 2),
            "stage_seconds": {name.split("_")[0]: round(value, 1) for name, value in stages.items()}}


def corpus_run(embedder: Embedder, corpus: Path, limit: int | None) -> dict[str, Any]:
    with fresh_stack(embedder) as deps, stage_clock() as stages:
        started, cpu = time.perf_counter(), time.process_time()
        summary = bulk.ingest_beir_corpus(deps, corpus, limit=limit, show=False)
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    return {"corpus": str(corpus), "documents": summary["completed"], "failed": summary["failed"],
            **rates(summary["completed"], summary["chunks"], seconds, cpu_seconds, stages)}


def pdf_run(embedder: Embedder, pdf: Path) -> dict[str, Any]:
    with fresh_stack(embedder) as deps, stage_clock() as stages:
        started, cpu = time.perf_counter(), time.process_time()
        registration = service.accept_upload(deps, filename=pdf.name, data=pdf.read_bytes(),
                                             metadata=service.metadata_for(pdf.name, {}))
        deps.pipelines.join()  # type: ignore[attr-defined]  # the local runner
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
        job = deps.jobs.get(registration.job.job_id)
        pages = deps.documents.get(job.doc_id).page_count or 0
    if job.state is not JobState.COMPLETED:
        return {"pdf": str(pdf), "state": job.state.value, "reason": job.reason}
    return {"pdf": str(pdf), "bytes": pdf.stat().st_size,
            **rates(pages, job.chunks_total, seconds, cpu_seconds, stages)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=EVAL / "scifact" / "corpus.jsonl")
    parser.add_argument("--limit", type=int, default=None, help="only the first N corpus documents")
    parser.add_argument("--pdf", type=Path,
                        default=EVAL / "pdf" / "009-pdflatex-geotopo" / "GeoTopo-komprimiert.pdf")
    parser.add_argument("--precision", nargs="+", choices=("int8", "fp32"), default=["int8"],
                        help="embedder precisions to run in turn (default: int8, the shipped one)")
    args = parser.parse_args()
    logger.setLevel("ERROR")  # the logger writes to stdout, where the report goes

    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    report: dict[str, Any] = {"cpus": len(os.sched_getaffinity(0)), "in_flight": bulk.IN_FLIGHT, "runs": []}
    for precision in args.precision:
        embedder = OnnxEmbedder(precision=precision)
        started = time.perf_counter()
        embedder.embed(["warm up the encoder"])
        run: dict[str, Any] = {
            "model_id": embedder.model_id, "embedder_load_seconds": round(time.perf_counter() - started, 2),
            "load_average_1m": round(os.getloadavg()[0], 2), "matmul_gflops": matmul_gflops(),
        }
        run["corpus"] = (corpus_run(embedder, args.corpus, args.limit) if args.corpus.is_file()
                         else {"skipped": f"{args.corpus} not found"})
        run["pdf"] = pdf_run(embedder, args.pdf) if args.pdf.is_file() else {"skipped": f"{args.pdf} not found"}
        run["load_average_1m_after"] = round(os.getloadavg()[0], 2)
        report["runs"].append(run)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
