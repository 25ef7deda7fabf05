"""The ingestion pipeline as plain functions, one per stage (the Lambda stages are wiring around these).

Register Document lives in voiceassist.ingest.registration. Stages hand their output to the next stage as an
artefact reference (voiceassist.ingest.artifacts: inline in the execution state when small, by blob key when
large). A version becomes searchable only in Finalize; a failure anywhere leaves nothing of it searchable.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from voiceassist.constants.environment import INCOMING_PREFIX  # noqa: F401 - the ingest floor's prefixes
from voiceassist.errors import Conflict, ExtractionError, InvalidTransition, NotFound
from voiceassist.ingest import chunking, cleaning, extraction, ocr
from voiceassist.ingest.artifacts import (
    ArtifactRef,
    delete_artifacts,
    hand_off,
    is_stored,
    received,
    received_chunks,
)
from voiceassist.ingest.injection import injection_flags
from voiceassist.ingest.metrics import ABANDONED, completed_points, failed_points
from voiceassist.ingest.recovery import stamp
from voiceassist.models import (
    Chunk,
    DocumentStatus,
    ExtractedDocument,
    IndexingJob,
    JobState,
    KnowledgeDocument,
    utc_now,
)
from voiceassist.observability import logger
from voiceassist.ports import BlobStore, DocumentStore, Embedder, JobStore, MetricSink, PageOcr, SearchIndex, Vectors

EMBED_BATCH = 64  # chunks per embed call: a long document reports progress after each
INDEX_BATCH = 500
# Operators drop files under INCOMING_PREFIX (S3 -> EventBridge -> ingest_trigger); the API stores its
# uploads under UPLOAD_PREFIX and starts the pipeline itself, so that prefix does not trigger.
UPLOAD_PREFIX = "documents/"


class IngestionContext(Protocol):
    """What the ingestion steps may use. The composition root provides it and builds each adapter on first
    use, so a step builds only what it touches (Register never loads the embedder)."""

    @property
    def blobs(self) -> BlobStore: ...
    @property
    def documents(self) -> DocumentStore: ...
    @property
    def jobs(self) -> JobStore: ...
    @property
    def metrics(self) -> MetricSink: ...
    @property
    def index(self) -> SearchIndex: ...
    @property
    def embedder(self) -> Embedder: ...
    @property
    def chunk_tokens(self) -> int: ...
    @property
    def chunk_overlap(self) -> int: ...
    @property
    def max_upload_bytes(self) -> int: ...
    @property
    def job_lease_seconds(self) -> float: ...
    @property
    def max_pages(self) -> int: ...
    @property
    def ocr_low_confidence(self) -> float: ...
    @property
    def ocr(self) -> PageOcr: ...
    @property
    def ocr_poll_seconds(self) -> int: ...
    @property
    def ocr_max_wait_seconds(self) -> int: ...


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------- start (register: voiceassist.ingest.registration)


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
    if content_hash(data) != document.content_hash:
        # An S3 upload is registered in place (incoming/...): overwritten before Extract read it, its bytes
        # are not the registered version's. The overwrite is an upload of its own, with its own event.
        raise ExtractionError("the file changed after it was registered (overwritten while being ingested); "
                              "its new content is ingested by its own upload")
    extracted = extraction.extract(data, document.content_type, max_bytes=ctx.max_upload_bytes,
                                   max_pages=ctx.max_pages)
    is_pdf = document.content_type == extraction.PDF
    _put_if_unchanged(ctx, document, page_count=len(extracted.pages) if is_pdf else None,
                      references=extracted.references)
    ref = hand_off(ctx.blobs, doc_id, "extracted.json", extracted.model_dump_json().encode("utf-8"))
    scanned = ocr.pages_needing_ocr(extracted.pages) if is_pdf else []  # the Choice sends these to OCR
    return {"extracted": ref, "pages": len(extracted.pages), "chars": extracted.char_count,
            "needs_ocr": bool(scanned), "ocr_pages": scanned}


def clean_document(ctx: IngestionContext, doc_id: str, extracted: ArtifactRef) -> dict[str, Any]:
    raw = ExtractedDocument.model_validate_json(received(ctx.blobs, extracted))
    cleaned = raw.model_copy(update={"pages": cleaning.clean_pages(raw.pages)})
    if not cleaned.char_count:
        raise ExtractionError("no readable text remained after removing headers, footers and page numbers")
    ref = hand_off(ctx.blobs, doc_id, "cleaned.json", cleaned.model_dump_json().encode("utf-8"),
                   by_reference=is_stored(extracted))
    return {"cleaned": ref, "chars": cleaned.char_count}


def chunk_document(ctx: IngestionContext, doc_id: str, job_id: str, cleaned: ArtifactRef) -> dict[str, Any]:
    document = ctx.documents.get(doc_id)
    pages = ExtractedDocument.model_validate_json(received(ctx.blobs, cleaned)).pages
    chunks = chunking.chunk_document(
        pages, doc_id=doc_id, doc_key=document.doc_key, version=document.version,
        metadata=document.metadata, max_tokens=ctx.chunk_tokens, overlap_tokens=ctx.chunk_overlap,
        model_max_tokens=ctx.embedder.max_tokens, count_model_tokens=ctx.embedder.count_tokens,
    )
    if not chunks:
        raise ExtractionError("the document produced no text to index")
    chunks = [c.model_copy(update={"injection_flags": injection_flags(c.text)}) for c in chunks]
    chunks = ocr.flag_chunks(chunks, pages, low_confidence=ctx.ocr_low_confidence)
    flagged = sum(bool(c.injection_flags) for c in chunks)
    _update_job(ctx, job_id, chunks_total=len(chunks), chunks_done=0, flagged_chunks=flagged)
    lines = "\n".join(chunk.model_dump_json() for chunk in chunks).encode("utf-8")
    ref = hand_off(ctx.blobs, doc_id, "chunks.jsonl", lines, by_reference=is_stored(cleaned))
    return {"chunks": ref, "count": len(chunks), "flagged_chunks": flagged}


# --------------------------------------------------------------------------- embed, index


def embed_document(ctx: IngestionContext, doc_id: str, job_id: str, chunks: ArtifactRef) -> dict[str, Any]:
    """Embed every chunk, then the document's opening (opening_text: one more text, once per version), saved as
    the last row after the chunks'; a document longer than one batch reports its progress on the job."""
    received = received_chunks(ctx.blobs, chunks)
    texts = [embedding_text(chunk) for chunk in received]
    parts = []
    for start in range(0, len(texts), EMBED_BATCH):
        parts.append(ctx.embedder.embed(texts[start:start + EMBED_BATCH]))
        if len(texts) > EMBED_BATCH:
            _update_job(ctx, job_id, chunks_done=min(start + EMBED_BATCH, len(texts)))
    if received:
        parts.append(ctx.embedder.embed([opening_text(received)]))
    vectors = np.vstack(parts).astype(np.float32, copy=False)
    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    ref = hand_off(ctx.blobs, doc_id, "vectors.npy", buffer.getvalue(), by_reference=is_stored(chunks))
    return {"chunks": chunks, "vectors": ref, "count": len(texts)}


