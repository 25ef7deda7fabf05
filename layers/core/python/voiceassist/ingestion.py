"""The ingestion pipeline as plain functions, one per stage (the Lambda stages are wiring around these).

Stages pass small references, never document bodies: Step Functions payloads are capped at 256 KB, so
every stage writes its artefact to the BlobStore under `artifacts/<doc_id>/` and hands on the job and
document ids. A version becomes searchable only in Finalize; a failure anywhere leaves nothing searchable.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from voiceassist import chunking, cleaning, extraction
from voiceassist.errors import Conflict, InvalidInput, NotFound
from voiceassist.models import (
    Chunk,
    DocumentMetadata,
    DocumentStatus,
    ExtractedDocument,
    IndexingJob,
    JobState,
    KnowledgeDocument,
    utc_now,
)
from voiceassist.observability import logger
from voiceassist.ports import BlobStore, DocumentStore, Embedder, JobStore, SearchIndex

EMBED_BATCH = 64
INDEX_BATCH = 500
# Operators drop files under INCOMING_PREFIX (S3 -> EventBridge -> ingest_trigger); the API stores its
# uploads under UPLOAD_PREFIX and starts the pipeline itself, so that prefix does not trigger.
INCOMING_PREFIX = "incoming/"
UPLOAD_PREFIX = "documents/"


@dataclass(frozen=True)
class IngestionContext:
    """What the ingestion stages need; built by voiceassist.composition."""

    blobs: BlobStore
    documents: DocumentStore
    jobs: JobStore
    index: SearchIndex
    embedder: Embedder
    chunk_tokens: int = 200
    chunk_overlap: int = 30
    max_upload_bytes: int = 50 * 1024 * 1024


@dataclass(frozen=True)
class Registration:
    document: KnowledgeDocument
    job: IndexingJob

    @property
    def unchanged(self) -> bool:
        return self.job.unchanged

    def pipeline_input(self) -> dict[str, Any]:
        return {"job_id": self.job.job_id, "doc_id": self.document.doc_id}


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def document_id(doc_key: str, version: int) -> str:
    return f"doc_{hashlib.sha1(doc_key.encode('utf-8')).hexdigest()[:16]}_v{version}"


def upload_key(doc_key: str, digest: str, filename: str) -> str:
    safe_name = "".join(c if c.isalnum() or c in "._-" else "_" for c in filename)[-120:] or "document"
    return f"{UPLOAD_PREFIX}{hashlib.sha1(doc_key.encode('utf-8')).hexdigest()[:16]}/{digest[:16]}/{safe_name}"


def artifact_key(doc_id: str, name: str) -> str:
    return f"artifacts/{doc_id}/{name}"


# --------------------------------------------------------------------------- register


def register(ctx: IngestionContext, *, blob_key: str, metadata: DocumentMetadata, content_type: str | None = None,
             filename: str | None = None) -> Registration:
    """Record a stored upload as a document version and create its IndexingJob.

    Same doc_key and same content as a live version -> an `unchanged` job, already COMPLETED, and no work.
    Changed content -> version n+1 (the old version stays searchable until the new one is indexed).
    """
    data = ctx.blobs.get(blob_key)
    if not data:
        raise InvalidInput(f"{filename or blob_key} is empty: upload a document with content")
    kind = content_type or extraction.detect_content_type(filename or blob_key, data)
    digest = content_hash(data)
    versions = ctx.documents.versions(metadata.doc_key)
    for existing in reversed(versions):
        if existing.content_hash == digest and existing.status in (DocumentStatus.ACTIVE, DocumentStatus.PENDING):
            job = IndexingJob(doc_id=existing.doc_id, doc_key=existing.doc_key, version=existing.version,
                              state=JobState.COMPLETED, unchanged=True,
                              reason="unchanged: this content is already indexed as version "
                                     f"{existing.version}",
                              chunks_total=existing.chunk_count, chunks_done=existing.chunk_count,
                              finished_at=utc_now())
            ctx.jobs.create(job)
            logger.info("ingest unchanged", extra={"doc_id": existing.doc_id, "job_id": job.job_id})
            return Registration(existing, job)
    version = max((d.version for d in versions), default=0) + 1
    document = KnowledgeDocument(
        doc_id=document_id(metadata.doc_key, version), doc_key=metadata.doc_key, version=version,
        content_hash=digest, content_type=kind, blob_key=blob_key, metadata=metadata, size_bytes=len(data),
    )
    ctx.documents.put(document)
    job = IndexingJob(doc_id=document.doc_id, doc_key=document.doc_key, version=version)
    ctx.jobs.create(job)
    logger.info("ingest registered", extra={"doc_id": document.doc_id, "job_id": job.job_id, "version": version})
    return Registration(document, job)


def start_job(ctx: IngestionContext, job_id: str) -> dict[str, Any]:
    """First pipeline stage: PENDING -> RUNNING (a replayed start of a finished job is refused)."""
    job = ctx.jobs.get(job_id)
    if job.unchanged:
        return {"job_id": job.job_id, "doc_id": job.doc_id, "unchanged": True}
    _move(ctx, job, JobState.RUNNING)
    return {"job_id": job.job_id, "doc_id": job.doc_id, "unchanged": False}


# --------------------------------------------------------------------------- extract, clean, chunk


def extract_document(ctx: IngestionContext, doc_id: str) -> dict[str, Any]:
    document = ctx.documents.get(doc_id)
    data = ctx.blobs.get(document.blob_key)
    extracted = extraction.extract(data, document.content_type, max_bytes=ctx.max_upload_bytes)
    _put_json(ctx, artifact_key(doc_id, "extracted.json"), extracted.model_dump(mode="json"))
    pages = len(extracted.pages) if document.content_type == "application/pdf" else None
    ctx.documents.put(document.model_copy(update={"page_count": pages, "updated_at": utc_now()}))
    return {"pages": len(extracted.pages), "chars": extracted.char_count}


def clean_document(ctx: IngestionContext, doc_id: str) -> dict[str, Any]:
    extracted = ExtractedDocument.model_validate(_get_json(ctx, artifact_key(doc_id, "extracted.json")))
    cleaned = ExtractedDocument(pages=cleaning.clean_pages(extracted.pages), content_type=extracted.content_type)
    if not cleaned.char_count:
        from voiceassist.errors import ExtractionError

        raise ExtractionError("no readable text remained after removing headers, footers and page numbers")
    _put_json(ctx, artifact_key(doc_id, "cleaned.json"), cleaned.model_dump(mode="json"))
    return {"chars": cleaned.char_count}


def chunk_document(ctx: IngestionContext, doc_id: str, job_id: str) -> dict[str, Any]:
    document = ctx.documents.get(doc_id)
    cleaned = ExtractedDocument.model_validate(_get_json(ctx, artifact_key(doc_id, "cleaned.json")))
    chunks = chunking.chunk_document(
        cleaned.pages, doc_id=doc_id, doc_key=document.doc_key, version=document.version,
        metadata=document.metadata, max_tokens=ctx.chunk_tokens, overlap_tokens=ctx.chunk_overlap,
        model_max_tokens=ctx.embedder.max_tokens, count_model_tokens=ctx.embedder.count_tokens,
    )
    if not chunks:
        from voiceassist.errors import ExtractionError

        raise ExtractionError("the document produced no text to index")
    _put_chunks(ctx, doc_id, chunks)
    _update_job(ctx, job_id, chunks_total=len(chunks), chunks_done=0)
    return {"chunks": len(chunks)}


# --------------------------------------------------------------------------- embed, index


def embed_document(ctx: IngestionContext, doc_id: str, job_id: str,
                   progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Embed every chunk in batches; vectors go to one .npy artefact."""
    chunks = _get_chunks(ctx, doc_id)
    texts = [embedding_text(c) for c in chunks]
    parts = []
    for start in range(0, len(texts), EMBED_BATCH):
        parts.append(ctx.embedder.embed(texts[start:start + EMBED_BATCH]))
        done = min(start + EMBED_BATCH, len(texts))
        if progress:
            progress(done, len(texts))
    vectors = np.vstack(parts).astype(np.float32) if parts else np.zeros((0, ctx.embedder.dimension), np.float32)
    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    ctx.blobs.put(artifact_key(doc_id, "vectors.npy"), buffer.getvalue())
    return {"vectors": int(vectors.shape[0]), "dimension": int(vectors.shape[1])}


