"""The CLI commands that run on the embedded stack in this process."""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from voiceassist import service
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.errors import InvalidInput, VoiceAssistError
from voiceassist.models import IndexingJob, JobState, QueryRequest, QueryResponse
from voiceassist.settings import Runtime, settings_from_env
from voiceassist_local.resources import sample_corpus_dir

SUPPORTED_SUFFIXES = {".pdf", ".docx", ".txt", ".md", ".markdown", ".html", ".htm"}
TERMINAL = {JobState.COMPLETED, JobState.FAILED, JobState.SUPERSEDED}


def local_dependencies() -> Dependencies:
    """Dependencies for this process on the embedded stack (runtime forced to local)."""
    settings = settings_from_env()
    if settings.runtime is not Runtime.LOCAL:
        raise InvalidInput("the CLI runs on the embedded stack: unset VOICEASSIST_RUNTIME or set it to local")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    deps = Dependencies(settings)
    deps.index  # noqa: B018 -- opened now: an index of another embedding model is refused here, with the fix
    use_dependencies(deps)
    return deps


# --------------------------------------------------------------------------- waiting with progress


def wait_for_jobs(deps: Dependencies, job_ids: Sequence[str], *, label: str = "indexing",
                  timeout_s: float = 3600.0, show: bool = True) -> list[IndexingJob]:
    """Poll until every job is terminal; a progress bar counts finished jobs."""
    pending = set(job_ids)
    finished: dict[str, IndexingJob] = {}
    deadline = time.monotonic() + timeout_s
    with tqdm(total=len(job_ids), desc=label, unit="doc", disable=not show or not job_ids) as bar:
        while pending and time.monotonic() < deadline:
            for job_id in list(pending):
                job = deps.jobs.get(job_id)
                if job.state in TERMINAL:
                    finished[job_id] = job
                    pending.discard(job_id)
                    bar.update(1)
            if pending:
                time.sleep(0.05)
    for job_id in pending:
        finished[job_id] = deps.jobs.get(job_id)
    return [finished[j] for j in job_ids]


def _files(paths: Iterable[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix.lower() in SUPPORTED_SUFFIXES))
        elif path.is_file():
            found.append(path)
        else:
            raise InvalidInput(f"{raw}: no such file or folder")
    return found


def upload_files(deps: Dependencies, files: Sequence[Path], metadata: dict[str, Any], *, show: bool = True
                 ) -> list[tuple[Path, str | None, str | None]]:
    """Upload every file; returns (path, job_id or None, error) per file. Bad files do not stop the rest."""
    results: list[tuple[Path, str | None, str | None]] = []
    for path in tqdm(files, desc="uploading", unit="file", disable=not show or len(files) < 2):
        try:
            registration = service.accept_upload(
                deps, filename=path.name, data=path.read_bytes(),
                metadata=service.metadata_for(path.name, metadata))
            results.append((path, registration.job.job_id, None))
        except VoiceAssistError as exc:
            results.append((path, None, str(exc)))
    return results


def _report(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(json.dumps(rows, indent=2, default=str))
        return
    for row in rows:
        detail = row.get("reason") or ""
        print(f"{row['state']:<10} {row['file']}  {detail}".rstrip())
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["state"]] = counts.get(row["state"], 0) + 1
    print(", ".join(f"{n} {state.lower()}" for state, n in sorted(counts.items())))


# --------------------------------------------------------------------------- commands


def ingest(args: argparse.Namespace) -> int:
    deps = local_dependencies()
    files = _files(args.paths)
    if (args.title or args.doc_key) and len(files) != 1:
        raise InvalidInput("--title and --doc-key name one document: pass exactly one file")
    metadata = {"source_type": args.source_type, "specialty": args.specialty, "title": args.title,
                "doc_key": args.doc_key}
    uploads = upload_files(deps, files, metadata, show=not args.json)
    jobs = {job.job_id: job for job in wait_for_jobs(deps, [j for _, j, _ in uploads if j], show=not args.json)}
    rows: list[dict[str, Any]] = []
    for path, job_id, error in uploads:
        if job_id is None:
            rows.append({"file": str(path), "state": "REJECTED", "reason": error})
            continue
        job = jobs[job_id]
        flagged = (f"{job.flagged_chunks} chunk(s) hold instruction-like text: indexed, never quoted"
                   if job.flagged_chunks else None)
        rows.append({"file": str(path), "state": job.state.value, "job_id": job.job_id, "doc_id": job.doc_id,
                     "chunks": job.chunks_total, "flagged_chunks": job.flagged_chunks,
                     "reason": job.reason or flagged})
    _report(rows, args.json)
    return 0