def embedding_text(chunk: Chunk) -> str:
    """The text a chunk is embedded as: the title gives a document's first chunk its topic, unless the chunk
    already opens with it (a BEIR record is its title and text, as BEIR embeds it: once)."""
    if chunk.ordinal == 0 and not chunk.text.startswith(chunk.metadata.title):
        return f"{chunk.metadata.title}\n{chunk.text}"
    return chunk.text


OPENING_WORDS = 80  # the opening's length: a document's title and first words (docs/decisions/0025, session 14)


def opening_text(chunks: Sequence[Chunk]) -> str:
    """A document's opening: the first OPENING_WORDS words of its first chunk's embedding text (its title and
    first words). MiniLM read NFCorpus's abstracts better from their first 80 words than whole (decision 0025,
    thirteenth session); the reranker reads the question's cosine with it (SearchHit.opening_cosine)."""
    first = min(chunks, key=lambda chunk: chunk.ordinal)
    return " ".join(embedding_text(first).split()[:OPENING_WORDS])


def index_document(ctx: IngestionContext, doc_id: str, job_id: str, chunks: ArtifactRef,
                   vectors: ArtifactRef) -> dict[str, Any]:
    """Bulk-index the new version's chunks; they stay invisible to search until Finalize activates them."""
    document = ctx.documents.get(doc_id)
    indexed = received_chunks(ctx.blobs, chunks)
    matrix: Vectors = np.load(io.BytesIO(received(ctx.blobs, vectors)), allow_pickle=False)
    # The chunks' vectors, then the opening's (an Embed step run before openings were computed saved none).
    if matrix.shape[0] not in (len(indexed), len(indexed) + 1):
        raise Conflict(f"{len(indexed)} chunks but {matrix.shape[0]} vectors for {doc_id}; re-run Embed")
    opening = matrix[len(indexed):] if matrix.shape[0] > len(indexed) else None
    matrix = matrix[:len(indexed)]
    ctx.index.delete_document(document.doc_key, document.version)  # a retried job never duplicates chunks
    for start in range(0, len(indexed), INDEX_BATCH):
        ctx.index.index(indexed[start:start + INDEX_BATCH], matrix[start:start + INDEX_BATCH], opening)
    return {"indexed": len(indexed), "stored_artifacts": is_stored(vectors)}


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
    if document.status is not DocumentStatus.PENDING:  # deleted (or failed) while it was being indexed
        return _abandon(ctx, job, document, stored_artifacts=stored_artifacts)
    versions = ctx.documents.versions(document.doc_key)
    newer = [v for v in versions if v.version > document.version and v.status is DocumentStatus.ACTIVE]
    now = utc_now()
    try:
        if newer:
            ctx.index.retire(document.doc_key, document.version)  # kept, flagged, for audit
            ctx.documents.put(document.model_copy(update={"status": DocumentStatus.SUPERSEDED, "updated_at": now}),
                              expected_status=DocumentStatus.PENDING)
        else:
            # Activate first, then commit on the status Finalize read: a delete that came in between wins
            # the conditional write, and the chunks just activated are removed again below.
            ctx.index.activate(document.doc_key, document.version)
            ctx.documents.put(document.model_copy(update={"status": DocumentStatus.ACTIVE,
                                                          "chunk_count": job.chunks_total, "updated_at": now}),
                              expected_status=DocumentStatus.PENDING)
    except Conflict:
        return _abandon(ctx, job, ctx.documents.get(doc_id), stored_artifacts=stored_artifacts)
    if not newer:
        for older in versions:
            if older.version < document.version and older.status is DocumentStatus.ACTIVE:
                _supersede(ctx, older, by_version=document.version)
    completed = _move(ctx, job.model_copy(update={"chunks_done": job.chunks_total}), JobState.COMPLETED,
                      expected=job.state)
    if newer:
        _move(ctx, completed, JobState.SUPERSEDED, reason=f"superseded by version {newer[-1].version}")
    if stored_artifacts:
        delete_artifacts(ctx.blobs, doc_id)
    ctx.metrics.record(completed_points(completed))
    return {"status": "SUPERSEDED" if newer else "COMPLETED", "chunks": job.chunks_total}