def embedding_text(chunk: Chunk) -> str:
    """The text a chunk is embedded as: the document title gives short chunks their topic."""
    return f"{chunk.metadata.title}\n{chunk.text}" if chunk.ordinal == 0 else chunk.text


def index_document(ctx: IngestionContext, doc_id: str, job_id: str) -> dict[str, Any]:
    """Bulk-index the new version's chunks; they stay invisible to search until Finalize activates them."""
    document = ctx.documents.get(doc_id)
    chunks = _get_chunks(ctx, doc_id)
    vectors = np.load(io.BytesIO(ctx.blobs.get(artifact_key(doc_id, "vectors.npy"))), allow_pickle=False)
    if vectors.shape[0] != len(chunks):
        raise Conflict(f"{len(chunks)} chunks but {vectors.shape[0]} vectors for {doc_id}; re-run Embed")
    ctx.index.delete_document(document.doc_key, document.version)  # a retried job never duplicates chunks
    for start in range(0, len(chunks), INDEX_BATCH):
        ctx.index.index(chunks[start:start + INDEX_BATCH], vectors[start:start + INDEX_BATCH])
        _update_job(ctx, job_id, chunks_done=min(start + INDEX_BATCH, len(chunks)))
    return {"indexed": len(chunks)}


# --------------------------------------------------------------------------- finalize, fail


