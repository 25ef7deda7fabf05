"""The commands that go to the server running on the data folder when there is one (and say so on stderr),
and otherwise run in this process: ask, ingest, documents list|show|delete.

Standard library only at import: with a server running, `ask` loads nothing of the stack.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voiceassist_local.cli.api_client import CliError, HttpApi, InProcessApi, Reply, path_with, running_server

QUESTION_MAX_CHARS = 4000  # QueryRequest.query's max_length (a test keeps them equal)
SUPPORTED_SUFFIXES = {".pdf", ".docx", ".txt", ".md", ".markdown", ".html", ".htm"}
TERMINAL_STATES = {"COMPLETED", "FAILED", "SUPERSEDED"}
POLL_SECONDS = 0.2


def note(message: str) -> None:
    """A line about how the command ran, on stderr (stdout stays the answer, or the JSON)."""
    print(message, file=sys.stderr, flush=True)


def checked_question(question: str) -> str:
    text = question.strip()
    if not text:
        raise CliError('the question is empty: ask one, for example  voiceassist ask "What is the first-line '
                       'treatment for uncomplicated hypertension?"')
    if len(text) > QUESTION_MAX_CHARS:
        raise CliError(f"the question is {len(text)} characters long; the limit is {QUESTION_MAX_CHARS}: "
                       "shorten it")
    return text


def ask(args: argparse.Namespace) -> int:
    question = checked_question(args.question)
    api = running_server()
    if api is not None:
        note(f"(asking {api.description})")
        reply = api.call("POST", "/v1/query", json.dumps({"query": question, "top_k": args.top_k}).encode())
        if not reply.ok:
            raise CliError(reply.error_message())
        response: dict[str, Any] = reply.body
    else:
        from voiceassist_local.cli.local import answer_in_process

        response = answer_in_process(question, top_k=args.top_k)
    print(json.dumps(response, indent=2) if args.json else format_answer(response))
    return 0


def format_answer(response: dict[str, Any]) -> str:
    """The answer, its numbered sources and one status line (a QueryResponse as JSON)."""
    lines = [str(response.get("answer", "")), ""]
    for c in response.get("citations") or []:
        section = c.get("section") if c.get("section") != c.get("title") else None  # a note's heading is its title
        where = f", page {c['page']}" if c.get("page") else (f", {section}" if section else "")
        lines.append(f"[{c['number']}] {c['title']}{where}")
    meta = response.get("metadata") or {}
    phi = "yes " + ",".join(meta.get("phi_entity_types") or []) if meta.get("phi_detected") else "no"
    lines.append("")
    lines.append(f"status: {meta.get('answer_status')}; evidence: {meta.get('evidence_score')}; "
                 f"model: {meta.get('model')}{' (extractive)' if meta.get('extractive') else ''}; "
                 f"intent: {meta.get('intent')}; PHI: {phi}")
    lines.extend(f"warning: {w}" for w in meta.get("warnings") or [])
    return "\n".join(lines).strip()


# --------------------------------------------------------------------------- ingest


def files_of(paths: Sequence[str]) -> list[Path]:
    """The files named, and the supported files under the folders named; a missing path is an error that
    names every missing one before anything is ingested."""
    missing = [raw for raw in paths if not Path(raw).exists()]
    if missing:
        raise CliError(f"no such file or folder: {', '.join(missing)}")
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES))
        else:
            found.append(path)
    if not found:
        raise CliError(f"no file to ingest in {', '.join(paths)} (supported: "
                       f"{', '.join(sorted(SUPPORTED_SUFFIXES))})")
    return found


def ingest(args: argparse.Namespace) -> int:
    files = files_of(args.paths)
    if (args.title or args.doc_key) and len(files) != 1:
        raise CliError("--title and --doc-key name one document: pass exactly one file")
    api = running_server()
    if api is None:
        from voiceassist_local.cli.local import ingest_in_process

        return ingest_in_process(args, files)
    note(f"(uploading to {api.description})")  # it may refuse (a clinician's server): the next note says so
    metadata = {"source_type": args.source_type, "specialty": args.specialty, "title": args.title,
                "doc_key": args.doc_key}
    try:
        rows = ingest_through(api, files, metadata)
    except UploadsRefused:  # the server's local user is not an admin: the operator ingests here, as without it
        note(f"({api.description} takes uploads only from an admin (VOICEASSIST_LOCAL_GROUPS); ingesting in this "
             "process instead: the server sees the documents as they are indexed)")
        from voiceassist_local.cli.local import ingest_in_process

        return ingest_in_process(args, files)
    report(rows, args.json)
    return ingest_status(rows)


class UploadsRefused(Exception):
    """The server refused the first upload for the caller's role (403)."""


