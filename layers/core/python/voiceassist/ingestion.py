"""The ingestion pipeline as plain functions, one per stage (the Lambda stages are wiring around these).

Stages hand their output to the next stage as an artefact reference (see `hand_off`): inline in the
execution state when it is small, otherwise a BlobStore key under `artifacts/<doc_id>/`. Most documents
(an abstract, a guideline page) then cost no storage round trip between stages, and a 500-page book
still passes Step Functions' 256 KB state limit by reference. A version becomes searchable only in
Finalize; a failure anywhere leaves nothing of it searchable.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from voiceassist import chunking, cleaning, extraction
from voiceassist.errors import Conflict, ExtractionError, InvalidInput, NotFound
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
from voiceassist.ports import BlobStore, DocumentStore, Embedder, JobStore, SearchIndex, Vectors

EMBED_BATCH = 64  # chunks per embed call: a long document reports progress after each
INDEX_BATCH = 500
# An inline artefact is at most this big (base64 included); the state holds two at most (Embed hands on
# chunks and vectors), far below Step Functions' 256 KB.
INLINE_ARTIFACT_BYTES = 64 * 1024
ARTIFACT_NAMES = ("extracted.json", "cleaned.json", "chunks.jsonl", "vectors.npy")
# Operators drop files under INCOMING_PREFIX (S3 -> EventBridge -> ingest_trigger); the API stores its
# uploads under UPLOAD_PREFIX and starts the pipeline itself, so that prefix does not trigger.
INCOMING_PREFIX = "incoming/"
UPLOAD_PREFIX = "documents/"

ArtifactRef = dict[str, str]  # {"inline": base64} or {"key": blob key}


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

    Same doc_key and same content as a live or in-flight version -> an `unchanged` job, already COMPLETED,
    and no work. Changed content -> version n+1 (the old version stays searchable until the new one is
    indexed).
    """
    data = ctx.blobs.get(blob_key)
    if not data:
        raise InvalidInput(f"{filename or blob_key} is empty: upload a document with content")
    kind = content_type or extraction.detect_content_type(filename or blob_key, data)
    digest = content_hash(data)
    versions = ctx.documents.versions(metadata.doc_key)
    for existing in reversed(versions):
        if existing.content_hash == digest and existing.status in (DocumentStatus.ACTIVE, DocumentStatus.PENDING):
            where = "indexed" if existing.status is DocumentStatus.ACTIVE else "being indexed"
            job = IndexingJob(doc_id=existing.doc_id, doc_key=existing.doc_key, version=existing.version,
                              state=JobState.COMPLETED, unchanged=True,
                              reason=f"unchanged: this content is already {where} as version {existing.version}",
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
    """First pipeline stage: PENDING -> RUNNING. A RUNNING job resumes: Lambda re-ran this stage after a
    lost response, and the execution name (the job id, or job id and attempt) rules out a second run."""
    job = ctx.jobs.get(job_id)
    if not job.unchanged and job.state is not JobState.RUNNING:
        _move(ctx, job, JobState.RUNNING)
    return {"job_id": job.job_id, "doc_id": job.doc_id, "unchanged": job.unchanged}


# --------------------------------------------------------------------------- extract, clean, chunk


def extract_document(ctx: IngestionContext, doc_id: str) -> dict[str, Any]:
    document = ctx.documents.get(doc_id)
    data = ctx.blobs.get(document.blob_key)
    extracted = extraction.extract(data, document.content_type, max_bytes=ctx.max_upload_bytes)
    pages = len(extracted.pages) if document.content_type == extraction.PDF else None
    ctx.documents.put(document.model_copy(update={"page_count": pages, "updated_at": utc_now()}))
    ref = hand_off(ctx, doc_id, "extracted.json", extracted.model_dump_json().encode("utf-8"))
    return {"extracted": ref, "pages": len(extracted.pages), "chars": extracted.char_count}


def clean_document(ctx: IngestionContext, doc_id: str, extracted: ArtifactRef) -> dict[str, Any]:
    raw = ExtractedDocument.model_validate_json(received(ctx, extracted))
    cleaned = ExtractedDocument(pages=cleaning.clean_pages(raw.pages), content_type=raw.content_type)
    if not cleaned.char_count:
        raise ExtractionError("no readable text remained after removing headers, footers and page numbers")
    ref = hand_off(ctx, doc_id, "cleaned.json", cleaned.model_dump_json().encode("utf-8"),
                   by_reference="key" in extracted)
    return {"cleaned": ref, "chars": cleaned.char_count}


def chunk_document(ctx: IngestionContext, doc_id: str, job_id: str, cleaned: ArtifactRef) -> dict[str, Any]:
    document = ctx.documents.get(doc_id)
    pages = ExtractedDocument.model_validate_json(received(ctx, cleaned)).pages
    chunks = chunking.chunk_document(
        pages, doc_id=doc_id, doc_key=document.doc_key, version=document.version,
        metadata=document.metadata, max_tokens=ctx.chunk_tokens, overlap_tokens=ctx.chunk_overlap,
        model_max_tokens=ctx.embedder.max_tokens, count_model_tokens=ctx.embedder.count_tokens,
    )
    if not chunks:
        raise ExtractionError("the document produced no text to index")
    _update_job(ctx, job_id, chunks_total=len(chunks), chunks_done=0)
    lines = "\n".join(chunk.model_dump_json() for chunk in chunks).encode("utf-8")
    ref = hand_off(ctx, doc_id, "chunks.jsonl", lines, by_reference="key" in cleaned)
    return {"chunks": ref, "count": len(chunks)}


# --------------------------------------------------------------------------- embed, index


def embed_document(ctx: IngestionContext, doc_id: str, job_id: str, chunks: ArtifactRef) -> dict[str, Any]:
    """Embed every chunk; a document longer than one batch reports its progress on the job."""
    texts = [embedding_text(chunk) for chunk in received_chunks(ctx, chunks)]
    parts = []
    for start in range(0, len(texts), EMBED_BATCH):
        parts.append(ctx.embedder.embed(texts[start:start + EMBED_BATCH]))
        if len(texts) > EMBED_BATCH:
            _update_job(ctx, job_id, chunks_done=min(start + EMBED_BATCH, len(texts)))
    vectors = np.vstack(parts).astype(np.float32, copy=False)
    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    ref = hand_off(ctx, doc_id, "vectors.npy", buffer.getvalue(), by_reference="key" in chunks)
    return {"chunks": chunks, "vectors": ref, "count": int(vectors.shape[0])}


def embedding_text(chunk: Chunk) -> str:
    """The text a chunk is embedded as: the title gives a document's first chunk its topic, unless the chunk
    already opens with it (a BEIR record is its title and text, as BEIR embeds it: once)."""
    if chunk.ordinal == 0 and not chunk.text.startswith(chunk.metadata.title):
        return f"{chunk.metadata.title}\n{chunk.text}"
    return chunk.text


def index_document(ctx: IngestionContext, doc_id: str, job_id: str, chunks: ArtifactRef,
                   vectors: ArtifactRef) -> dict[str, Any]:
    """Bulk-index the new version's chunks; they stay invisible to search until Finalize activates them."""
    document = ctx.documents.get(doc_id)
    indexed = received_chunks(ctx, chunks)
    matrix: Vectors = np.load(io.BytesIO(received(ctx, vectors)), allow_pickle=False)
    if matrix.shape[0] != len(indexed):
        raise Conflict(f"{len(indexed)} chunks but {matrix.shape[0]} vectors for {doc_id}; re-run Embed")
    ctx.index.delete_document(document.doc_key, document.version)  # a retried job never duplicates chunks
    for start in range(0, len(indexed), INDEX_BATCH):
        ctx.index.index(indexed[start:start + INDEX_BATCH], matrix[start:start + INDEX_BATCH])
    return {"indexed": len(indexed), "stored_artifacts": "key" in vectors}


# --------------------------------------------------------------------------- finalize, fail


def finalize_document(ctx: IngestionContext, doc_id: str, job_id: str, *, stored_artifacts: bool = True
                      ) -> dict[str, Any]:
    """Activate the new version (one step for readers), then retire older versions and their jobs.

    A newer version that finished first wins: this one is then superseded at once, never activated.
    """
    job = ctx.jobs.get(job_id)
    if job.state in (JobState.COMPLETED, JobState.SUPERSEDED):  # Lambda re-ran a finished Finalize
        return {"status": job.state.value, "chunks": job.chunks_total}
    document = ctx.documents.get(doc_id)
    versions = ctx.documents.versions(document.doc_key)
    newer = [v for v in versions if v.version > document.version and v.status is DocumentStatus.ACTIVE]
    now = utc_now()
    if newer:
        ctx.index.delete_document(document.doc_key, document.version)
        ctx.documents.put(document.model_copy(update={"status": DocumentStatus.SUPERSEDED, "updated_at": now}))
    else:
        ctx.index.activate(document.doc_key, document.version)
        ctx.documents.put(document.model_copy(update={"status": DocumentStatus.ACTIVE,
                                                      "chunk_count": job.chunks_total, "updated_at": now}))
        for older in versions:
            if older.version < document.version and older.status is DocumentStatus.ACTIVE:
                _supersede(ctx, older, by_version=document.version)
    completed = _move(ctx, job.model_copy(update={"chunks_done": job.chunks_total}), JobState.COMPLETED,
                      expected=job.state)
    if newer:
        _move(ctx, completed, JobState.SUPERSEDED, reason=f"superseded by version {newer[-1].version}")
    if stored_artifacts:
        _delete_artifacts(ctx, doc_id)
    return {"status": "SUPERSEDED" if newer else "COMPLETED", "chunks": job.chunks_total}


def fail_job(ctx: IngestionContext, job_id: str, doc_id: str, error: dict[str, Any] | None) -> dict[str, Any]:
    """The pipeline's Catch target: job FAILED with a readable reason, nothing of this version searchable.

    A job that can no longer fail (a replayed execution of a finished job) is left as it is, and so is its
    document. If the failure came after activation, the live version of the doc_key is made searchable again.
    """
    reason = failure_reason(error)
    job = ctx.jobs.get(job_id)
    if not job.can_transition(JobState.FAILED):
        logger.warning("ingest failure of a finished job ignored",
                       extra={"job_id": job_id, "state": job.state.value, "reason": reason})
        return {"status": job.state.value, "reason": job.reason}
    document = ctx.documents.get(doc_id)
    ctx.index.delete_document(document.doc_key, document.version)
    live = [v for v in ctx.documents.versions(document.doc_key)
            if v.version != document.version and v.status is DocumentStatus.ACTIVE]
    if live:
        ctx.index.activate(live[-1].doc_key, live[-1].version)
    if document.status in (DocumentStatus.PENDING, DocumentStatus.ACTIVE):  # not one deleted meanwhile
        ctx.documents.put(document.model_copy(update={"status": DocumentStatus.FAILED, "updated_at": utc_now()}))
    _delete_artifacts(ctx, doc_id)
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


# --------------------------------------------------------------------------- artefacts between stages


def hand_off(ctx: IngestionContext, doc_id: str, name: str, data: bytes, *, by_reference: bool = False
             ) -> ArtifactRef:
    """A stage's output for the next stage: inline when small, else stored under artifacts/<doc_id>/.

    Once one artefact of a document goes by reference, the later ones do too (`by_reference`), so the
    last stage knows from its own inputs whether anything was stored that it must delete.
    """
    encoded = base64.b64encode(data).decode("ascii")
    if not by_reference and len(encoded) <= INLINE_ARTIFACT_BYTES:
        return {"inline": encoded}
    key = artifact_key(doc_id, name)
    ctx.blobs.put(key, data)
    return {"key": key}


def received(ctx: IngestionContext, ref: ArtifactRef) -> bytes:
    if "inline" in ref:
        return base64.b64decode(ref["inline"])
    return ctx.blobs.get(ref["key"])


def received_chunks(ctx: IngestionContext, ref: ArtifactRef) -> list[Chunk]:
    lines = received(ctx, ref).decode("utf-8").splitlines()
    return [Chunk.model_validate_json(line) for line in lines if line.strip()]


def _delete_artifacts(ctx: IngestionContext, doc_id: str) -> None:
    for name in ARTIFACT_NAMES:
        try:
            ctx.blobs.delete(artifact_key(doc_id, name))
        except NotFound:
            continue


# --------------------------------------------------------------------------- jobs


def _supersede(ctx: IngestionContext, older: KnowledgeDocument, *, by_version: int) -> None:
    ctx.documents.put(older.model_copy(update={"status": DocumentStatus.SUPERSEDED, "updated_at": utc_now()}))
    ctx.index.delete_document(older.doc_key, older.version)
    for old_job in ctx.jobs.for_document(older.doc_id):
        if old_job.state is JobState.COMPLETED:
            _move(ctx, old_job, JobState.SUPERSEDED, reason=f"superseded by version {by_version}")


def _move(ctx: IngestionContext, job: IndexingJob, to: JobState, *, reason: str | None = None,
          expected: JobState | None = None) -> IndexingJob:
    moved = job.transition(to, reason=reason)
    ctx.jobs.save(moved, expected_state=expected or job.state)
    return moved


def _update_job(ctx: IngestionContext, job_id: str, **changes: Any) -> None:
    job = ctx.jobs.get(job_id)
    ctx.jobs.save(job.model_copy(update={**changes, "updated_at": utc_now()}), expected_state=job.state)