def finalize_document(ctx: IngestionContext, doc_id: str, job_id: str) -> dict[str, Any]:
    """Activate the new version (one step for readers), then retire older versions and their jobs."""
    document = ctx.documents.get(doc_id)
    chunks = len(_get_chunks(ctx, doc_id))
    ctx.index.activate(document.doc_key, document.version)
    now = utc_now()
    ctx.documents.put(document.model_copy(update={"status": DocumentStatus.ACTIVE, "chunk_count": chunks,
                                                  "updated_at": now}))
    for older in ctx.documents.versions(document.doc_key):
        if older.version != document.version and older.status is DocumentStatus.ACTIVE:
            ctx.documents.put(older.model_copy(update={"status": DocumentStatus.SUPERSEDED, "updated_at": now}))
            ctx.index.delete_document(older.doc_key, older.version)
            for old_job in ctx.jobs.for_document(older.doc_id):
                if old_job.can_transition(JobState.SUPERSEDED) and old_job.state is JobState.COMPLETED:
                    _move(ctx, old_job, JobState.SUPERSEDED, reason=f"superseded by version {document.version}")
    job = ctx.jobs.get(job_id)
    _move(ctx, job.model_copy(update={"chunks_done": chunks, "chunks_total": chunks}), JobState.COMPLETED,
          expected=job.state)
    _delete_artifacts(ctx, doc_id)
    return {"status": "COMPLETED", "chunks": chunks}


def fail_job(ctx: IngestionContext, job_id: str, doc_id: str, error: dict[str, Any] | None) -> dict[str, Any]:
    """The pipeline's Catch target: job FAILED with a readable reason, nothing of this version searchable."""
    reason = failure_reason(error)
    document = ctx.documents.get(doc_id)
    ctx.index.delete_document(document.doc_key, document.version)
    if document.status is DocumentStatus.PENDING:
        ctx.documents.put(document.model_copy(update={"status": DocumentStatus.FAILED, "updated_at": utc_now()}))
    job = ctx.jobs.get(job_id)
    if job.can_transition(JobState.FAILED):
        _move(ctx, job, JobState.FAILED, reason=reason)
    logger.warning("ingest failed", extra={"job_id": job_id, "doc_id": doc_id, "reason": reason})
    return {"status": "FAILED", "reason": reason}


