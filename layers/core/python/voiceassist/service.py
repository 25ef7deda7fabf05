"""Application services: what the API routes and the CLI do, in one place, on a Dependencies."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from voiceassist.errors import InvalidInput, PayloadTooLarge
from voiceassist.ingest import extraction, registration
from voiceassist.ingest import stages as ingestion
from voiceassist.models import DocumentMetadata, QueryRequest, QueryResponse
from voiceassist.observability import logger
from voiceassist.query.state import EventTarget, QueryState, response_of

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies


def metadata_for(filename: str, values: dict[str, Any]) -> DocumentMetadata:
    """Document metadata from caller-supplied values, defaulting doc_key and title to the file name."""
    stem = PurePosixPath(filename).stem or "document"
    merged = {k: v for k, v in values.items() if v not in (None, "", [])}
    merged.setdefault("doc_key", stem)
    merged.setdefault("title", stem.replace("_", " ").replace("-", " ").strip().capitalize() or stem)
    if isinstance(merged.get("authors"), str):
        merged["authors"] = [a.strip() for a in merged["authors"].split(";") if a.strip()]
    try:
        return DocumentMetadata.model_validate(merged)
    except ValueError as exc:
        raise InvalidInput(f"invalid document metadata: {exc}") from exc


def accept_upload(deps: Dependencies, *, filename: str, data: bytes, metadata: DocumentMetadata,
                  start_pipeline: bool = True) -> registration.Registration:
    """Store an upload, register it, and start its ingestion unless the content is unchanged."""
    if not data:
        raise InvalidInput(f"{filename} is empty: upload a document with content")
    if len(data) > deps.settings.max_upload_bytes:
        raise PayloadTooLarge(
            f"{filename} is {len(data)} bytes; the limit is {deps.settings.max_upload_bytes} bytes"
        )
    content_type = extraction.detect_content_type(filename, data)
    key = registration.upload_key(metadata.doc_key, ingestion.content_hash(data), filename)
    deps.blobs.put(key, data, content_type=content_type, metadata={"doc_key": quote(metadata.doc_key)})
    registered = registration.register(deps.ingestion, blob_key=key, metadata=metadata,
                                       content_type=content_type, filename=filename)
    if start_pipeline and not registered.unchanged:
        _start_ingestion(deps, registered.job.job_id, registered.document.doc_id, name=registered.job.job_id)
    return registered


def retry_job(deps: Dependencies, job_id: str) -> Any:
    job = ingestion.retry_job(deps.ingestion, job_id)
    _start_ingestion(deps, job.job_id, job.doc_id, name=f"{job.job_id}-attempt{job.attempts}")
    return job


def _start_ingestion(deps: Dependencies, job_id: str, doc_id: str, *, name: str) -> None:
    """Start the pipeline for a PENDING job. If the start fails, the job is marked FAILED (and can be retried):
    left PENDING, no execution would ever move it, and an upload of the same content would be answered
    `unchanged: being indexed` for ever."""
    try:
        deps.pipelines.start("ingest", {"job_id": job_id, "doc_id": doc_id}, name=name)
    except Exception as exc:
        cause = f"the ingestion pipeline could not be started ({exc}); retry the job"
        try:
            ingestion.fail_job(deps.ingestion, job_id, doc_id, {"Error": type(exc).__name__, "Cause": cause})
        except Exception:  # the start's error is the one to report; this one only leaves the job PENDING
            logger.exception("could not mark the job of an unstarted pipeline FAILED", extra={"job_id": job_id})
        raise


def answer(deps: Dependencies, request: QueryRequest, *, user_id: str, trace_id: str | None = None,
           stream: EventTarget | None = None, history: list[str] | None = None) -> QueryResponse:
    """Run the query pipeline (Step Functions Express on AWS, the same ASL in-process locally); with `stream`,
    its steps publish their events there as they finish (conversation.orchestrator)."""
    if request.session_id:
        session = deps.sessions.get(request.session_id)
        if session.user_id != user_id:
            from voiceassist.errors import NotFound

            raise NotFound(f"session {request.session_id} not found")
    state = QueryState(user_id=user_id, request=request, trace_id=trace_id, stream=stream,
                       history=history or [])
    output = deps.pipelines.run("query", state.model_dump(mode="json"))
    return response_of(QueryState.model_validate(output))
