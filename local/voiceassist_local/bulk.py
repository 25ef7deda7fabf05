"""Bulk ingestion of BEIR-format corpora (corpus.jsonl: _id, title, text) through the real pipeline.

Every record is its own execution, as an upload would be (Register's PHI screen of the metadata, idempotency
by content hash, a job of its own). Throughput comes from running many at once: a window of IN_FLIGHT
executions, and on the embedded stack a local runner as wide as that window, a CoalescingEmbedder (the
documents that reach Embed together share one model call) and the index's gathered writes (the documents that
reach Index, or Finalize, within a moment of each other are written in one transaction: the batch path,
LocalHybridIndex.gathering_writes; a failed group is written again document by document).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from voiceassist import service
from voiceassist.adapters.onnx.embedding import CoalescingEmbedder
from voiceassist.errors import InvalidInput, VoiceAssistError
from voiceassist.models import IndexingJob, JobState
from voiceassist.settings import Runtime

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies

# Executions under way at once: enough for Embed to gather a batch while others extract (and the index's
# gathered writes a group). Not more: at 64, 89 of 300 SciFact records failed their metadata screen at load
# ~35 ("PHI detector busy: no detection could start within 8 s"; docs/benchmarks.md, "Peers"). Such a record is
# now retried by the workflow (PhiDetectorBusy) instead of failing; the window was not measured again since.
IN_FLIGHT = 16
POLL_SECONDS = 0.02
TERMINAL = {JobState.COMPLETED, JobState.FAILED, JobState.SUPERSEDED}


def read_beir_corpus(path: Path, limit: int | None = None) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file (expected a BEIR corpus.jsonl)")
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if limit is not None and number > limit:
                return
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{path}:{number}: not a JSON line ({exc.msg})") from exc
            if "_id" not in record:
                raise InvalidInput(f"{path}:{number}: a BEIR corpus line needs an _id")
            yield record


def count_lines(path: Path, limit: int | None) -> int:
    with path.open(encoding="utf-8") as lines:
        total = sum(1 for line in lines if line.strip())
    return min(total, limit) if limit is not None else total


@contextmanager
def bulk_capacity(deps: Dependencies, executions: int | None = None, *,
                  under_way: Callable[[], int] | None = None) -> Iterator[None]:
    """On the embedded stack, run `executions` (default IN_FLIGHT) at once, merge their embed calls and gather
    their index writes into groups (`under_way()`: the executions started and not yet seen finished), for
    this block only.

    On AWS, Step Functions and Lambda give each execution its own capacity and nothing changes.
    """
    if deps.settings.runtime is not Runtime.LOCAL:
        yield
        return
    from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
    from voiceassist_local.asl_runner import LocalPipelineRunner
    from voiceassist_local.handlers import function_names, load_handler, placeholder_for
    from voiceassist_local.pipelines import PIPELINES, install_interpreter_speedups

    saved: dict[str, Any] = {name: deps.__dict__[name] for name in ("embedder", "pipelines") if name in deps.__dict__}
    install_interpreter_speedups()
    tasks = {placeholder_for(name): load_handler(name) for name in function_names() if name.startswith("ingest_")}
    runner = LocalPipelineRunner({"ingest": PIPELINES["ingest"]}, tasks,
                                 max_concurrent_executions=executions or IN_FLIGHT)
    deps.embedder = CoalescingEmbedder(deps.embedder)  # type: ignore[misc]
    deps.pipelines = runner
    with ExitStack() as writes:
        if isinstance(deps.index, LocalHybridIndex) and under_way is not None:
            writes.enter_context(deps.index.gathering_writes(under_way))
        try:
            yield
        finally:
            runner.close()
            for name in ("embedder", "pipelines"):
                deps.__dict__.pop(name, None)
            deps.__dict__.update(saved)


def ingest_beir_corpus(deps: Dependencies, path: Path, *, source_type: str = "journal",
                       specialty: str | None = None, limit: int | None = None, show: bool = True
                       ) -> dict[str, Any]:
    """Ingest every record as a text document whose doc_key is its _id; returns counts and throughput.

    Ctrl-C (or SIGTERM turned into it) stops the reading: the documents under way finish, the queued ones stay
    PENDING for a re-run, and the summary says `interrupted` with how many are `left`."""
    started = time.perf_counter()
    counts = {"completed": 0, "unchanged": 0, "failed": 0}
    failures: list[dict[str, str]] = []
    in_flight: list[str] = []
    chunks = 0

    def finished(job: IndexingJob) -> None:
        nonlocal chunks
        if not interrupted:
            bar.update(1)
        if job.state is JobState.COMPLETED:
            counts["completed"] += 1
            chunks += job.chunks_total
        else:
            counts["failed"] += 1
            failures.append({"doc_key": job.doc_key, "reason": job.reason or ""})

    def settle(keep: int) -> None:
        """Wait until at most `keep` executions are under way; oldest first, since they mostly finish first."""
        while len(in_flight) > keep:
            for job_id in list(in_flight):
                job = deps.jobs.get(job_id)
                if job.state in TERMINAL:
                    in_flight.remove(job_id)
                    finished(job)
                    if len(in_flight) <= keep:
                        return
            time.sleep(POLL_SECONDS)

    total = count_lines(path, limit)
    interrupted = False
    with bulk_capacity(deps, under_way=in_flight.__len__), \
            tqdm(total=total, desc="ingesting", unit="doc", disable=not show) as bar:
        try:
            for record in read_beir_corpus(path, limit):
                doc_key = str(record["_id"])
                text = "\n\n".join(p for p in (record.get("title"), record.get("text")) if p)
                metadata = {"doc_key": doc_key, "title": record.get("title") or doc_key,
                            "source_type": source_type, "specialty": specialty}
                try:
                    registration = service.accept_upload(
                        deps, filename=f"{doc_key}.txt", data=text.encode("utf-8"),
                        metadata=service.metadata_for(f"{doc_key}.txt", metadata))
                except VoiceAssistError as exc:
                    counts["failed"] += 1
                    failures.append({"doc_key": doc_key, "reason": str(exc)})
                    bar.update(1)
                    continue
                if registration.unchanged:
                    counts["unchanged"] += 1
                    bar.update(1)
                    continue
                in_flight.append(registration.job.job_id)
                settle(IN_FLIGHT - 1)
            settle(0)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: start nothing more; leaving the block lets the
            interrupted = True     # documents under way finish and cancels the queued ones (bulk_capacity)
            print(f"\nstopping: the {len(in_flight)} document(s) under way finish first (Ctrl-C again to stop "
                  "at once)", file=sys.stderr, flush=True)
    if interrupted:
        for job_id in in_flight:
            job = deps.jobs.get(job_id)
            if job.state in TERMINAL:
                finished(job)
    seconds = time.perf_counter() - started
    done = sum(counts.values())
    return {**counts, "chunks": chunks, "seconds": round(seconds, 2),
            "docs_per_s": round(done / seconds, 2) if seconds else 0.0,
            "chunks_per_s": round(chunks / seconds, 2) if seconds else 0.0, "failures": failures,
            "interrupted": interrupted, "left": total - done}