def ingest_through(api: HttpApi, files: Sequence[Path], metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """Upload each file to the server (POST /v1/documents) and wait for its job; a refused file does not stop
    the rest. Ctrl-C stops waiting: the server goes on indexing what it accepted."""
    rows: list[dict[str, Any]] = []
    accepted: dict[str, dict[str, Any]] = {}
    try:
        for path in files:
            reply = _upload(api, path, metadata)
            if reply.status == 403 and not rows:
                raise UploadsRefused(reply.error_message())
            if not reply.ok:
                rows.append({"file": str(path), "state": "REJECTED", "reason": reply.error_message()})
                continue
            row = {"file": str(path), "state": reply.body["job_state"], "job_id": reply.body["job_id"],
                   "doc_id": reply.body["doc_id"]}
            rows.append(row)
            accepted[row["job_id"]] = row
        _wait(api, accepted)
    except KeyboardInterrupt:
        left = [row for row in accepted.values() if row["state"] not in TERMINAL_STATES]
        note(f"stopped waiting: {len(rows)} of {len(files)} file(s) sent; the server goes on indexing the "
             f"{len(left)} accepted and not finished (see: voiceassist jobs)")
        raise
    return rows


def _upload(api: HttpApi, path: Path, metadata: dict[str, Any]) -> Reply:
    target = path_with("/v1/documents", {"filename": path.name, **metadata})
    while True:
        reply = api.call("POST", target, path.read_bytes(), content_type="application/octet-stream")
        if reply.status != 429:
            return reply
        wait = float(reply.headers.get("Retry-After") or reply.headers.get("retry-after") or 5)
        note(f"the server's ingestion backlog is full: waiting {wait:.0f} s")
        time.sleep(wait)


def _wait(api: HttpApi, accepted: dict[str, dict[str, Any]]) -> None:
    pending = {job_id for job_id, row in accepted.items() if row["state"] not in TERMINAL_STATES}
    while pending:
        for job_id in sorted(pending):
            reply = api.call("GET", f"/v1/jobs/{job_id}")
            if not reply.ok:
                raise CliError(reply.error_message())
            job = reply.body
            if job["state"] in TERMINAL_STATES:
                pending.discard(job_id)
                flagged = (f"{job['flagged_chunks']} chunk(s) hold instruction-like text: indexed, never quoted"
                           if job.get("flagged_chunks") else None)
                accepted[job_id].update(state=job["state"], chunks=job.get("chunks_total"),
                                        flagged_chunks=job.get("flagged_chunks"), reason=job.get("reason") or flagged,
                                        metadata_inherited=job.get("metadata_inherited") or [])
        if pending:
            time.sleep(POLL_SECONDS)


def ingest_status(rows: list[dict[str, Any]]) -> int:
    """`ingest`'s exit status: 1 when a file failed or was refused (as `ingest-jsonl`), so a script can tell."""
    return 1 if any(row["state"] in ("FAILED", "REJECTED") for row in rows) else 0


def report(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(json.dumps(rows, indent=2, default=str))
        return
    for row in rows:
        kept = row.get("metadata_inherited")  # field names only, never values
        detail = "; ".join(filter(None, [row.get("reason"),
                                         kept and f"kept from the active version: {', '.join(kept)}"]))
        print(f"{row['state']:<10} {row['file']}  {detail}".rstrip())
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["state"]] = counts.get(row["state"], 0) + 1
    print(", ".join(f"{n} {state.lower()}" for state, n in sorted(counts.items())))


# --------------------------------------------------------------------------- documents


def _api() -> HttpApi | InProcessApi:
    api = running_server()
    if api is not None:
        note(f"(through {api.description})")
        return api
    return InProcessApi()


def _checked(reply: Reply) -> Any:
    if not reply.ok:
        raise CliError(reply.error_message())
    return reply.body


def _printed_as_json(args: argparse.Namespace, value: object) -> bool:
    """With --json, print the server's answer as it came and say so; the caller then prints nothing else."""
    if args.json:
        print(json.dumps(value, indent=2))
    return bool(args.json)


def documents_list(args: argparse.Namespace) -> int:
    body = _checked(_api().call("GET", path_with("/v1/documents", {"status": args.status, "limit": args.limit})))
    documents = body["documents"]
    if _printed_as_json(args, documents):
        return 0
    for d in documents:
        meta = d["metadata"]
        print(f"{d['doc_id']}  {d['status']:<10} {d.get('chunk_count') or 0:>5} chunks  {meta['title'][:60]}"
              f"{'  (' + meta['specialty'] + ')' if meta.get('specialty') else ''}")
    print(f"{len(documents)} document(s)")
    return 0


def documents_show(args: argparse.Namespace) -> int:
    document = _checked(_api().call("GET", f"/v1/documents/{args.doc_id}"))
    if _printed_as_json(args, document):
        return 0
    meta = document["metadata"]
    for label, value in (("doc_id", document["doc_id"]), ("doc_key", document["doc_key"]),
                         ("version", document["version"]), ("status", document["status"]),
                         ("title", meta["title"]), ("source_type", meta.get("source_type")),
                         ("specialty", meta.get("specialty")), ("year", meta.get("year")),
                         ("content", document.get("content_type")), ("chunks", document.get("chunk_count")),
                         ("pages", document.get("page_count")), ("bytes", document.get("size_bytes")),
                         ("created", document.get("created_at"))):
        if value not in (None, ""):
            print(f"{label + ':':<13}{value}")
    return 0


def documents_delete(args: argparse.Namespace) -> int:
    document = _checked(_api().call("DELETE", f"/v1/documents/{args.doc_id}"))
    if _printed_as_json(args, document):
        return 0
    print(f"deleted {document['doc_id']} ({document['metadata']['title']}): no longer searched")
    return 0
