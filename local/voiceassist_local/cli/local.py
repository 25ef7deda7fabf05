"""The CLI commands that run on the embedded stack in this process (ask and ingest when no server runs)."""

from __future__ import annotations

import argparse
import errno
import json
import os
import shlex
import signal
import socket
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from tqdm import tqdm

from voiceassist import service
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.errors import InvalidInput, VoiceAssistError
from voiceassist.models import DocumentStatus, IndexingJob, JobState, QueryRequest
from voiceassist.settings import Runtime, settings_from_env
from voiceassist_local.cli.api_client import CliError
from voiceassist_local.cli.remote import ingest_status, note, report
from voiceassist_local.resources import sample_corpus_dir

SUPPORTED_SUFFIXES = {".pdf", ".docx", ".txt", ".md", ".markdown", ".html", ".htm"}
TERMINAL = {JobState.COMPLETED, JobState.FAILED, JobState.SUPERSEDED}


def local_dependencies() -> Dependencies:
    """Dependencies for this process on the embedded stack (runtime forced to local)."""
    from voiceassist_local.cli import quiet_log

    quiet_log()
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


def upload_files(deps: Dependencies, files: Sequence[Path], metadata: dict[str, Any], *, show: bool = True,
                 into: list[tuple[Path, str | None, str | None]] | None = None
                 ) -> list[tuple[Path, str | None, str | None]]:
    """Upload every file; returns (path, job_id or None, error) per file (appended to `into` as they go, so an
    interrupted caller knows what was sent). Bad files do not stop the rest."""
    results: list[tuple[Path, str | None, str | None]] = [] if into is None else into
    for path in tqdm(files, desc="uploading", unit="file", disable=not show or len(files) < 2):
        try:
            data = path.read_bytes()
            registration = service.accept_upload(
                deps, filename=path.name, data=data, metadata=service.metadata_for(path.name, metadata, data))
            results.append((path, registration.job.job_id, None))
        except VoiceAssistError as exc:
            results.append((path, None, str(exc)))
    return results


# --------------------------------------------------------------------------- commands


def ingest_in_process(args: argparse.Namespace, files: Sequence[Path]) -> int:
    """`voiceassist ingest` without a server: the pipeline runs here. Ctrl-C stops it cleanly (stop_cleanly)."""
    deps = local_dependencies()
    metadata = {"source_type": args.source_type, "specialty": args.specialty, "title": args.title,
                "doc_key": args.doc_key}
    uploads: list[tuple[Path, str | None, str | None]] = []
    try:
        with termination_as_interrupt():
            uploads = upload_files(deps, files, metadata, show=not args.json, into=uploads)
            waited = wait_for_jobs(deps, [j for _, j, _ in uploads if j], show=not args.json)
    except KeyboardInterrupt:
        stop_cleanly(deps, [j for _, j, _ in uploads if j], total=len(files))
        return 130
    jobs = {job.job_id: job for job in waited}
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
                     "reason": job.reason or flagged, "metadata_inherited": job.metadata_inherited})
    report(rows, args.json)
    return ingest_status(rows)


def ingest_jsonl(args: argparse.Namespace) -> int:
    from voiceassist_local.bulk import ingest_beir_corpus

    deps = local_dependencies()
    try:
        with termination_as_interrupt():
            summary = ingest_beir_corpus(deps, Path(args.corpus), source_type=args.source_type,
                                         specialty=args.specialty, limit=args.limit, show=not args.json)
    except KeyboardInterrupt:  # a second Ctrl-C while the documents under way were finishing
        leave_now()
    if not args.json:
        for failure in summary["failures"]:  # every document that did not end ACTIVE, with its reason
            print(f"FAILED     {failure['doc_key']}  {failure['reason']}".rstrip())
    print(json.dumps(summary, indent=2) if args.json else
          f"{summary['completed']} completed, {summary['unchanged']} unchanged, {summary['failed']} failed "
          f"in {summary['seconds']:.1f} s ({summary['docs_per_s']:.1f} docs/s)")
    if summary["interrupted"]:
        note(f"interrupted: {summary['left']} document(s) left; run the same command again to ingest them "
             "(the documents already indexed are skipped as unchanged)")
        return 130
    return 0 if not summary["failed"] else 1


# --------------------------------------------------------------------------- stopping ingestion cleanly