def ingest_jsonl(args: argparse.Namespace) -> int:
    from voiceassist_local.bulk import ingest_beir_corpus

    deps = local_dependencies()
    summary = ingest_beir_corpus(deps, Path(args.corpus), source_type=args.source_type, specialty=args.specialty,
                                 limit=args.limit, show=not args.json)
    if not args.json:
        for failure in summary["failures"]:  # every document that did not end ACTIVE, with its reason
            print(f"FAILED     {failure['doc_key']}  {failure['reason']}".rstrip())
    print(json.dumps(summary, indent=2) if args.json else
          f"{summary['completed']} completed, {summary['unchanged']} unchanged, {summary['failed']} failed "
          f"in {summary['seconds']:.1f} s ({summary['docs_per_s']:.1f} docs/s)")
    return 0 if not summary["failed"] else 1


def warm_up(deps: Dependencies) -> None:
    """Load the PHI detector and the embedder before the first question, as a provisioned Lambda would: a
    cold load inside the search branch would eat its time budget."""
    deps.phi_detector.detect("warm up the detector")
    deps.embedder.embed(["warm up the embedder"])


def ask(args: argparse.Namespace) -> int:
    deps = local_dependencies()
    warm_up(deps)
    request = QueryRequest(query=args.question, top_k=args.top_k)
    response = service.answer(deps, request, user_id="local-user")
    if args.json:
        print(response.model_dump_json(indent=2))
    else:
        print(format_answer(response))
    return 0


def format_answer(response: QueryResponse) -> str:
    lines = [response.answer, ""]
    for c in response.citations:
        where = f", page {c.page}" if c.page else (f", {c.section}" if c.section else "")
        lines.append(f"[{c.number}] {c.title}{where}")
    meta = response.metadata
    lines.append("")
    lines.append(f"status: {meta.answer_status.value}; evidence: {meta.evidence_score}; model: {meta.model}"
                 f"{' (extractive)' if meta.extractive else ''}; intent: {meta.intent.value}; "
                 f"PHI: {'yes ' + ','.join(meta.phi_entity_types) if meta.phi_detected else 'no'}")
    lines.extend(f"warning: {w}" for w in meta.warnings)
    return "\n".join(lines).strip()


def jobs(args: argparse.Namespace) -> int:
    deps = local_dependencies()
    found = deps.jobs.list(state=JobState(args.state) if args.state else None, limit=args.limit)
    if args.json:
        print(json.dumps([j.model_dump(mode="json") for j in found], indent=2))
        return 0
    for job in found:
        progress = f"{job.chunks_done}/{job.chunks_total}"
        print(f"{job.job_id}  {job.state.value:<10} {job.doc_key[:40]:<40} v{job.version} {progress:>9}  "
              f"{job.reason or ''}".rstrip())
    return 0


def ensure_sample_corpus(deps: Dependencies) -> None:
    """Ingest the bundled sample corpus once, on the first start of a fresh data folder."""
    if deps.documents.list(limit=1):
        return
    catalog = json.loads((sample_corpus_dir() / "catalog.json").read_text(encoding="utf-8"))
    files = [sample_corpus_dir() / entry["file"] for entry in catalog]
    job_ids = []
    for entry, path in zip(catalog, files, strict=True):
        registration = service.accept_upload(deps, filename=path.name, data=path.read_bytes(),
                                             metadata=service.metadata_for(path.name, entry["metadata"]))
        job_ids.append(registration.job.job_id)
    for job in wait_for_jobs(deps, job_ids, label="sample corpus"):
        if job.state is not JobState.COMPLETED:
            print(f"warning: sample {job.doc_key} ended {job.state.value}: {job.reason}")


def serve(args: argparse.Namespace) -> int:
    from voiceassist_local.http_guard import check_binding
    from voiceassist_local.incoming import IncomingFolderWatcher
    from voiceassist_local.recovery import JobReconciler, reconcile_once
    from voiceassist_local.server import example_request, make_server

    deps = local_dependencies()
    warning = check_binding(args.host, deps.settings.local_token)  # refused here, before any work, without one
    if warning:
        print(warning)
    reconcile_once(deps)  # jobs a killed server left PENDING or RUNNING are failed and re-driven
    if not args.no_samples:
        ensure_sample_corpus(deps)
    warm_up(deps)
    if not os.environ.get("POWERTOOLS_LOG_LEVEL"):
        from voiceassist.observability import logger

        # The CLI keeps our log to errors for its progress bars; a server has none: ingestion failures, refused
        # incoming files and recovered jobs are visible at the default level.
        logger.setLevel("WARNING")
    server = make_server(args.host, args.port)
    url = f"http://{args.host}:{server.server_address[1]}"
    print(f"VoiceAssist local API on {url}  (data: {deps.settings.data_dir})")
    print(f"  web:     {url}/  (the chat client; {url}/?q=... asks on load)")
    print(f"  OpenAPI: {url}/v1/openapi.json")
    print(f"  try:     {example_request(url)}")
    reconciler = JobReconciler(deps)
    reconciler.start()
    watcher = None
    if not args.no_watch:
        watcher = IncomingFolderWatcher(deps.settings.blob_dir)
        watcher.start()
        print(f"  ingest:  drop files into {watcher.folder} (ingested as S3 uploads are)")
    try:
        server.serve_forever()
    finally:
        reconciler.stop()
        if watcher is not None:
            watcher.stop()
        server.server_close()
    return 0