def _abandon(ctx: IngestionContext, job: IndexingJob, document: KnowledgeDocument, *, stored_artifacts: bool
             ) -> dict[str, Any]:
    """Finalize found its version deleted (or otherwise moved on) during ingestion: its chunks leave the index,
    the doc_key's live version is searchable again, and the job FAILS with the reason. Nothing resurrects."""
    ctx.index.delete_document(document.doc_key, document.version)
    _reactivate_live_version(ctx, document)
    if stored_artifacts:
        delete_artifacts(ctx.blobs, document.doc_id)
    reason = f"the document was {document.status.value.lower()} while it was being indexed; nothing was activated"
    _move(ctx, job, JobState.FAILED, reason=reason)
    ctx.metrics.record(failed_points(job, ABANDONED))
    logger.warning("ingest abandoned", extra={"job_id": job.job_id, "doc_id": document.doc_id,
                                              "status": document.status.value})
    return {"status": "FAILED", "reason": reason}


def _reactivate_live_version(ctx: IngestionContext, document: KnowledgeDocument) -> None:
    live = [v for v in ctx.documents.versions(document.doc_key)
            if v.version != document.version and v.status is DocumentStatus.ACTIVE]
    if live:
        ctx.index.activate(live[-1].doc_key, live[-1].version)