def failure_reason(error: dict[str, Any] | None) -> str:
    """Turn a Step Functions error ({"Error", "Cause"}) into the sentence an operator reads on the job."""
    if not error:
        return "failed for an unknown reason"
    name = str(error.get("Error") or "Error")
    cause = error.get("Cause") or ""
    message = cause
    if isinstance(cause, str) and cause.startswith("{"):
        try:
            message = json.loads(cause).get("errorMessage", cause)
        except ValueError:
            message = cause
    if name == "States.Timeout":
        return "timed out: the stage took longer than its limit; retry the job"
    if name in ("ExtractionError", "UnsupportedMediaType", "PayloadTooLarge", "InvalidInput"):
        return str(message)
    return f"{name}: {message}"[:1000] if message else name


def retry_job(ctx: IngestionContext, job_id: str) -> IndexingJob:
    """FAILED -> PENDING (at most 3 attempts); the caller then starts the pipeline again."""
    job = ctx.jobs.get(job_id)
    retried = job.retry()
    ctx.jobs.save(retried, expected_state=job.state)
    document = ctx.documents.get(job.doc_id)
    if document.status is DocumentStatus.FAILED:
        ctx.documents.put(document.model_copy(update={"status": DocumentStatus.PENDING, "updated_at": utc_now()}))
    return retried


def delete_document(ctx: IngestionContext, doc_id: str) -> KnowledgeDocument:
    """Remove a document version from search and mark it DELETED (its blob is kept for the audit trail)."""
    document = ctx.documents.get(doc_id)
    ctx.index.delete_document(document.doc_key, document.version)
    deleted = document.model_copy(update={"status": DocumentStatus.DELETED, "updated_at": utc_now()})
    ctx.documents.put(deleted)
    return deleted


# --------------------------------------------------------------------------- helpers


def _move(ctx: IngestionContext, job: IndexingJob, to: JobState, *, reason: str | None = None,
          expected: JobState | None = None) -> IndexingJob:
    moved = job.transition(to, reason=reason)
    ctx.jobs.save(moved, expected_state=expected or job.state)
    return moved


def _update_job(ctx: IngestionContext, job_id: str, **changes: Any) -> None:
    job = ctx.jobs.get(job_id)
    ctx.jobs.save(job.model_copy(update={**changes, "updated_at": utc_now()}), expected_state=job.state)


def _put_json(ctx: IngestionContext, key: str, value: Any) -> None:
    ctx.blobs.put(key, json.dumps(value, ensure_ascii=False).encode("utf-8"), content_type="application/json")


def _get_json(ctx: IngestionContext, key: str) -> Any:
    return json.loads(ctx.blobs.get(key))


def _put_chunks(ctx: IngestionContext, doc_id: str, chunks: list[Chunk]) -> None:
    lines = "\n".join(c.model_dump_json() for c in chunks)
    ctx.blobs.put(artifact_key(doc_id, "chunks.jsonl"), lines.encode("utf-8"), content_type="application/jsonl")


def _get_chunks(ctx: IngestionContext, doc_id: str) -> list[Chunk]:
    raw = ctx.blobs.get(artifact_key(doc_id, "chunks.jsonl")).decode("utf-8")
    return [Chunk.model_validate_json(line) for line in raw.splitlines() if line.strip()]


def _delete_artifacts(ctx: IngestionContext, doc_id: str) -> None:
    for name in ("extracted.json", "cleaned.json", "chunks.jsonl", "vectors.npy"):
        try:
            ctx.blobs.delete(artifact_key(doc_id, name))
        except NotFound:
            continue