@contextmanager
def termination_as_interrupt() -> Iterator[None]:
    """SIGTERM stops ingestion or the server as Ctrl-C does (cleanly), instead of killing the process mid-document
    or leaving the server's file behind."""
    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_cleanly(deps: Dependencies, job_ids: Sequence[str], *, total: int) -> None:
    """After Ctrl-C (or SIGTERM): no new document starts, the ones being indexed finish, and what is left stays
    PENDING for the next run (a re-run of the command indexes it; `voiceassist serve` re-drives it)."""
    note("stopping: the documents being indexed now finish first (Ctrl-C again to stop at once)")
    runner = deps.__dict__.get("pipelines")
    try:
        if runner is not None:
            runner.close()  # waits for the running executions, cancels the queued ones
    except KeyboardInterrupt:
        leave_now()
    states = [deps.jobs.get(job_id).state for job_id in job_ids]
    done = states.count(JobState.COMPLETED)
    failed = states.count(JobState.FAILED)
    left = total - done - failed - states.count(JobState.SUPERSEDED)
    note(f"interrupted: {done} of {total} document(s) indexed, {failed} failed, {left} left; run the same "
         "command again to ingest what is left (the documents already indexed are skipped as unchanged)")


def leave_now() -> NoReturn:
    """A second Ctrl-C: end at once, without the interpreter's shutdown (which would fail the executions under
    way with "cannot schedule new futures"); their jobs are re-driven by the next start or run."""
    note("stopped at once: the documents that were being indexed are resumed by the next `voiceassist serve` "
         "or a run of the same command")
    sys.stdout.flush()
    os._exit(130)


def warm_up(deps: Dependencies) -> None:
    """Load the PHI detector and the embedder before the first question, as a provisioned Lambda would: a
    cold load inside the search branch would eat its time budget."""
    deps.phi_detector.detect("warm up the detector")
    deps.embedder.embed(["warm up the embedder"])
    preload = getattr(deps.pipelines, "preload", None)  # the local runner: the query's handlers, imported now
    if preload is not None:
        preload("query")


def answer_in_process(question: str, *, top_k: int) -> dict[str, Any]:
    """`voiceassist ask` without a server: the query pipeline runs here; the response as JSON."""
    from pydantic import ValidationError

    try:
        request = QueryRequest(query=question, top_k=top_k)
    except ValidationError as exc:  # field and rule only: pydantic's own message quotes the question
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise CliError(f"invalid question ({problems})") from exc
    deps = local_dependencies()
    if not deps.documents.list(status=DocumentStatus.ACTIVE, limit=1):
        note(f"(the knowledge base in {deps.settings.data_dir} has no searchable document: `make run` or "
             "`voiceassist serve` ingests the sample corpus on its first start; `voiceassist ingest FILE` adds yours)")
    warm_up(deps)
    return service.answer(deps, request, user_id="local-user").model_dump(mode="json")


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


def _searchable(deps: Dependencies, doc_key: str) -> bool:
    return any(version.status is DocumentStatus.ACTIVE for version in deps.documents.versions(doc_key))


def ensure_sample_corpus(deps: Dependencies, *, every_sample: bool = False, show: bool = True) -> list[str]:
    """Ingest the bundled sample corpus once, on the first start of a fresh data folder; returns one line per
    sample that failed (also printed to stderr). With every_sample (the evaluations, which measure against the
    samples), each sample that has no searchable version is ingested even in a folder with other documents, so a
    sample that failed once is tried again; the server does not do this, so a sample the user deleted stays
    deleted."""
    catalog = json.loads((sample_corpus_dir() / "catalog.json").read_text(encoding="utf-8"))
    if every_sample:
        catalog = [entry for entry in catalog if not _searchable(deps, entry["metadata"]["doc_key"])]
    elif deps.documents.list(limit=1):
        return []
    job_ids = []
    for entry in catalog:
        path = sample_corpus_dir() / entry["file"]
        registration = service.accept_upload(deps, filename=path.name, data=path.read_bytes(),
                                             metadata=service.metadata_for(path.name, entry["metadata"]))
        job_ids.append(registration.job.job_id)
    failures = [f"sample {job.doc_key} ended {job.state.value}: {job.reason}"
                for job in wait_for_jobs(deps, job_ids, label="sample corpus", show=show)
                if job.state is not JobState.COMPLETED]
    for failure in failures:
        print(f"warning: {failure}", file=sys.stderr)
    return failures