def _put_if_unchanged(ctx: IngestionContext, document: KnowledgeDocument, **changes: Any) -> None:
    """Update a version being ingested, unless it was deleted meanwhile (then the stage fails, and so the job)."""
    try:
        ctx.documents.put(document.model_copy(update={**changes, "updated_at": utc_now()}),
                          expected_status=document.status)
    except Conflict as exc:
        raise ExtractionError("the document was deleted while it was being ingested") from exc


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
    try:
        document: KnowledgeDocument | None = ctx.documents.get(doc_id)
    except NotFound:  # registration stopped between the job and its document
        document = None
    if document is not None:
        ctx.index.delete_document(document.doc_key, document.version)
        _reactivate_live_version(ctx, document)
        if document.status in (DocumentStatus.PENDING, DocumentStatus.ACTIVE):  # not one deleted meanwhile
            with contextlib.suppress(Conflict):  # deleted meanwhile: it stays DELETED
                ctx.documents.put(document.model_copy(update={"status": DocumentStatus.FAILED,
                                                              "updated_at": utc_now()}),
                                  expected_status=document.status)
    delete_artifacts(ctx.blobs, doc_id)
    _move(ctx, job, JobState.FAILED, reason=reason)
    ctx.metrics.record(failed_points(job, str(error.get("Error")) if error else None))
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
    if name in ("ExtractionError", "UnsupportedMediaType", "PayloadTooLarge", "InvalidInput", "Interrupted"):
        return str(message)
    return f"{name}: {message}"[:1000] if message else name


def retry_job(ctx: IngestionContext, job_id: str, *, counted: bool = True) -> IndexingJob:
    """FAILED -> PENDING (at most 3 attempts; `counted=False`: a requeue, IndexingJob.retry); the caller then
    starts the pipeline again."""
    job = ctx.jobs.get(job_id)
    document = ctx.documents.get(job.doc_id)
    if document.status in (DocumentStatus.DELETED, DocumentStatus.SUPERSEDED):
        raise InvalidTransition(f"document {document.doc_id} is {document.status.value}: upload it again instead "
                                "of retrying its job")
    retried = stamp(job.retry(counted=counted))
    ctx.jobs.save(retried, expected_state=job.state)
    if document.status is DocumentStatus.FAILED:
        ctx.documents.put(document.model_copy(update={"status": DocumentStatus.PENDING, "updated_at": utc_now()}))
    return retried


def delete_document(ctx: IngestionContext, doc_id: str) -> KnowledgeDocument:
    """Mark a document version DELETED, then remove it from search (its blob is kept for the audit trail).

    In that order: a Finalize running meanwhile either committed first (and its chunks are removed here) or
    finds the status moved and removes them itself. If this was the live version, no older one comes back."""
    document = ctx.documents.get(doc_id)
    deleted = document.model_copy(update={"status": DocumentStatus.DELETED, "updated_at": utc_now()})
    ctx.documents.put(deleted)
    ctx.index.delete_document(document.doc_key, document.version)
    return deleted


# --------------------------------------------------------------------------- jobs


def _supersede(ctx: IngestionContext, older: KnowledgeDocument, *, by_version: int) -> None:
    ctx.documents.put(older.model_copy(update={"status": DocumentStatus.SUPERSEDED, "updated_at": utc_now()}))
    ctx.index.retire(older.doc_key, older.version)  # kept, flagged, for audit; never searchable
    for old_job in ctx.jobs.for_document(older.doc_id):
        if old_job.state is JobState.COMPLETED:
            _move(ctx, old_job, JobState.SUPERSEDED, reason=f"superseded by version {by_version}")


def _move(ctx: IngestionContext, job: IndexingJob, to: JobState, *, reason: str | None = None,
          expected: JobState | None = None) -> IndexingJob:
    moved = stamp(job.transition(to, reason=reason))
    ctx.jobs.save(moved, expected_state=expected or job.state)
    return moved


def _update_job(ctx: IngestionContext, job_id: str, **changes: Any) -> None:
    job = ctx.jobs.get(job_id)
    ctx.jobs.save(stamp(job.model_copy(update=changes)), expected_state=job.state)