def serve(args: argparse.Namespace) -> int:
    """The local API on host:port. The data folder is locked first (one server per folder), the port bound next
    (a port in use is said before any work), then jobs are reconciled, the samples ingested and the models
    loaded. Ctrl-C (or SIGTERM) stops it and exits 0 (a normal end, also for `make run`)."""
    from voiceassist_local.cli.api_client import lock_data_folder, remove_server_file

    settings = settings_from_env()
    lock = lock_data_folder(settings.data_dir)  # noqa: F841 - held for the process's life
    try:
        with termination_as_interrupt():  # `kill`, docker stop, systemd: the same clean stop as Ctrl-C
            return _serve(args, settings.data_dir)
    except KeyboardInterrupt:
        print("\nstopped", flush=True)
        return 0
    finally:
        remove_server_file(settings.data_dir)


def _serve(args: argparse.Namespace, data_dir: Path) -> int:
    from voiceassist_local.cli.api_client import client_url, write_server_file
    from voiceassist_local.http_guard import check_binding
    from voiceassist_local.incoming import IncomingFolderWatcher
    from voiceassist_local.recovery import JobReconciler, reconcile_once
    from voiceassist_local.server import example_request, make_server

    server = bind(args.host, args.port, make_server)
    deps = local_dependencies()
    warning = check_binding(args.host, deps.settings.local_token)
    if warning:
        print(warning)
    reconciler: JobReconciler | None = None
    watcher = None
    try:
        reconcile_once(deps)  # jobs a killed server left PENDING or RUNNING are failed and re-driven
        if not args.no_samples:
            ensure_sample_corpus(deps)
        warm_up(deps)
        if not os.environ.get("POWERTOOLS_LOG_LEVEL"):
            from voiceassist.observability import logger

            # The CLI keeps our log to errors for its progress bars; a server has none: ingestion failures,
            # refused incoming files and recovered jobs are visible at the default level.
            logger.setLevel("WARNING")
        url = client_url(args.host, server.server_address[1])
        print(f"VoiceAssist local API on {url}  (data: {deps.settings.data_dir})")
        token = bool(deps.settings.local_token)
        if token:  # a browser opening the page cannot send the token: say so rather than show a URL that is a 401
            print("  web:     not for a browser here: every request needs the token, the page's too (use the API)")
        else:
            print(f"  web:     {url}/  (the chat client; {url}/?q=... asks on load)")
        print(f"  OpenAPI: {url}/v1/openapi.json")
        print(f"  try:     {example_request(url, token=token)}")
        print(f'  or:      {ask_command(data_dir)}  (answered by this server)')
        reconciler = JobReconciler(deps)
        reconciler.start()
        if not args.no_watch:
            watcher = IncomingFolderWatcher(deps.settings.blob_dir)
            watcher.start()
            print(f"  ingest:  drop files into {watcher.folder} (ingested as S3 uploads are)")
        write_server_file(data_dir, url)  # before the banner's last line: whoever reads it finds the server
        print("  stop:    Ctrl-C", flush=True)
        server.serve_forever()
    finally:
        if reconciler is not None:
            reconciler.stop()
        if watcher is not None:
            watcher.stop()
        server.server_close()
        runner = deps.__dict__.get("pipelines")
        if runner is not None:
            runner.close()
    return 0


EXAMPLE_QUESTION = "What is the first-line treatment for uncomplicated hypertension?"  # the banner's and README's


def this_command() -> str:
    """How this CLI was run (`.venv/bin/voiceassist` from `make run`), so the banner's line can be copied as is."""
    return sys.argv[0] if Path(sys.argv[0]).name == "voiceassist" else "voiceassist"


def ask_command(data_dir: Path) -> str:
    """The banner's `ask` line: it names a data folder other than the default `.data`, since a second terminal
    without the server's VOICEASSIST_DATA_DIR would otherwise ask an empty `.data` in its own process."""
    folder = "" if data_dir.resolve() == Path(".data").resolve() else f" --data-dir {shlex.quote(str(data_dir))}"
    return f'{this_command()}{folder} ask "{EXAMPLE_QUESTION}"'


def bind(host: str, port: int, make_server: Any) -> Any:
    """The server, bound; a port in use or not allowed is said in our words, with the way out."""
    try:
        return make_server(host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CliError(f"port {port} is already in use on {host} (another VoiceAssist server, or another "
                           f"program): choose another port with --port {port + 1} (make run: "
                           f"PORT={port + 1} make run)") from exc
        if exc.errno == errno.EACCES:
            raise CliError(f"port {port} on {host} needs privileges: use a port above 1023, e.g. --port 8080 "
                           "(make run: PORT=8080 make run)") from exc
        if exc.errno in (errno.EADDRNOTAVAIL, socket.EAI_NONAME) or isinstance(exc, socket.gaierror):
            raise CliError(f"cannot listen on {host}: not an address of this machine (try --host 127.0.0.1)") from exc
        raise
